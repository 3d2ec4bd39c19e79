package lsp

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/workspace"
)

// The review of other callers' changes (review.go) in the server: which
// changes are an agent's, the open documents' and closed files' texts, the
// hashls/review notification and the hashls.review command.
//
// A change is put up for review when it did not come from this editor: a
// call another process forwarded through the hub (an MCP client, a CLI
// agent), or a change another process made on its own (seen in the audit
// log, for files not open here). The person's own commands, their typing
// and undoing hunks are theirs. An agent's change to an open document is
// recognised when the document reaches the text the server sent in its
// workspace/applyEdit (the editor may send it in several didChange
// notifications); a change to a closed file when its tool run ends.

// MethodReview is the notification that sends a file's unreviewed hunks.
const MethodReview = "hashls/review"

// cmdReview is the review command: keep, undo or list hunks.
const cmdReview = "hashls.review"

// runInfo describes one run for the review and the activity panel.
type runInfo struct {
	o    origin
	tool string
	// undo: the run undoes these hunks (the person's review).
	undo []int64
	// turn is the agent turn of the run's changes (from its audit rows).
	turn string
}

type runInfoKey struct{}

func withRunInfo(ctx context.Context, ri *runInfo) context.Context {
	return context.WithValue(ctx, runInfoKey{}, ri)
}

func runInfoFrom(ctx context.Context) *runInfo {
	ri, _ := ctx.Value(runInfoKey{}).(*runInfo)
	return ri
}

// attr is the attribution of the run's changes when they are up for
// review (an agent's), else nil.
func (ri *runInfo) attr() *reviewAttr {
	if ri == nil || ri.o.person() {
		return nil
	}
	turn := ri.turn
	if turn == "" {
		turn = ri.o.who.Turn // the caller's group id (a session's turn is known once audited)
	}
	return &reviewAttr{Agent: ri.o.who.Agent, Transport: ri.o.transport, Turn: turn, Tool: ri.tool, Call: ri.o.callID}
}

// expectation is an edit the server sent to an open document and how its
// arrival changes the review: an agent's change (attr) or the person
// undoing hunks (undo).
type expectation struct {
	old, new []byte
	attr     *reviewAttr
	undo     []int64
}

// finish applies the expected change, which brought rv from e.old to text.
func (e *expectation) finish(rv *fileReview, text []byte) {
	switch {
	case e.attr != nil:
		rv.agentChange(text, *e.attr)
	case len(e.undo) > 0 && bytes.Equal(text, e.new):
		rv.undo(e.undo)
	default:
		rv.sync(text)
	}
}

// reviewState is the server's review: the files with unreviewed hunks and
// the files whose notification is due.
type reviewState struct {
	files map[string]*fileReview // by absolute path
	paths map[string]workspace.Path
	ids   int64
	dirty map[string]bool
	timer *time.Timer
}

// maxReviewFiles bounds the files under review at once (each holds its
// text): the changes of further files land unmarked.
const maxReviewFiles = 2000

// reviewFlushDelay gathers the review changes of a burst of didChange
// notifications into one hashls/review per file.
const reviewFlushDelay = 30 * time.Millisecond

// reviewOn reports whether the review setting is on (call under s.mu).
func (s *server) reviewOnLocked() bool { return s.settings.Review }

// reviewFileLocked returns p's review, creating it over text when create
// is set (call under s.mu).
func (s *server) reviewFileLocked(p workspace.Path, text []byte, create bool) *fileReview {
	r := &s.review
	if rv := r.files[p.Abs]; rv != nil {
		return rv
	}
	if !create || len(r.files) >= maxReviewFiles {
		return nil
	}
	if r.files == nil {
		r.files, r.paths = map[string]*fileReview{}, map[string]workspace.Path{}
	}
	rv := newFileReview(text, &r.ids)
	r.files[p.Abs], r.paths[p.Abs] = rv, p
	return rv
}

// reviewDirtyLocked schedules p's notification (call under s.mu).
func (s *server) reviewDirtyLocked(abs string) {
	r := &s.review
	if r.dirty == nil {
		r.dirty = map[string]bool{}
	}
	r.dirty[abs] = true
	if r.timer == nil {
		r.timer = time.AfterFunc(reviewFlushDelay, s.flushReview)
	}
}

