package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/internal/ctxio"
	"github.com/hashls/hashls/internal/pieces"
	"github.com/hashls/hashls/workspace"
	"github.com/hashls/hashls/workspace/sqlitedb"
)

// The trash and the audit log as tools: what the mutating tools keep is only
// worth keeping if a caller can list it and get it back.

const (
	listDefault = 20
	listMax     = 200
)

type trashTool struct{}
type restoreTool struct{}
type auditTool struct{}

func (trashTool) Name() string { return "trash" }
func (trashTool) Description() string {
	return "List what tools replaced or deleted, newest first; restore brings an entry back"
}
func (trashTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"only this file's entries"},` +
		`"limit":{"type":"number","description":"1-200 (default 20)"}` +
		`},"additionalProperties":false}`)
}

func (restoreTool) Name() string { return "restore" }
func (restoreTool) Description() string {
	return "Put a trash entry back in its file, or at path; what that replaces goes to the trash first"
}
func (restoreTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"id":{"type":"number","description":"trash entry id"},` +
		`"path":{"type":"string","description":"restore here instead"},` +
		`"allowVcs":{"type":"boolean","description":"allow changes under .git, .hg or .svn"}` +
		`},"required":["id"],"additionalProperties":false}`)
}

func (auditTool) Name() string { return "audit" }
func (auditTool) Description() string {
	return "List the changes tools made, newest first (tool, path, sha256s, transport); with id, one change with its diff"
}
func (auditTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"limit":{"type":"number","description":"1-200 (default 20)"},` +
		`"before":{"type":"number","description":"rows older than this id"},` +
		`"since":{"type":"number","description":"rows newer than this id"},` +
		`"id":{"type":"number","description":"one row, with its before and after text and diff"}` +
		`},"additionalProperties":false}`)
}

// storeOf returns the workspace store or the error a tool reports without one.
func storeOf(env *Env, tool string) (*workspace.Store, error) {
	if st := env.WS.Store(); st != nil {
		return st, nil
	}
	return nil, &Error{Kind: KindStore, Message: tool + ": no state store is open, so there is no trash or audit log"}
}

// listLimit validates an optional limit argument.
func listLimit(tool string, limit *float64) (int, error) {
	if limit == nil {
		return listDefault, nil
	}
	if *limit != float64(int(*limit)) || *limit < 1 || *limit > listMax {
		return 0, &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: limit must be a whole number from 1 to %d", tool, listMax)}
	}
	return int(*limit), nil
}

// displayKey shows a store key (an absolute path) relative to the root.
func displayKey(env *Env, key string) string {
	if rel, err := filepath.Rel(env.WS.Root(), key); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return key
}

type trashItem struct {
	ID     int64     `json:"id"`
	Path   string    `json:"path"`
	Size   int64     `json:"size"`
	Reason string    `json:"reason"`
	Time   time.Time `json:"time"`
}

func (trashTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a struct {
		Path  string   `json:"path"`
		Limit *float64 `json:"limit"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: "trash: " + err.Error()}
	}
	limit, err := listLimit("trash", a.Limit)
	if err != nil {
		return nil, err
	}
	st, err := storeOf(env, "trash")
	if err != nil {
		return nil, err
	}
	key := ""
	if a.Path != "" {
		p, err := resolveArg(env, a.Path)
		if err != nil {
			return nil, err
		}
		key = p.Abs
	}
	ents, err := st.TrashList(key, limit)
	if err != nil {
		return nil, err
	}
	items := make([]trashItem, 0, len(ents))
	var sb strings.Builder
	if len(ents) == 0 {
		sb.WriteString("The trash is empty.\n")
	}
	for _, e := range ents {
		it := trashItem{ID: e.ID, Path: displayKey(env, e.Key), Size: e.Size, Reason: e.Reason, Time: e.Time}
		items = append(items, it)
		fmt.Fprintf(&sb, "#%d  %s  %s  %s  %s\n", it.ID, showTarget(it.Path), humanSize(it.Size), it.Reason, it.Time.Format(time.DateTime))
	}
	if len(ents) > 0 {
		if h := env.hint(`[Restore one with {restore} {"id": N}.]`); h != "" {
			sb.WriteString("\n" + h + "\n")
		}
	}
	return &Result{Text: sb.String(), Details: map[string]any{"entries": items}}, nil
}

