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
	return "Undo one audited change (id) or all of an agent turn's (turn): files get back their content from before; a file changed since is refused (turn: skipped unless force); what it replaces goes to the trash"
}
func (revertTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"id":{"type":"number","description":"audit row id"},` +
		`"turn":{"type":"string","description":"agent turn (audit lists it)"},` +
		`"force":{"type":"boolean","description":"with turn: restore files changed since too"},` +
		`"allowVcs":{"type":"boolean","description":"allow changes under .git, .hg or .svn"}` +
		`},"additionalProperties":false}`)
}

func (revertTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a struct {
		ID       *float64 `json:"id"`
		Turn     *string  `json:"turn"`
		Force    bool     `json:"force"`
		AllowVCS bool     `json:"allowVcs"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: "revert: " + err.Error()}
	}
	st, err := storeOf(env, "revert")
	if err != nil {
		return nil, err
	}
	switch {
	case a.ID != nil && a.Turn != nil:
		return nil, &Error{Kind: KindUsage, Message: "revert: give id (one audited change) or turn (every change of a turn), not both", ArgsOf: "revert"}
	case a.Turn != nil:
		if strings.TrimSpace(*a.Turn) == "" {
			return nil, &Error{Kind: KindUsage, Message: "revert: turn must name a turn", SuggestedAction: "Pass the turn of a change[ ({audit} lists each change's turn)]."}
		}
		return revertTurn(ctx, env, st, *a.Turn, a.Force, a.AllowVCS)
	case a.ID == nil:
		return nil, &Error{Kind: KindUsage, Message: "revert: missing argument: id (an audit row id) or turn (an agent turn)", ArgsOf: "revert", SuggestedAction: "Pass id or turn[ ({audit} lists both)]."}
	case a.Force:
		return nil, &Error{Kind: KindUsage, Message: "revert: force goes with turn; a single change (id) is reverted only while its file holds what it left"}
	}
	if *a.ID != float64(int64(*a.ID)) || *a.ID < 1 {
		return nil, &Error{Kind: KindUsage, Message: "revert: id must be an audit row id (a whole number)", SuggestedAction: "Pass the id of an audit row[ ({audit} lists them)]."}
	}
	rows, err := st.AuditRows(workspace.AuditQuery{ID: int64(*a.ID)})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("revert: no audit row #%d", int64(*a.ID)), SuggestedAction: "Pass the id of an audit row[ ({audit} lists them)]."}
	}
	row := rows[0]
	if _, _, ok, _ := sqliteTarget(env, row.Path, "write"); ok {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("revert: audit #%d changed a SQLite row (%s), not a file, which revert does not put back", row.ID, row.Path),
			SuggestedAction: "Put the row back from the trash[ with {restore}][ ({trash} lists the kept row)]."}
	}
	p, err := env.WS.Resolve(row.Path)
	if err != nil {
		return nil, err
	}
	cur, err := currentContent(env, p)
	if err != nil {
		return nil, err
	}
	if now := shaOrEmpty(cur); now != row.SHA256After {
		later, err := changedSince(st, row.Path, row.ID, now)
		if err != nil {
			return nil, err
		}
		return nil, &Error{Kind: KindStale,
			Message:         fmt.Sprintf("revert: %s changed after audit #%d (%s): %s, so reverting would throw away those changes", p.Rel, row.ID, row.Tool, later.text),
			SuggestedAction: later.next}
	}
	note := fmt.Sprintf("revert of audit #%d", row.ID)
	plan, err := restorePlan(env, st, p, cur, row.SHA256Before, note, fmt.Sprintf("the content %s had before audit #%d", p.Rel, row.ID))
	if err != nil {
		return nil, err
	}
	changes, err := commit(ctx, env, "revert", []planned{plan}, a.AllowVCS)
	if err != nil {
		return nil, err
	}
	c := changes[0]
	var text string
	d := map[string]any{"path": p.Rel, "revertedAuditId": row.ID, "auditId": c.AuditID}
	if plan.ch.Delete {
		text = fmt.Sprintf("Reverted audit #%d: deleted %s, which that change created", row.ID, showName(p.Rel))
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

// currentContent is p's content now (the open buffer when the editor has
// it), nil when the file does not exist.
func currentContent(env *Env, p workspace.Path) ([]byte, error) {
	switch f, err := env.WS.ReadFile(p); {
	case err == nil:
		return f.Bytes, nil
	case workspace.IsKind(err, workspace.KindNotFound):
		return nil, nil
	default:
		return nil, err
	}
}

// restorePlan plans putting p (now cur) back to the content whose sha256
// is before ("" : absent, so p is deleted); what names that content in an
// error.
func restorePlan(env *Env, st *workspace.Store, p workspace.Path, cur []byte, before, note, what string) (planned, error) {
	if before == "" {
		return plannedDelete(p, cur, note), nil
	}
	content, why, err := auditContent(env, st, p.Rel, before)
	if err != nil {
		return planned{}, err
	}
	if content == nil {
		return planned{}, &Error{Kind: KindNotFound, Message: fmt.Sprintf("revert: %s is no longer in the store (%s)", what, why),
			SuggestedAction: "Look for it in the trash[ ({trash} lists it, {restore} brings an entry back)], or undo the change by hand."}
	}
	return plannedWrite(p, cur, content, note), nil
}

// later describes what changed a file after an audited change: the text
// for a message, the next step, and the later audit rows.
type later struct {
	text, next string
	ids        []int64
}

// maxLaterRows bounds the later changes a message names.
const maxLaterRows = 5

// changedSince says what changed path after audit row id, when its
// content now has sha256 now: the audited changes since (tool, transport,
// agent), and whether it was then changed outside hashls (typing in the
// editor, another program), which the audit log does not hold.
func changedSince(st *workspace.Store, path string, id int64, now string) (later, error) {
	rows, err := st.AuditAfter(path, id, maxLaterRows+1)
	if err != nil {
		return later{}, err
	}
	var l later
	var parts []string
	for i, r := range rows {
		if i == maxLaterRows {
			parts = append(parts, "and more (the audit log lists them)")
			break
		}
		l.ids = append(l.ids, r.ID)
		who := r.Transport
		if r.Agent != "" {
			who = r.Agent + " via " + r.Transport
		} else if r.Transport == "lsp" {
			who = "the editor"
		}
		parts = append(parts, fmt.Sprintf("#%d %s by %s", r.ID, r.Tool, who))
	}
	outside := len(rows) == 0 || len(rows) <= maxLaterRows && rows[len(rows)-1].SHA256After != now
	switch {
	case len(rows) == 0:
		l.text = fmt.Sprintf("it was edited outside hashls since (typing in the editor or another program; the audit log does not record those) and is %s now", describeSHA(now))
		l.next = "Undo those edits first (the editor's undo history has the typing), or read the file and undo the change[ with {edit}]."
	case outside:
		l.text = fmt.Sprintf("changed since by %s, then edited outside hashls (typing in the editor or another program, not in the audit log); it is %s now", strings.Join(parts, ", "), describeSHA(now))
		l.next = "Undo the edits outside hashls, then revert the later changes newest first; or read the file and undo the change[ with {edit}]."
	default:
		l.text = fmt.Sprintf("changed since by %s", strings.Join(parts, ", "))
		l.next = "Revert the later changes of this file first, newest first, or read the file and undo the change[ with {edit}]."
	}
	return l, nil
}

// turnFile is one file an agent turn changed: its content before the turn
// and after the turn's last change of it.
type turnFile struct {
	path          string
	before, after string // sha256 hex, "" for absent
	last          int64  // the turn's last audit row of it
}

// revertTurn puts every file turn changed back to its content before the
// turn, in one change; files changed since the turn are named and left
// alone unless force.
func revertTurn(ctx context.Context, env *Env, st *workspace.Store, turn string, force, allowVCS bool) (*Result, error) {
	rows, err := st.AuditByTurn(turn)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("revert: no change belongs to turn %s", QuoteInput(turn)), SuggestedAction: "Pass the turn of a change[ ({audit} lists each change's turn)]."}
	}
	var files []*turnFile
	byPath := map[string]*turnFile{}
	agentName := rows[0].Agent
	for _, r := range rows {
		f := byPath[r.Path]
		if f == nil {
			f = &turnFile{path: r.Path, before: r.SHA256Before}
			byPath[r.Path] = f
			files = append(files, f)
		}
		f.after, f.last = r.SHA256After, r.ID
	}
	plans, skipped, same, err := planTurnRevert(env, st, turn, files, force)
	if err != nil {
		return nil, err
	}
	who := ""
	if agentName != "" {
		who = " (" + agentName + ")"
	}
	if len(plans) == 0 {
		return nil, nothingToRevert(turn, who, skipped)
	}
	changes, err := commit(ctx, env, "revert", plans, allowVCS)
	if err != nil {
		return nil, err
	}
	return turnReverted(turn, agentName, who, changes, skipped, same), nil
}