// reviewDocLocked follows an open document's change in its review: the
// change the server expected (its applyEdit), or the person's.
func (s *server) reviewDocLocked(d *document) {
	if !d.hasPath || !s.reviewOnLocked() {
		d.expect = nil
		return
	}
	if e := d.expect; e != nil {
		if !bytes.Equal(d.text, e.new) {
			return // the rest of the edit is still to come (or the edit's end settles it)
		}
		d.expect = nil
		s.finishExpectLocked(d, e)
		return
	}
	rv := s.reviewFileLocked(d.path, nil, false)
	if rv == nil {
		return
	}
	if len(rv.hunks) > 0 {
		s.reviewDirtyLocked(d.path.Abs)
	}
	rv.sync(d.text)
}

// finishExpectLocked applies e, which took d from e.old to d.text.
func (s *server) finishExpectLocked(d *document, e *expectation) {
	rv := s.reviewFileLocked(d.path, e.old, e.attr != nil)
	if rv == nil {
		return
	}
	rv.sync(e.old)
	e.finish(rv, d.text)
	s.reviewDirtyLocked(d.path.Abs)
}

// expectLocked registers the edit of d from old to new that the server is
// about to send, when the run in ctx is an agent's or the person's review.
func (s *server) expectLocked(ctx context.Context, d *document, old, new []byte) *expectation {
	ri := runInfoFrom(ctx)
	if ri == nil || !d.hasPath || !s.reviewOnLocked() {
		return nil
	}
	e := &expectation{old: old, new: new, attr: ri.attr(), undo: ri.undo}
	if e.attr == nil && len(e.undo) == 0 {
		return nil
	}
	d.expect = e
	return e
}

// settleExpect ends the expectation e of the open document p after its
// applyEdit returned (applied: the editor applied it): a change that did
// not arrive as sent is still the agent's when the editor applied it.
func (s *server) settleExpect(p workspace.Path, e *expectation, applied bool) {
	if e == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.byPath[p.Abs]
	if d == nil || d.expect != e {
		return
	}
	d.expect = nil
	if !applied {
		e = &expectation{old: e.old}
	}
	s.finishExpectLocked(d, e)
}

// reviewRun follows a run's changes to closed files (changes to open
// documents arrive as didChange) and finds the agent turn they belong to.
// The turn is found now (the run's activity names it); the review itself
// runs after the run has answered its caller (reviewQueue): what it costs
// (the old text from the store, a line diff of the whole file) is the
// editor's, not the agent's.
func (s *server) reviewRun(ctx context.Context, ws *workspace.Workspace, ri *runInfo, res *agent.Result) {
	if len(res.Changes) == 0 {
		return
	}
	st := ws.Store()
	if !ri.o.person() && st != nil && res.Changes[0].AuditID != 0 {
		if rows, err := st.AuditRows(workspace.AuditQuery{ID: res.Changes[0].AuditID}); err == nil && len(rows) == 1 {
			ri.turn = rows[0].Turn
			s.mu.Lock()
			s.setTurnLocked(ri.o.callID, ri.turn)
			s.mu.Unlock()
		}
	}
	changes, attr, undo := res.Changes, ri.attr(), ri.undo
	s.reviews.add(func() {
		for _, c := range changes {
			if !c.Overlay {
				s.reviewRunChange(ws, st, c, attr, undo)
			}
		}
	})
}

// reviewRunChange follows one change a run made to a file not open here,
// with the contents the run held; else its new content is the file's when
// the file still holds it (a later change may have come first), or the
// store's.
func (s *server) reviewRunChange(ws *workspace.Workspace, st *workspace.Store, c agent.Change, attr *reviewAttr, undo []int64) {
	p, err := ws.Resolve(c.Path)
	if err != nil {
		return
	}
	cc := closedChange{before: c.OldSHA256, removed: c.Op == "delete"}
	if old, now, ok := c.Contents(); ok {
		cc.old, cc.oldHeld, cc.now = old, true, now
	} else if !cc.removed {
		f, err := ws.ReadFile(p)
		switch {
		case err == nil && workspace.SHA256Hex(f.Bytes) == c.NewSHA256:
			cc.now = f.Bytes
		default:
			b, ok := storedContent(st, p, c.NewSHA256)
			if !ok {
				return
			}
			cc.now = b
		}
	}
	s.reviewClosedChange(st, p, cc, attr, undo)
}