func (restoreTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a struct {
		ID       float64 `json:"id"`
		Path     string  `json:"path"`
		AllowVCS bool    `json:"allowVcs"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: "restore: " + err.Error()}
	}
	if a.ID != float64(int64(a.ID)) || a.ID < 1 {
		return nil, &Error{Kind: KindUsage, Message: "restore: id must be a trash entry id (a whole number)", SuggestedAction: "Pass the id of a trash entry[ ({trash} lists them)]."}
	}
	r, err := restoreTrash(ctx, env, "restore", int64(a.ID), a.Path, a.AllowVCS, nil)
	if err != nil {
		return nil, err
	}
	if r.row != nil {
		return r.row, nil
	}
	p, ent, c := r.path, r.entry, r.changes[0]
	text := fmt.Sprintf("%s\nRestored %d bytes from trash #%d to %s", header(p.Rel, c.NewTag), r.size, ent.ID, showName(p.Rel))
	d := map[string]any{"path": p.Rel, "tag": c.NewTag, "sha256": c.NewSHA256, "trashId": ent.ID, "auditId": c.AuditID}
	if len(c.TrashIDs) > 0 {
		text += fmt.Sprintf(" (its previous content is trash #%d)", c.TrashIDs[0])
		d["replacedTrashId"] = c.TrashIDs[0]
		d["diff"] = c.Diff
	}
	return &Result{Text: text, Details: d, Changes: r.changes}, nil
}

// restored is what restoreTrash did.
type restored struct {
	entry   workspace.TrashEntry
	path    workspace.Path
	size    int
	changes []Change
	row     *Result // a SQLite row put back (restoreRow), not a file
}

// restoreTrash writes trash entry id back through the commit path, to
// target ("" = the entry's own path); what it replaces goes to the trash.
// gate, when set, sees what is there now (whether it exists, and its
// sha256) and may refuse. An entry over the stream threshold is restored
// without being held (restoreStreamed).
func restoreTrash(ctx context.Context, env *Env, tool string, id int64, target string, allowVCS bool, gate restoreGate) (*restored, error) {
	st, err := storeOf(env, tool)
	if err != nil {
		return nil, err
	}
	ent, rc, err := st.TrashOpen(id)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	large := ent.Size > streamThreshold(env) && !strings.HasPrefix(ent.Reason, "sqlite ")
	var content []byte
	if !large {
		if content, err = io.ReadAll(rc); err != nil {
			return nil, err
		}
	}
	if strings.HasPrefix(ent.Reason, "sqlite ") {
		// A SQLite row (kept as JSON), not a file: writing it to a path
		// named db:table:key would create a stray file.
		if gate != nil || target != "" {
			return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("trash #%d holds a SQLite row of %s (%s), not a file, so %s cannot write it to a path", ent.ID, displayKey(env, ent.Key), ent.Reason, tool),
				SuggestedAction: fmt.Sprintf(`Put it back where it was: pass the id alone[ to {restore}] ({"id": %d}).`, ent.ID)}
		}
		res, err := restoreRow(ctx, env, tool, ent, content, allowVCS)
		if err != nil {
			return nil, err
		}
		return &restored{entry: ent, row: res}, nil
	}
	spelled, err := argPath(target)
	if err != nil {
		return nil, err
	}
	if target == "" {
		spelled = displayKey(env, ent.Key)
	}
	p, err := env.WS.Resolve(spelled)
	if err != nil {
		return nil, err
	}
	if large {
		if r, ok, err := restoreStreamed(ctx, env, tool, ent, rc, p, allowVCS, gate); ok || err != nil {
			return r, err
		}
		if content, err = io.ReadAll(rc); err != nil {
			return nil, err
		}
	}
	var old []byte
	switch f, err := env.WS.ReadFile(p); {
	case err == nil:
		old = f.Bytes
	case !workspace.IsKind(err, workspace.KindNotFound):
		return nil, err
	}
	if gate != nil {
		if err := gate(p, old != nil, shaOrEmpty(old)); err != nil {
			return nil, err
		}
	}
	changes, err := commit(ctx, env, tool, []planned{plannedWrite(p, old, content, fmt.Sprintf("from trash #%d", ent.ID))}, allowVCS)
	if err != nil {
		return nil, err
	}
	return &restored{entry: ent, path: p, size: len(content), changes: changes}, nil
}

// restoreGate sees what a restore would replace (whether it exists, and
// its sha256 in hex) and may refuse.
type restoreGate func(p workspace.Path, exists bool, sum string) error

// restoreStreamed restores trash entry ent, too large to hold, to p
// without holding it or what p holds: one pass over the entry's pieces
// hashes and tags it, the commit writes it from them to the temp file
// (workspace.Change.NewPiecesOf), and a large p is hashed, not read whole.
// The result has no diff. ok is false when p is open in the editor, whose
// buffer takes the content whole.
func restoreStreamed(ctx context.Context, env *Env, tool string, ent workspace.TrashEntry, rc io.Reader, p workspace.Path, allowVCS bool, gate restoreGate) (r *restored, ok bool, err error) {
	info, err := env.WS.Stat(p)
	if err != nil || info.Overlay {
		return nil, false, nil
	}
	pl := planned{ch: workspace.Change{Path: p, Base: workspace.BaseAbsent(), Note: fmt.Sprintf("from trash #%d", ent.ID)}, binary: true}
	exists, sum := false, ""
	switch {
	case info.Exists && info.Regular && info.Size > streamThreshold(env):
		b, tag, err := hashTagFile(ctx, env, p)
		if err != nil {
			return nil, true, err
		}
		pl.ch.Base, pl.oldTag, exists, sum = workspace.BaseSHA256(b), tag, true, hex.EncodeToString(b[:])
	default:
		switch f, err := env.WS.ReadFile(p); {
		case err == nil:
			pl.ch.Base, pl.old, exists, sum = workspace.BaseOf(f.Bytes), f.Bytes, true, shaOrEmpty(f.Bytes)
		case !workspace.IsKind(err, workspace.KindNotFound):
			return nil, true, err
		}
	}
	if gate != nil {
		if err := gate(p, exists, sum); err != nil {
			return nil, true, err
		}
	}
	// The entry's sha256 and tag, in a pass over its pieces (rc, unread).
	newSum, newTag, n, err := hashTag(ctx, rc)
	if err != nil {
		return nil, true, err
	}
	pl.ch.NewPieces, pl.ch.NewPiecesOf, pl.ch.NewSize, pl.ch.NewSHA256, pl.ch.NewTag = []pieces.Piece{pieces.Base(0, n)}, ent.ID, n, &newSum, newTag
	changes, err := commit(ctx, env, tool, []planned{pl}, allowVCS)
	if err != nil {
		return nil, true, err
	}
	return &restored{entry: ent, path: p, size: int(n), changes: changes}, true, nil
}

// hashTagFile returns the sha256 and the tag of p's content on disk, read
// in one pass without being held.
func hashTagFile(ctx context.Context, env *Env, p workspace.Path) ([32]byte, string, error) {
	var sum [32]byte
	r, err := env.WS.OpenReader(p)
	if err != nil {
		return sum, "", err
	}
	defer r.Close()
	sum, tag, _, err := hashTag(ctx, r)
	if err != nil {
		return sum, "", streamReadErr(p, err)
	}
	return sum, tag, nil
}

// hashTag reads r to its end (1 MiB at a time, honouring ctx) for the
// sha256 and the tag of what it read, and its size.
func hashTag(ctx context.Context, r io.Reader) (sum [32]byte, tag string, n int64, err error) {
	h, tw := sha256.New(), &edit.TagWriter{}
	if n, err = io.CopyBuffer(io.MultiWriter(h, tw), struct{ io.Reader }{ctxio.Reader(ctx, r)}, make([]byte, 1<<20)); err != nil {
		return sum, "", n, err
	}
	h.Sum(sum[:0])
	return sum, tw.Tag(), n, nil
}

type auditItem struct {
	ID           int64     `json:"id"`
	Tool         string    `json:"tool"`
	Path         string    `json:"path"`
	SHA256Before string    `json:"sha256Before,omitempty"`
	SHA256After  string    `json:"sha256After,omitempty"`
	Time         time.Time `json:"time"`
	Note         string    `json:"note,omitempty"`
	Transport    string    `json:"transport,omitempty"`
	Call         string    `json:"callId,omitempty"` // the tool run that made it (one run may change several files)
	Agent        string    `json:"agent,omitempty"`  // who made it ("": the person at the editor)
	Session      string    `json:"session,omitempty"`
	Turn         string    `json:"turn,omitempty"` // the agent turn it belongs to (revert {"turn"} undoes one)
}

func (auditTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a struct {
		Limit  *float64 `json:"limit"`
		Before *float64 `json:"before"`
		Since  *float64 `json:"since"`
		ID     *float64 `json:"id"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: "audit: " + err.Error()}
	}
	limit, err := listLimit("audit", a.Limit)
	if err != nil {
		return nil, err
	}
	var q workspace.AuditQuery
	for _, f := range []struct {
		name string
		v    *float64
		dst  *int64
	}{{"before", a.Before, &q.Before}, {"since", a.Since, &q.Since}, {"id", a.ID, &q.ID}} {
		if f.v == nil {
			continue
		}
		if *f.v != float64(int64(*f.v)) || *f.v < 0 {
			return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("audit: %s must be an audit row id (a whole number); list the rows with the audit tool", f.name)}
		}
		*f.dst = int64(*f.v)
	}
	if a.ID != nil && (a.Before != nil || a.Since != nil || a.Limit != nil) {
		return nil, &Error{Kind: KindUsage, Message: "audit: id selects one row; leave out limit, before and since"}
	}
	q.Limit = limit
	st, err := storeOf(env, "audit")
	if err != nil {
		return nil, err
	}
	rows, err := st.AuditRows(q)
	if err != nil {
		return nil, err
	}
	if a.ID != nil {
		if len(rows) == 0 {
			return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("audit: no row #%d; list the rows with the audit tool", q.ID)}
		}
		return auditOne(env, st, rows[0])
	}
	items := make([]auditItem, 0, len(rows))
	var sb strings.Builder
	if len(rows) == 0 {
		sb.WriteString("The audit log is empty.\n")
		if q.Before != 0 || q.Since != 0 {
			sb.Reset()
			sb.WriteString("No audit rows in that range.\n")
		}
	}
	for _, r := range rows {
		items = append(items, auditItem(r))
		writeAuditLine(&sb, r)
	}
	return &Result{Text: sb.String(), Details: map[string]any{"entries": items}}, nil
}