// turnSkip is a file a turn's revert left alone, and why.
type turnSkip struct {
	Path          string  `json:"path"`
	Why           string  `json:"why"`
	LaterAuditIDs []int64 `json:"laterAuditIds,omitempty"`
}

// planTurnRevert plans putting each of a turn's files back to its content
// before the turn; skipped are the files changed since (unless force) and
// SQLite rows, same the files that already have it.
func planTurnRevert(env *Env, st *workspace.Store, turn string, files []*turnFile, force bool) (plans []planned, skipped []turnSkip, same []string, err error) {
	note := "revert of turn " + turn
	for _, f := range files {
		if _, _, ok, _ := sqliteTarget(env, f.path, "write"); ok {
			skipped = append(skipped, turnSkip{Path: f.path, Why: "a SQLite row, not a file: put it back from the trash"})
			continue
		}
		p, err := env.WS.Resolve(f.path)
		if err != nil {
			return nil, nil, nil, err
		}
		cur, err := currentContent(env, p)
		if err != nil {
			return nil, nil, nil, err
		}
		now := shaOrEmpty(cur)
		switch {
		case now == f.before:
			same = append(same, p.Rel)
			continue
		case now != f.after && !force:
			l, err := changedSince(st, f.path, f.last, now)
			if err != nil {
				return nil, nil, nil, err
			}
			skipped = append(skipped, turnSkip{Path: p.Rel, Why: l.text, LaterAuditIDs: l.ids})
			continue
		}
		plan, err := restorePlan(env, st, p, cur, f.before, note, fmt.Sprintf("the content %s had before turn %s", p.Rel, turn))
		if err != nil {
			return nil, nil, nil, err
		}
		plans = append(plans, plan)
	}
	return plans, skipped, same, nil
}