// reviewQueue runs the reviews of runs' changes one after another, in the
// order the runs ended, on a goroutine that lives while some are pending.
type reviewQueue struct {
	mu      sync.Mutex
	idle    *sync.Cond // signalled when running falls to false (made on first wait)
	pending []func()
	running bool
}

// wait returns once no review is pending or running: a document opened
// while a run's review of its file waits in the queue would otherwise
// lose the run's hunks (the review skips an open file).
func (q *reviewQueue) wait() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.running {
		if q.idle == nil {
			q.idle = sync.NewCond(&q.mu)
		}
		q.idle.Wait()
	}
}

// add queues f.
func (q *reviewQueue) add(f func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = append(q.pending, f)
	if !q.running {
		q.running = true
		go q.drain()
	}
}

// drain runs the pending reviews until none is left.
func (q *reviewQueue) drain() {
	for {
		q.mu.Lock()
		if len(q.pending) == 0 {
			q.running = false
			if q.idle != nil {
				q.idle.Broadcast()
			}
			q.mu.Unlock()
			return
		}
		f := q.pending[0]
		q.pending[0] = nil
		q.pending = q.pending[1:]
		q.mu.Unlock()
		f()
	}
}

// setTurnLocked gives the hunks of call their turn, which is known once
// the call's changes are audited.
func (s *server) setTurnLocked(call, turn string) {
	if turn == "" {
		return
	}
	for abs, rv := range s.review.files {
		for _, h := range rv.hunks {
			for i := range h.attrs {
				if h.attrs[i].Call == call && h.attrs[i].Turn == "" {
					h.attrs[i].Turn = turn
					s.reviewDirtyLocked(abs)
				}
			}
		}
	}
}

// closedChange is a change of a file not open in the editor: from the
// content whose sha256 is before (old, when held: its bytes) to now
// (removed: the file was deleted).
type closedChange struct {
	before  string
	old     []byte
	oldHeld bool
	now     []byte
	removed bool
}

// reviewClosedChange follows c, a change of p, which is not open in the
// editor, made by attr (nil: the person; undo: the hunks the person
// undid).
func (s *server) reviewClosedChange(st *workspace.Store, p workspace.Path, c closedChange, attr *reviewAttr, undo []int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.reviewOnLocked() || s.byPath[p.Abs] != nil {
		return
	}
	rv := s.reviewFileLocked(p, nil, false)
	if c.removed {
		if rv != nil {
			rv.hunks = nil
			s.reviewDirtyLocked(p.Abs)
		}
		return
	}
	if rv == nil && attr == nil {
		return
	}
	if rv == nil || !c.heldIs(rv.cur) {
		// The file's content before the change: held, or as the store
		// keeps it.
		old := c.old
		if !c.oldHeld && c.before != "" {
			b, ok := storedContent(st, p, c.before)
			if !ok {
				if rv == nil {
					return
				}
				b = rv.cur // unknown: the review goes on from what it had
			}
			old = b
		}
		if rv == nil {
			if rv = s.reviewFileLocked(p, old, true); rv == nil {
				return // (too many files under review)
			}
		}
		rv.sync(old)
	}
	e := &expectation{attr: attr, undo: undo, new: c.now}
	e.finish(rv, c.now)
	s.reviewDirtyLocked(p.Abs)
}

// heldIs reports whether cur is the content before c: compared byte for
// byte when c holds it, else by its sha256.
func (c closedChange) heldIs(cur []byte) bool {
	if c.oldHeld {
		return c.old != nil && bytes.Equal(cur, c.old)
	}
	return workspace.SHA256Hex(cur) == c.before
}