// writeAuditLine renders one audit row as a line of the audit tool's text.
func writeAuditLine(sb *strings.Builder, r workspace.AuditEntry) {
	short := func(s string) string {
		if s == "" {
			return "(none)"
		}
		return s[:min(12, len(s))]
	}
	fmt.Fprintf(sb, "#%d  %s  %-11s %s  %s → %s", r.ID, r.Time.Format(time.DateTime), r.Tool, showTarget(r.Path), short(r.SHA256Before), short(r.SHA256After))
	if r.Transport != "" {
		fmt.Fprintf(sb, "  via %s", r.Transport)
	}
	if r.Agent != "" {
		fmt.Fprintf(sb, "  by %s", r.Agent)
	}
	if r.Turn != "" {
		fmt.Fprintf(sb, "  turn %s", r.Turn)
	}
	if r.Note != "" {
		fmt.Fprintf(sb, "  (%s)", oneLine(r.Note))
	}
	sb.WriteByte('\n')
}

// restoreRow puts the SQLite row kept in trash entry ent back through
// CommitRow: re-inserted when its key names no row now, else the row
// there is set to the kept values (and itself goes to the trash).
func restoreRow(ctx context.Context, env *Env, tool string, ent workspace.TrashEntry, row []byte, allowVCS bool) (*Result, error) {
	name := displayKey(env, ent.Key)
	p, c, ok, err := sqliteTarget(env, name, "write")
	if err != nil && KindOf(err) != KindNotFound {
		return nil, err
	}
	if err != nil || !ok {
		return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("trash #%d holds a row of %s, and that database is gone; once it is back, write the row: path %q, content %s", ent.ID, name, name[:max(0, strings.LastIndex(name, ":"))], compactJSON(row)),
			SuggestedAction: "Recreate the database, then write the row[ with {write}] as the message says."}
	}
	table, key, hasKey, err := sqlitedb.ParseWriteSelector(c.Rest)
	if err != nil {
		return nil, AsError(err)
	}
	if !hasKey {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("trash #%d holds a row of %s without a key; insert it as a new row: path %q, content %s", ent.ID, name, p.Rel+":"+table, compactJSON(row)),
			SuggestedAction: "Insert the row[ with {write}] as the message says."}
	}
	var wr sqlitedb.WriteResult
	rc := workspace.RowChange{DB: p, Key: p.Rel + ":" + table + ":" + key, Apply: func(ctx context.Context, keepOld func([]byte) error) ([]byte, bool, string, error) {
		db, err := openSQLite(env, p, true)
		if err != nil {
			return nil, false, "", AsError(err)
		}
		defer db.Close()
		wr, err = sqlitedb.Restore(ctx, db, p.Rel, table, key, row, func(old json.RawMessage) error { return keepOld(old) })
		if err != nil {
			return nil, false, "", AsError(err)
		}
		return wr.NewRow, wr.Changed, fmt.Sprintf("sqlite %s from trash #%d", wr.Op, ent.ID), nil
	}}
	cf, err := env.WS.CommitRow(ctx, tool, rc, env.commitOptions(allowVCS))
	if err != nil {
		return nil, err
	}
	target := p.Rel + ":" + wr.Table + ":" + key
	text := fmt.Sprintf("%s from trash #%d: %s", wr.Text, ent.ID, compactJSON(wr.NewRow))
	d := map[string]any{"path": target, "kind": "sqlite", "op": wr.Op, "row": &wr, "trashId": ent.ID, "auditId": cf.AuditID}
	if len(cf.TrashIDs) > 0 {
		text += fmt.Sprintf("\nThe row it replaced is trash #%d.", cf.TrashIDs[0])
		d["replacedTrashId"] = cf.TrashIDs[0]
	}
	ch := Change{Path: target, Op: cf.Op, OldSHA256: cf.OldSHA256, NewSHA256: cf.NewSHA256, TrashIDs: cf.TrashIDs, AuditID: cf.AuditID}
	return &Result{Text: text, Details: d, Changes: []Change{ch}}, nil
}
