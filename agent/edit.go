package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/workspace"
	"github.com/hashls/hashls/workspace/notebook"
)

type editTool struct{}

func (editTool) Name() string { return "edit" }
func (editTool) Description() string {
	return "Apply hashline edits: ¶PATH#TAG sections with ops on the line numbers a read showed; stale tags are recovered or refused"
}
func (editTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"input":{"type":"string","description":"¶PATH#TAG header lines, each followed by its ops"},` +
		`"headers":{"type":"string","enum":["pilcrow","bracket"],"description":"result headers ¶PATH#TAG (default) or [PATH#TAG]"},` +
		`"allowVcs":{"type":"boolean","description":"allow changes under .git, .hg or .svn"},` + afterEditProps +
		`},"required":["input"],"additionalProperties":false}`)
}

type editArgs struct {
	Input    string `json:"input"`
	Headers  string `json:"headers"`
	AllowVCS bool   `json:"allowVcs"`
}

// editFileResult is the per-file part of an edit's details.
type editFileResult struct {
	Path             string   `json:"path"`
	Tag              string   `json:"tag"`
	PreviousTag      string   `json:"previousTag,omitempty"`
	SHA256           string   `json:"sha256,omitempty"`
	Diff             string   `json:"diff,omitempty"` // the file's Changes[].Diff
	FirstChangedLine int      `json:"firstChangedLine,omitempty"`
	Warnings         []string `json:"warnings,omitempty"`
	NoOp             bool     `json:"noop,omitempty"`
	Removed          bool     `json:"removed,omitempty"`
	MovedFrom        string   `json:"movedFrom,omitempty"`
	AuditID          int64    `json:"auditId,omitempty"`
	TrashID          int64    `json:"trashId,omitempty"`
	Overlay          bool     `json:"overlay,omitempty"`
}

type editDetails struct {
	Op               string           `json:"op"`
	Diff             string           `json:"diff,omitempty"` // every file's diff, joined
	FirstChangedLine int              `json:"firstChangedLine,omitempty"`
	PerFileResults   []editFileResult `json:"perFileResults"`
}

func (d *editDetails) withoutDiffs() any {
	c := *d
	c.Diff = ""
	c.PerFileResults = withoutDiff(d.PerFileResults, func(f *editFileResult) *string { return &f.Diff })
	return &c
}

// pendingEdit is one section prepared in memory before anything is written.
type pendingEdit struct {
	sec  edit.Section
	path workspace.Path
	file *workspace.File
	res  *edit.Result
	dest *workspace.Path // MV destination
	// nbNew is the new notebook JSON when the file is a notebook edited
	// as cell text (res.Old and res.New are cell text then).
	nbNew []byte
	nb    bool
	// big is such a notebook too large to hold: file is then a stand-in
	// without its bytes, and its new JSON is pieces of the file.
	big *bigNotebook
}

// content is the bytes the section's file gets.
func (pe *pendingEdit) content() []byte {
	if pe.nb {
		return pe.nbNew
	}
	return pe.res.New
}

// base is the bytes the section's file holds now.
func (pe *pendingEdit) base() []byte {
	if pe.nb {
		return pe.file.Bytes
	}
	return pe.res.Old
}

// baseSum is the commit's base: base's sha256, from the engine's result
// unless the file is a notebook (the engine saw its cell text).
func (pe *pendingEdit) baseSum() workspace.Base {
	if pe.big != nil {
		return workspace.BaseSHA256(pe.big.sum)
	}
	if pe.nb {
		return workspace.BaseOf(pe.file.Bytes)
	}
	return workspace.BaseContent(pe.res.Old, pe.res.OldSHA256)
}

// newSum is content's sha256 from the engine's result, nil for a notebook
// (the commit hashes its JSON).
func (pe *pendingEdit) newSum() *[32]byte {
	if pe.nb {
		return nil
	}
	return &pe.res.NewSHA256
}

// newTag is the tag of content, from the engine's result unless the file
// is a notebook.
func (pe *pendingEdit) newTag() string {
	if pe.nb {
		return edit.Tag(pe.nbNew)
	}
	return pe.res.NewTag
}

func (editTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a editArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: "edit: " + err.Error()}
	}
	secs, err := edit.SplitInput(a.Input)
	if err != nil {
		return nil, err
	}
	// Resolve every section's path; two spellings of one file are refused.
	paths := make([]workspace.Path, len(secs))
	byKey := map[string]string{}
	for i, sec := range secs {
		p, err := env.WS.Resolve(sec.Path)
		if err != nil {
			return nil, err
		}
		if prev, ok := byKey[p.Abs]; ok {
			return nil, &Error{Kind: KindInput, Message: edit.MultipleSectionsSameFileMessage(prev, sec.Path)}
		}
		byKey[p.Abs] = sec.Path
		paths[i] = p
	}
	// Plan every section in memory; the commit path checks, under its
	// lock, that no file moved since it was read here. When one did (another
	// process committed in between), the edit is planned again against the
	// new content, so the caller gets the engine's own verdict on its tag
	// (recovered, or rejected with the live tag), never a bare race.
	opts := edit.Options{Resolver: env.Resolver, Checker: checkerFor(env.Resolver), BracketHeaders: env.Edit.BracketHeaders}
	switch a.Headers {
	case "":
	case "bracket":
		opts.BracketHeaders = true
	case "pilcrow":
		opts.BracketHeaders = false
	default:
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("edit: headers %q is not a header form; use \"pilcrow\" (¶PATH#TAG) or \"bracket\" ([PATH#TAG])", a.Headers)}
	}
	if st := env.WS.Store(); st != nil {
		opts.Snapshots = storeSnapshots{st}
		if !env.Edit.AllowUnseen {
			opts.Seen = storeSeen{st}
		}
	}
	for attempt := 1; ; attempt++ {
		res, err := planAndCommitEdit(ctx, env, a, secs, paths, byKey, opts)
		if attempt < maxEditAttempts && workspace.IsKind(err, workspace.KindStale) {
			continue
		}
		return res, err
	}
}

// maxEditAttempts bounds how often an edit is planned again after a
// concurrent change.
const maxEditAttempts = 3

// planAndCommitEdit plans every section against the files as they are now
// and commits the result. byKey maps each section's resolved path to its
// header spelling.
func planAndCommitEdit(ctx context.Context, env *Env, a editArgs, secs []edit.Section, paths []workspace.Path, byKey map[string]string, opts edit.Options) (*Result, error) {
	pending := make([]*pendingEdit, len(secs))
	for i, sec := range secs {
		pe, err := applySection(ctx, env, sec, paths[i], byKey, opts)
		if err != nil {
			return nil, err
		}
		pending[i] = pe
	}

	// No-op handling: one section is a soft result (with a loop guard), several a hard error.
	if len(pending) == 1 && pending[0].res.NoOp {
		return noopResult(env, pending[0], a.Input)
	}
	for _, pe := range pending {
		if pe.res.NoOp {
			return nil, &Error{Kind: KindNoChange, Message: edit.NoChangeMessage(pe.sec.Path)}
		}
	}
	plans, owner := planEdits(pending)
	changes, err := commit(ctx, env, "edit", plans, a.AllowVCS)
	if err != nil {
		return nil, raceLost(env, pending, err)
	}
	if err := recordNotebookCells(env, pending); err != nil {
		return nil, err
	}
	return editResult(pending, changes, owner, env.hint), nil
}

// applySection applies one section to its file (path) as it is now; a
// notebook is edited as its cell text. byKey maps each section's resolved
// path to its header spelling (for a move's destination).
func applySection(ctx context.Context, env *Env, sec edit.Section, path workspace.Path, byKey map[string]string, opts edit.Options) (pe *pendingEdit, err error) {
	f, big, err := readSectionFile(ctx, env, sec, path)
	if err != nil {
		return nil, err
	}
	if big != nil {
		// Its file is read for the rewrite alone, and closed before the
		// commit that replaces it (bigNotebook.Close).
		defer big.Close()
	}
	// A notebook is edited as its cell text, under the cell text's key.
	key, text := path, f.Bytes
	nb, isNB, err := notebookView(path, f.Bytes)
	if big != nil {
		nb, isNB, err = big.nb, true, nil
	}
	if err != nil {
		return nil, err
	}
	if isNB {
		key, text = workspace.Path{Abs: notebookKey(path), Rel: path.Rel}, []byte(nb.Text())
	}
	res, err := edit.ApplySection(sec, edit.File{Path: sec.Path, Key: key.Abs, Bytes: text}, opts)
	if err != nil {
		var ee *edit.Error
		if errors.As(err, &ee) && (ee.Kind == edit.KindStale || ee.Kind == edit.KindUnseen) {
			// Record the live content so the tag the error reports is
			// usable, and the lines it shows so a retry may anchor on them.
			var shown []workspace.LineRange
			if len(ee.Shown) > 0 {
				shown = fromEditRanges(ee.Shown)
			}
			if rerr := record(env, key, edit.Tag(text), text, nil, shown); rerr != nil {
				return nil, fmt.Errorf("%w (and recording the current content and the lines it shows failed: %v)", err, rerr)
			}
		}
		return nil, err
	}
	pe = &pendingEdit{sec: sec, path: path, file: f, res: res, nb: isNB, big: big}
	if isNB && !res.NoOp {
		if err := rewriteNotebook(ctx, env, pe, nb); err != nil {
			return nil, err
		}
	}
	if res.MoveTo != "" {
		d, err := moveDestination(env, pe, byKey)
		if err != nil {
			return nil, err
		}
		pe.dest = d
	}
	return pe, nil
}

// readSectionFile reads the file a section edits: whole, or, for a
// notebook too large to hold, as its cell text alone (big; f is then a
// stand-in without its bytes).
func readSectionFile(ctx context.Context, env *Env, sec edit.Section, path workspace.Path) (f *workspace.File, big *bigNotebook, err error) {
	big, err = openBigNotebook(ctx, env, path)
	if err != nil && !errors.Is(err, notebook.ErrShape) {
		return nil, nil, err
	}
	if big != nil {
		return &workspace.File{Path: path}, big, nil
	}
	if f, err = env.WS.ReadFile(path); err != nil {
		var we *workspace.Error
		if errors.As(err, &we) && we.Kind == workspace.KindNotFound {
			return nil, nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("File not found: %s. Use the write tool to create new files.", sec.Path), Err: err}
		}
		return nil, nil, err
	}
	if workspace.IsBinary(f.Bytes) {
		return nil, nil, errBinary("edit", sec.Path, len(f.Bytes))
	}
	return f, nil, nil
}

// rewriteNotebook makes pe's new notebook from its new cell text (nb is
// the notebook as read). A move writes the destination whole, so a
// notebook too large to hold is read whole for one; otherwise its new
// JSON is pieces of the file (bigNotebook.rewrite).
func rewriteNotebook(ctx context.Context, env *Env, pe *pendingEdit, nb *notebook.Notebook) (err error) {
	if pe.big != nil && pe.res.MoveTo != "" {
		if pe.file, err = env.WS.ReadFile(pe.path); err != nil {
			return err
		}
		if nb, err = notebook.Parse(pe.file.Bytes); err != nil {
			return notebookErr(pe.path, err)
		}
		pe.big = nil
	}
	if pe.res.Remove {
		return nil
	}
	if pe.big != nil {
		err = pe.big.rewrite(ctx, env, pe.path, string(pe.res.New))
	} else {
		pe.nbNew, err = nb.Rewrite(string(pe.res.New))
	}
	if errors.Is(err, notebook.ErrShape) {
		return &Error{Kind: KindInput, Message: fmt.Sprintf("Edit of %s refused: the edited cell text is no longer notebook cell text: %v. Nothing was written; keep every \"# %%%% [TYPE] cell:N\" marker row intact.", pe.sec.Path, err), Err: err}
	}
	return err
}

// planEdits plans the changes of pending: a line edit writes the file; REM
// deletes it; MV writes the destination (which must not exist) and deletes
// the source. owner is the index of each section's main change.
func planEdits(pending []*pendingEdit) (plans []planned, owner []int) {
	owner = make([]int, len(pending))
	for i, pe := range pending {
		owner[i] = len(plans)
		switch {
		case pe.res.Remove:
			pl := plannedDelete(pe.path, pe.base(), "REM")
			if pe.big != nil {
				pl.ch.Base, pl.oldTag = pe.baseSum(), pe.big.tag
			}
			plans = append(plans, pl)
		case pe.dest != nil:
			pw := plannedChange(*pe.dest, workspace.BaseAbsent(), nil, pe.content(), pe.newTag(), "moved from "+showName(pe.path.Rel))
			pw.ch.NewSHA256 = pe.newSum()
			pw.ch.MovedFrom = pe.path.Rel
			if !pe.file.Overlay {
				pw.ch.Mode = pe.file.Mode // a moved file keeps its permissions
			}
			pw.diff = edit.UnifiedDiff(pe.dest.Rel, pe.res.Old, pe.res.New)
			if !pe.nb {
				pw.ch.Seen = pe.seenNew()
			}
			plans = append(plans, pw, plannedDelete(pe.path, pe.base(), "moved to "+showName(pe.dest.Rel)))
		case pe.big != nil:
			pw := pe.big.change(pe.path, "")
			pw.ch.Seen, pw.diff = nil, pe.res.Diff // as for any notebook
			plans = append(plans, pw)
		default:
			pw := plannedChange(pe.path, pe.baseSum(), pe.base(), pe.content(), pe.newTag(), "")
			pw.ch.NewSHA256 = pe.newSum()
			pw.diff = pe.res.Diff
			if !pe.nb {
				pw.ch.Seen = pe.seenNew()
				pw.oldTag = pe.res.OldTag
			}
			plans = append(plans, pw)
		}
	}
	return plans, owner
}

// recordNotebookCells records a notebook's new cell text under its own
// key, so the tag the result shows is accepted by the next edit.
func recordNotebookCells(env *Env, pending []*pendingEdit) error {
	for _, pe := range pending {
		if !pe.nb || pe.res.Remove {
			continue
		}
		at := pe.path
		if pe.dest != nil {
			at = *pe.dest
		}
		if err := record(env, workspace.Path{Abs: notebookKey(at), Rel: at.Rel}, pe.res.NewTag, pe.res.New, nil, pe.seenNew()); err != nil {
			return fmt.Errorf("the edit was written, but recording the notebook's new cell text failed (re-read %s before the next edit): %w", at.Rel, err)
		}
	}
	return nil
}

// editResult renders the committed edit: each section's text, notes on
// what the commit did, the details.
func editResult(pending []*pendingEdit, changes []Change, owner []int, hint func(string) string) *Result {
	details := &editDetails{Op: "update"}
	var texts, diffs, warnings []string
	var notes []string
	for i, pe := range pending {
		c := changes[owner[i]]
		fr := editFileResult{Path: c.Path, Tag: pe.res.NewTag, PreviousTag: pe.res.OldTag, SHA256: c.NewSHA256, Diff: c.Diff,
			FirstChangedLine: pe.res.FirstChangedLine, Warnings: pe.res.Warnings, Overlay: c.Overlay, AuditID: c.AuditID,
			Removed: pe.res.Remove, MovedFrom: c.MovedFrom}
		if len(c.TrashIDs) > 0 {
			fr.TrashID = c.TrashIDs[0]
		}
		if pe.res.Remove {
			fr.Tag = ""
		}
		details.PerFileResults = append(details.PerFileResults, fr)
		text := pe.res.Text
		if pe.res.Remove && fr.TrashID != 0 {
			if h := hint(fmt.Sprintf(`[Restore it with {restore} {"id": %d}.]`, fr.TrashID)); h != "" {
				text += "\n" + h
			}
		}
		texts = append(texts, text)
		diffs = append(diffs, c.Diff)
		for _, w := range pe.res.Warnings {
			warnings = append(warnings, c.Path+": "+w)
		}
		for _, ch := range changes {
			if ch.Note != "" && (ch.Path == pe.path.Rel || pe.dest != nil && ch.Path == pe.dest.Rel) {
				notes = append(notes, ch.Path+": "+ch.Note)
			}
		}
	}
	if len(notes) > 0 {
		texts = append(texts, "Notes:\n"+strings.Join(notes, "\n"))
	}
	details.Diff = strings.Join(diffs, "")
	details.FirstChangedLine = pending[0].res.FirstChangedLine
	return &Result{Text: strings.Join(texts, "\n\n"), Details: details, Changes: changes, Warnings: warnings}
}

// seenNew is the lines of the new content the caller has seen (what the
// edit showed or carried over from lines it had seen), recorded with the
// new snapshot; nil when the edit does not track them.
func (pe *pendingEdit) seenNew() []workspace.LineRange {
	if !pe.res.SeenKnown {
		return nil
	}
	return nonNil(fromEditRanges(pe.res.Seen))
}

// raceLost turns the commit path's stale refusal (a file changed between
// planning and committing: another process's edit won the race) into the
// edit tool's refusal naming the file and its live tag, recorded so the
// tag is usable. Other errors are returned as they are.
func raceLost(env *Env, pending []*pendingEdit, err error) error {
	if !workspace.IsKind(err, workspace.KindStale) {
		return err
	}
	for _, pe := range pending {
		if pe.big != nil {
			continue // not read whole again: the commit's own refusal says it
		}
		f, rerr := env.WS.ReadFile(pe.path)
		if rerr != nil || bytes.Equal(f.Bytes, pe.file.Bytes) {
			continue
		}
		tag := edit.Tag(f.Bytes)
		if rerr := record(env, pe.path, tag, f.Bytes, nil, nil); rerr != nil {
			return fmt.Errorf("%w (and recording the current content failed: %v)", err, rerr)
		}
		return &Error{Kind: KindStale, Message: fmt.Sprintf("Edit rejected for %s: the file changed while this edit was being applied (another change won the race), so nothing was written. It now hashes to #%s.", pe.sec.Path, tag), Err: err}
	}
	return err
}

// moveDestination resolves and checks the destination of a section's MV:
// inside the root, not the file itself, not another section's file, and
// not an existing file (a move never overwrites; the commit path checks
// it again under its lock).
func moveDestination(env *Env, pe *pendingEdit, sections map[string]string) (*workspace.Path, error) {
	dest, err := env.WS.Resolve(pe.res.MoveTo)
	if err != nil {
		return nil, fmt.Errorf("MV %s in the section for %s: %w", pe.res.MoveTo, pe.sec.Path, err)
	}
	if dest.Abs == pe.path.Abs {
		return nil, &Error{Kind: KindInput, Message: fmt.Sprintf("MV %s: that is the section's own file %s; give a different destination, or drop the MV line.", pe.res.MoveTo, pe.sec.Path)}
	}
	if other, ok := sections[dest.Abs]; ok {
		return nil, &Error{Kind: KindInput, Message: fmt.Sprintf("MV %s: the destination is the file of another section (%s), which this input also edits; move onto a new path, or split the input.", pe.res.MoveTo, other)}
	}
	st, err := env.WS.Stat(dest)
	switch {
	case err != nil:
		return nil, &Error{Kind: KindIO, Message: fmt.Sprintf("MV %s: cannot check the destination: %v", dest.Rel, err), Err: err}
	case st.Overlay:
		return nil, &Error{Kind: KindStale, Message: fmt.Sprintf("MV %s: the editor has an open document at that path, and a move never overwrites. Choose a new path, or close that document first.", dest.Rel)}
	case st.Exists:
		what := "file"
		if st.Dir {
			what = "directory"
		}
		return nil, &Error{Kind: KindStale, Message: fmt.Sprintf("MV %s: a %s already exists there, and a move never overwrites. Choose a new path, or delete that %s first (a section with REM).", dest.Rel, what, what)}
	}
	return &dest, nil
}

// noopResult returns the soft no-op result, or the loop-guard error on the
// third identical no-op payload in a row for the same file.
func noopResult(env *Env, pe *pendingEdit, input string) (*Result, error) {
	if st := env.WS.Store(); st != nil {
		sum := sha256.Sum256([]byte(input))
		n, err := st.BumpNoop(pe.path.Abs, hex.EncodeToString(sum[:]))
		if err != nil {
			return nil, err
		}
		if n >= 3 {
			return nil, &Error{Kind: KindNoChange, Message: edit.NoopLoopMessage(pe.sec.Path, n)}
		}
	}
	fr := editFileResult{Path: pe.path.Rel, Tag: pe.res.NewTag, PreviousTag: pe.res.OldTag, NoOp: true, Warnings: pe.res.Warnings}
	return &Result{Text: pe.res.Text, Details: &editDetails{Op: "update", PerFileResults: []editFileResult{fr}}, Warnings: pe.res.Warnings}, nil
}

// storeSnapshots adapts the workspace store to edit.Snapshots.
type storeSnapshots struct{ st *workspace.Store }

func (s storeSnapshots) Lookup(key, tag string) (edit.Snapshot, bool, error) {
	snap, ok, err := s.st.LookupMeta(key, tag)
	if err != nil || !ok {
		return edit.Snapshot{}, ok, err
	}
	es := edit.Snapshot{Tag: snap.Tag, SHA256: snap.SHA256, Head: snap.Head}
	if snap.Kept {
		es.Load = func() ([]byte, error) {
			c, _, err := s.st.SnapshotContent(snap.ID)
			return c, err
		}
	}
	return es, true, nil
}