// reviewExternal puts other processes' changes (audit rows, oldest first)
// up for review: those of files not open here (an open document shows the
// change when the editor reloads it from disk, as the person's).
func (s *server) reviewExternal(ws *workspace.Workspace, rows []workspace.AuditEntry) {
	st := ws.Store()
	if st == nil || !s.currentSettings().Review {
		return
	}
	for _, r := range rows {
		if r.Call != "" && s.isOwnCall(r.Call) || r.Transport == "recovery" || r.SHA256Before == r.SHA256After {
			continue
		}
		p, err := ws.Resolve(r.Path)
		if err != nil {
			continue
		}
		var now []byte
		if r.SHA256After != "" {
			c, ok := storedContent(st, p, r.SHA256After)
			if !ok {
				continue // not a file the store kept (a SQLite row, a large file)
			}
			now = c
		}
		attr := &reviewAttr{Agent: r.Agent, Transport: r.Transport, Turn: r.Turn, Tool: r.Tool, Call: r.Call}
		s.reviewClosedChange(st, p, closedChange{before: r.SHA256Before, now: now, removed: r.SHA256After == ""}, attr, nil)
	}
}

// storedContent is p's content whose sha256 is hexSum, when the store
// keeps it.
func storedContent(st *workspace.Store, p workspace.Path, hexSum string) ([]byte, bool) {
	sum, err := hex.DecodeString(hexSum)
	if err != nil || len(sum) != 32 || st == nil {
		return nil, false
	}
	c, ok, err := st.ContentOf(p.Abs, [32]byte(sum))
	return c, err == nil && ok
}

// reviewOpenedLocked brings a review up to the text a document was opened
// with (the file may have changed while it was closed).
func (s *server) reviewOpenedLocked(d *document) {
	if !d.hasPath {
		return
	}
	if rv := s.reviewFileLocked(d.path, nil, false); rv != nil {
		rv.sync(d.text)
		s.reviewDirtyLocked(d.path.Abs)
	}
}

// ReviewHunk is one unreviewed hunk on the wire.
type ReviewHunk struct {
	ID int64 `json:"id"`
	// Line is the 0-based first line of the text the change put in;
	// Added lines from there hold it. A change that only removed lines
	// has Added 0: Line is the line the removed lines stood before.
	Line  int `json:"line"`
	Added int `json:"added"`
	// Removed is the text the change removed (whole lines with their
	// breaks; at most maxRemovedText bytes, then RemovedCut is set);
	// RemovedLines counts them all.
	Removed      string `json:"removed"`
	RemovedLines int    `json:"removedLines"`
	RemovedCut   bool   `json:"removedCut,omitempty"`
	// Agents names who made the change (agent names, else transports),
	// Turns their turns, Tools the tools; one hunk may hold several
	// changes that touched the same lines.
	Agents []string `json:"agents"`
	Turns  []string `json:"turns,omitempty"`
	Tools  []string `json:"tools,omitempty"`
}

// ReviewFile is the params of hashls/review: one file's unreviewed hunks
// (none: the file is reviewed) and how many are left in all.
type ReviewFile struct {
	URI  uri.URI `json:"uri"`
	Path string  `json:"path"`
	// Version is the open document's version the lines refer to; absent
	// for a closed file (the lines are the file on disk's).
	Version *int32       `json:"version,omitempty"`
	Hunks   []ReviewHunk `json:"hunks"`
	// Total counts the unreviewed hunks of every file.
	Total int `json:"total"`
}

// maxRemovedText bounds the removed text one hunk carries.
const maxRemovedText = 64 << 10

// viewLocked is rv's hunks on the wire.
func (s *server) viewLocked(abs string) ReviewFile {
	r := &s.review
	rv := r.files[abs]
	p := r.paths[abs]
	out := ReviewFile{URI: pathToURI(abs), Path: p.Rel, Hunks: []ReviewHunk{}, Total: s.reviewTotalLocked()}
	if d := s.byPath[abs]; d != nil {
		v := d.version
		out.Version = &v
		out.URI = d.uri
	}
	if rv == nil {
		return out
	}
	m := rv.mapper()
	lineOf := func(off int) int { l, _ := m.Position(off); return l }
	for _, h := range rv.hunks {
		first := lineOf(h.s)
		added := lineOf(h.e) - first
		if h.e > h.s && !endsWithBreak(rv.cur[h.s:h.e]) {
			added++ // the last line, without a break
		}
		rh := ReviewHunk{ID: h.id, Line: first, Added: added, RemovedLines: countLines(h.old)}
		rh.Removed = string(h.old)
		if len(rh.Removed) > maxRemovedText {
			cut := bytes.LastIndexByte(h.old[:maxRemovedText], '\n') + 1
			rh.Removed, rh.RemovedCut = string(h.old[:cut]), true
		}
		for _, a := range h.attrs {
			rh.Agents = appendUnique(rh.Agents, a.name())
			if a.Turn != "" {
				rh.Turns = appendUnique(rh.Turns, a.Turn)
			}
			if a.Tool != "" {
				rh.Tools = appendUnique(rh.Tools, a.Tool)
			}
		}
		out.Hunks = append(out.Hunks, rh)
	}
	return out
}