// nothingToRevert is the error of a turn's revert that changes nothing:
// every file has its content from before the turn already, or was changed
// since (skipped).
func nothingToRevert(turn, who string, skipped []turnSkip) error {
	if len(skipped) == 0 {
		return &Error{Kind: KindNoChange, Message: fmt.Sprintf("revert: every file of turn %s%s already has its content from before the turn; nothing was changed", turn, who),
			SuggestedAction: "nothing to do"}
	}
	var sb strings.Builder
	for _, s := range skipped {
		fmt.Fprintf(&sb, "; %s: %s", showName(s.Path), s.Why)
	}
	return &Error{Kind: KindStale, Message: fmt.Sprintf("revert: every file turn %s%s changed was changed since, so nothing was reverted%s", turn, who, sb.String()),
		SuggestedAction: `pass "force": true to restore them anyway (the later changes go to the trash), or undo the later changes first`}
}

// turnReverted is the result of a turn's revert: the files put back (the
// commit's changes), those left alone and those already as before.
func turnReverted(turn, agentName, who string, changes []Change, skipped []turnSkip, same []string) *Result {
	var sb strings.Builder
	restored := make([]string, len(changes))
	var ids []int64
	fmt.Fprintf(&sb, "Reverted turn %s%s: %d file(s) have their content from before the turn\n", turn, who, len(changes))
	for i, c := range changes {
		restored[i] = c.Path
		ids = append(ids, c.AuditID)
		switch c.Op {
		case "delete":
			fmt.Fprintf(&sb, "  deleted %s (the turn created it)\n", showName(c.Path))
		default:
			fmt.Fprintf(&sb, "  %s restored\n", header(c.Path, c.NewTag))
		}
	}
	for _, s := range skipped {
		fmt.Fprintf(&sb, "Left alone: %s: %s\n", showName(s.Path), s.Why)
	}
	if len(skipped) > 0 {
		sb.WriteString("Pass \"force\": true to restore those too (the later changes go to the trash).\n")
	}
	d := map[string]any{"turn": turn, "agent": agentName, "restored": restored, "auditIds": ids}
	if len(skipped) > 0 {
		d["skipped"] = skipped
	}
	if len(same) > 0 {
		d["unchanged"] = same
	}
	return &Result{Text: sb.String(), Details: d, Changes: changes}
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
		if h := env.hint(`[Undo it with {revert} {"id": %d}.]`); h != "" {
			fmt.Fprintf(&sb, "\n"+h+"\n", r.ID)
		}
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
