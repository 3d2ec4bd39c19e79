package agent

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/workspace"
)

// Undoing one audited change: the audit tool shows a row with its before
// and after text (auditOne), and revert puts the before text back through
// the commit path when the file still holds the after text.

type revertTool struct{}

func (revertTool) Name() string { return "revert" }
func (revertTool) Description() string {
	return "Undo one audited change: its file gets back the content from before it; refused when the file changed since; what it replaces goes to the trash"
}
func (revertTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"id":{"type":"number","description":"audit row id"},` +
		`"allowVcs":{"type":"boolean","description":"allow changes under .git, .hg or .svn"}` +
		`},"required":["id"],"additionalProperties":false}`)
}

func (revertTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a struct {
		ID       float64 `json:"id"`
		AllowVCS bool    `json:"allowVcs"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: "revert: " + err.Error()}
	}
	if a.ID != float64(int64(a.ID)) || a.ID < 1 {
		return nil, &Error{Kind: KindUsage, Message: "revert: id must be an audit row id (a whole number); list them with the audit tool"}
	}
	st, err := storeOf(env, "revert")
	if err != nil {
		return nil, err
	}
	rows, err := st.AuditRows(workspace.AuditQuery{ID: int64(a.ID)})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("revert: no audit row #%d; list the rows with the audit tool", int64(a.ID))}
	}
	row := rows[0]
	if _, _, ok, _ := sqliteTarget(env, row.Path, "write"); ok {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("revert: audit #%d changed a SQLite row (%s), not a file; put the row back with the restore tool (the trash tool lists the kept row)", row.ID, row.Path)}
	}
	p, err := env.WS.Resolve(row.Path)
	if err != nil {
		return nil, err
	}
	var cur []byte // nil: the file does not exist now
	switch f, err := env.WS.ReadFile(p); {
	case err == nil:
		cur = f.Bytes
	case !workspace.IsKind(err, workspace.KindNotFound):
		return nil, err
	}
	if now := shaOrEmpty(cur); now != row.SHA256After {
		return nil, &Error{Kind: KindStale,
			Message:         fmt.Sprintf("revert: %s changed after audit #%d (%s): it is %s now, that change left it %s, so reverting would throw away the later changes", p.Rel, row.ID, row.Tool, describeSHA(now), describeSHA(row.SHA256After)),
			SuggestedAction: "revert the later changes of this file first, newest first (the audit tool lists them), or read the file and undo the change with edit"}
	}
	var plan planned
	note := fmt.Sprintf("revert of audit #%d", row.ID)
	if row.SHA256Before == "" {
		plan = plannedDelete(p, cur, note) // the change created the file
	} else {
		before, why, err := auditContent(env, st, row.Path, row.SHA256Before)
		if err != nil {
			return nil, err
		}
		if before == nil {
			return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("revert: the content %s had before audit #%d is no longer in the store (%s)", p.Rel, row.ID, why),
				SuggestedAction: "look for it in the trash tool's list (restore brings an entry back), or undo the change by hand"}
		}
		plan = plannedWrite(p, cur, before, note)
	}
	changes, err := commit(ctx, env, "revert", []planned{plan}, a.AllowVCS)
	if err != nil {
		return nil, err
	}
	c := changes[0]
	var text string
	d := map[string]any{"path": p.Rel, "revertedAuditId": row.ID, "auditId": c.AuditID}
	if plan.ch.Delete {
		text = fmt.Sprintf("Reverted audit #%d: deleted %s, which that change created", row.ID, p.Rel)
	} else {
		text = fmt.Sprintf("%s\nReverted audit #%d: %s has its content from before that change (%d bytes)", header(p.Rel, c.NewTag), row.ID, showName(p.Rel), len(plan.ch.New))
		d["tag"], d["sha256"] = c.NewTag, c.NewSHA256
	}
	if len(c.TrashIDs) > 0 {
		text += fmt.Sprintf("; what it replaced is trash #%d", c.TrashIDs[0])
		d["trashId"] = c.TrashIDs[0]
	}
	d["diff"] = c.Diff
	return &Result{Text: text + "\n", Details: d, Changes: changes}, nil
}

// auditOne renders one audit row with the file's text before and after
// that change and their diff, as far as the store still holds them.
func auditOne(env *Env, st *workspace.Store, r workspace.AuditEntry) (*Result, error) {
	var sb strings.Builder
	writeAuditLine(&sb, r)
	d := map[string]any{"entries": []auditItem{auditItem(r)}}
	var texts [2][]byte
	for i, side := range []struct{ name, sha string }{{"before", r.SHA256Before}, {"after", r.SHA256After}} {
		if side.sha == "" {
			continue // the file did not exist on that side
		}
		c, why, err := auditContent(env, st, r.Path, side.sha)
		if err != nil {
			return nil, err
		}
		switch {
		case c == nil:
			d[side.name+"Unavailable"] = why
		case workspace.IsBinary(c) || !utf8.Valid(c):
			d[side.name+"Unavailable"] = fmt.Sprintf("binary content (%d bytes)", len(c))
		default:
			d[side.name] = string(c)
			texts[i] = c
		}
	}
	_, bOK := d["before"]
	_, aOK := d["after"]
	if (bOK || r.SHA256Before == "") && (aOK || r.SHA256After == "") {
		diff := edit.UnifiedDiff(r.Path, texts[0], texts[1])
		d["diff"] = diff
		sb.WriteString("\n" + diff)
	} else {
		for _, k := range []string{"beforeUnavailable", "afterUnavailable"} {
			if why, ok := d[k]; ok {
				fmt.Fprintf(&sb, "%s: %s\n", strings.TrimSuffix(k, "Unavailable"), why)
			}
		}
	}
	if r.SHA256After != "" || r.SHA256Before != "" {
		fmt.Fprintf(&sb, "\nUndo it with the revert tool: {\"id\": %d}.\n", r.ID)
	}
	return &Result{Text: sb.String(), Details: d}, nil
}

// auditContent returns the content of the audited file rel whose sha256 is
// hexSum, or nil and why when the store does not hold it.
func auditContent(env *Env, st *workspace.Store, rel, hexSum string) ([]byte, string, error) {
	b, err := hex.DecodeString(hexSum)
	if err != nil || len(b) != 32 {
		return nil, "the audit row's sha256 is malformed", nil
	}
	p, err := env.WS.Resolve(rel)
	if err != nil {
		return nil, "its path no longer resolves inside the root: " + err.Error(), nil
	}
	c, ok, err := st.ContentOf(p.Abs, [32]byte(b))
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "the store dropped it: contents larger than its limit, or older than its retention, are not kept", nil
	}
	return c, "", nil
}

// shaOrEmpty is content's sha256 in hex, "" for no file (nil).
func shaOrEmpty(content []byte) string {
	if content == nil {
		return ""
	}
	return workspace.SHA256Hex(content)
}

// describeSHA names a file state for a message: absent, or a sha256 prefix.
func describeSHA(sum string) string {
	if sum == "" {
		return "absent"
	}
	return "sha256 " + sum[:min(12, len(sum))]
}