func appendUnique(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// countLines counts the lines of b (a last line without a break counts).
func countLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

func (s *server) reviewTotalLocked() int {
	n := 0
	for _, rv := range s.review.files {
		n += len(rv.hunks)
	}
	return n
}

// flushReview sends hashls/review for every file whose review changed,
// and forgets the files left without hunks.
func (s *server) flushReview() {
	s.mu.Lock()
	r := &s.review
	r.timer = nil
	var out []ReviewFile
	paths := make([]string, 0, len(r.dirty))
	for abs := range r.dirty {
		paths = append(paths, abs)
	}
	sort.Strings(paths)
	for _, abs := range paths {
		if d := s.byPath[abs]; d != nil && d.expect != nil {
			continue // its text is in flight: sent once it arrives
		}
		delete(r.dirty, abs)
		out = append(out, s.viewLocked(abs))
		if rv := r.files[abs]; rv != nil && len(rv.hunks) == 0 {
			delete(r.files, abs)
			delete(r.paths, abs)
		}
	}
	total := s.reviewTotalLocked()
	s.mu.Unlock()
	for i := range out {
		out[i].Total = total
		raw, err := json.Marshal(out[i])
		if err != nil {
			continue
		}
		if err := s.conn.Notify(context.Background(), MethodReview, jsonrpc2.RawMessage(raw)); err != nil {
			s.logf("lsp: %s: %v", MethodReview, err)
		}
	}
}

// reviewSettingChangedLocked drops every review when the setting turned
// off (the files' notifications say so).
func (s *server) reviewSettingChangedLocked() {
	if s.reviewOnLocked() {
		return
	}
	for abs, rv := range s.review.files {
		rv.hunks = nil
		s.reviewDirtyLocked(abs)
	}
	for _, d := range s.docs {
		d.expect = nil
	}
}

// reviewArgs is hashls.review's argument.
type reviewArgs struct {
	// Action: "list" (every file's hunks), "keep" (accept: the hunks stay
	// as they are and leave the review) or "undo" (put the text they
	// replaced back, as the person's change through the commit path).
	Action string `json:"action"`
	// URI names the file (an open document's URI or a file URI); with
	// Hunk one hunk of it, else all its hunks.
	URI  uri.URI `json:"uri"`
	Hunk int64   `json:"hunk"`
	// Turn (keep only) names an agent turn: every hunk of it, in every
	// file. To undo a turn, run hashls.revert {"turn"}: it restores the
	// files as they were before the turn.
	Turn string `json:"turn"`
}

// reviewResult is hashls.review's answer.
type reviewResult struct {
	Files []ReviewFile `json:"files,omitempty"`
	Kept  int          `json:"kept,omitempty"`
	Total int          `json:"total"`
	// Text, Changes: an undo's result (the commit of the restored text).
	Text    string         `json:"text,omitempty"`
	Changes []agent.Change `json:"changes,omitempty"`
}

// reviewCommand answers hashls.review.
func (s *server) reviewCommand(ctx context.Context, arg []byte) (protocol.LSPAny, error) {
	var a reviewArgs
	dec := json.NewDecoder(bytes.NewReader(orEmpty(arg)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes {\"action\": \"list\"|\"keep\"|\"undo\", \"uri\"?, \"hunk\"?, \"turn\"?}: %v", cmdReview, err)
	}
	ws, err := s.requireWorkspace()
	if err != nil {
		return nil, toolError("review", s.currentSettings().sets, err)
	}
	var abs string
	if a.URI != "" {
		p, ok := uriToPath(a.URI)
		if !ok {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %s is not a file URI", cmdReview, a.URI)
		}
		wp, err := ws.Resolve(p)
		if err != nil {
			return nil, toolError("review", s.currentSettings().sets, err)
		}
		abs = wp.Abs
	}
	switch a.Action {
	case "list":
		s.mu.Lock()
		var out reviewResult
		abss := make([]string, 0, len(s.review.files))
		for k, rv := range s.review.files {
			if len(rv.hunks) > 0 && (abs == "" || k == abs) {
				abss = append(abss, k)
			}
		}
		sort.Strings(abss)
		for _, k := range abss {
			out.Files = append(out.Files, s.viewLocked(k))
		}
		out.Total = s.reviewTotalLocked()
		s.mu.Unlock()
		return marshalAny(out)
	case "keep":
		return s.reviewKeep(abs, a)
	case "undo":
		if a.Turn != "" {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: to undo a turn, run hashls.revert {\"turn\": %q}: it restores every file the turn changed", cmdReview, a.Turn)
		}
		if abs == "" {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: undo needs the file's uri (and a hunk id, or all its hunks are undone)", cmdReview)
		}
		return s.reviewUndo(ctx, abs, a.Hunk)
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: unknown action %q; use list, keep or undo", cmdReview, a.Action)
}

// reviewKeep keeps the hunks a names.
func (s *server) reviewKeep(abs string, a reviewArgs) (protocol.LSPAny, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := 0
	for k, rv := range s.review.files {
		if abs != "" && k != abs {
			continue
		}
		n := rv.keep(func(h *rhunk) bool {
			return (a.Hunk == 0 || h.id == a.Hunk) && (a.Turn == "" || h.hasTurn(a.Turn))
		})
		if n > 0 {
			kept += n
			s.reviewDirtyLocked(k)
		}
	}
	if kept == 0 && a.Hunk != 0 {
		return nil, hunkGone(a.Hunk)
	}
	return marshalAny(reviewResult{Kept: kept, Total: s.reviewTotalLocked()})
}

func hunkGone(id int64) error {
	return &jsonrpc2.Error{Code: jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed),
		Message: fmt.Sprintf("hunk %d is no longer under review (kept, undone, or merged into another by a later change); list the review again", id)}
}

// reviewUndo puts back the text the hunk id (0: every hunk) of the file
// replaced, through the commit path, as the person's change.
func (s *server) reviewUndo(ctx context.Context, abs string, id int64) (protocol.LSPAny, error) {
	s.mu.Lock()
	rv := s.review.files[abs]
	p := s.review.paths[abs]
	if d := s.byPath[abs]; d != nil && d.expect != nil {
		s.mu.Unlock()
		return nil, &jsonrpc2.Error{Code: jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed), Message: "a change to " + p.Rel + " is being applied; try again"}
	}
	if rv == nil || len(rv.hunks) == 0 {
		s.mu.Unlock()
		if id != 0 {
			return nil, hunkGone(id)
		}
		return marshalAny(reviewResult{})
	}
	old := rv.cur
	text, picked := rv.undone(func(h *rhunk) bool { return id == 0 || h.id == id })
	s.mu.Unlock()
	if len(picked) == 0 {
		return nil, hunkGone(id)
	}
	ids := make([]int64, len(picked))
	var who []string
	for i, h := range picked {
		ids[i] = h.id
		for _, a := range h.attrs {
			who = appendUnique(who, a.name())
		}
	}
	note := fmt.Sprintf("undid %d hunk(s) of %s under review", len(picked), strings.Join(who, ", "))
	args, _ := json.Marshal(map[string]any{"path": p.Rel, "hunks": ids})
	ri := &runInfo{o: origin{transport: "lsp"}, tool: "review", undo: ids}
	res, err := s.runWith(ctx, "review", args, nil, ri, func(ctx context.Context, env *agent.Env) (*agent.Result, error) {
		return agent.ReplaceContent(ctx, env, "review", p.Rel, old, text, note)
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, protocol.ErrRequestCancelled
		}
		return nil, toolError("review", s.currentSettings().sets, err)
	}
	s.mu.Lock()
	total := s.reviewTotalLocked()
	s.mu.Unlock()
	return marshalAny(reviewResult{Text: res.Text, Changes: res.Changes, Total: total})
}
