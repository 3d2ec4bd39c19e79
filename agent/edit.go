package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/workspace"
)

type editTool struct{}

func (editTool) Name() string { return "edit" }
func (editTool) Description() string {
	return "Apply hashline edits: ¶PATH#TAG sections with replace/delete/insert ops on line numbers or tree-sitter blocks; stale tags are recovered or refused"
}
func (editTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"input":{"type":"string","description":"One or more sections: a ¶PATH#TAG header (from read/search/edit output) then ops: replace N..M:, delete N..M, insert before|after N:, insert head:, insert tail:, replace block N:, delete block N, insert after block N:, with +TEXT body rows"},"allowVcs":{"type":"boolean","description":"Allow changes under .git, .hg or .svn, refused by default (a write there can make git run code on the next git command)"}},"required":["input"],"additionalProperties":false}`)
}

type editArgs struct {
	Input    string `json:"input"`
	AllowVCS bool   `json:"allowVcs"`
}

// editFileResult is the per-file part of an edit's details.
type editFileResult struct {
	Path             string   `json:"path"`
	Tag              string   `json:"tag"`
	PreviousTag      string   `json:"previousTag,omitempty"`
	SHA256           string   `json:"sha256,omitempty"`
	Diff             string   `json:"diff"`
	FirstChangedLine int      `json:"firstChangedLine,omitempty"`
	Warnings         []string `json:"warnings,omitempty"`
	NoOp             bool     `json:"noop,omitempty"`
	AuditID          int64    `json:"auditId,omitempty"`
	TrashID          int64    `json:"trashId,omitempty"`
	Overlay          bool     `json:"overlay,omitempty"`
}

type editDetails struct {
	Op               string           `json:"op"`
	Diff             string           `json:"diff"`
	FirstChangedLine int              `json:"firstChangedLine,omitempty"`
	PerFileResults   []editFileResult `json:"perFileResults"`
}

// pendingEdit is one section prepared in memory before anything is written.
type pendingEdit struct {
	sec  edit.Section
	path workspace.Path
	file *workspace.File
	res  *edit.Result
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
	opts := edit.Options{Resolver: env.Resolver}
	if st := env.WS.Store(); st != nil {
		opts.Snapshots = storeSnapshots{st}
	}
	for attempt := 1; ; attempt++ {
		res, err := planAndCommitEdit(ctx, env, a, secs, paths, opts)
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
// and commits the result.
func planAndCommitEdit(ctx context.Context, env *Env, a editArgs, secs []edit.Section, paths []workspace.Path, opts edit.Options) (*Result, error) {
	pending := make([]*pendingEdit, len(secs))
	for i, sec := range secs {
		f, err := env.WS.ReadFile(paths[i])
		if err != nil {
			var we *workspace.Error
			if errors.As(err, &we) && we.Kind == workspace.KindNotFound {
				return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("File not found: %s. Use the write tool to create new files.", sec.Path), Err: err}
			}
			return nil, err
		}
		if workspace.IsBinary(f.Bytes) {
			return nil, &Error{Kind: KindBinary, Message: fmt.Sprintf("Cannot edit %s: it is a binary file. hashline edits apply to text files only.", sec.Path)}
		}
		res, err := edit.ApplySection(sec, edit.File{Path: sec.Path, Key: paths[i].Abs, Bytes: f.Bytes}, opts)
		if err != nil {
			var ee *edit.Error
			if errors.As(err, &ee) && ee.Kind == edit.KindStale {
				// Record the live content so the tag the error reports is usable.
				if rerr := record(env, paths[i], edit.Tag(f.Bytes), f.Bytes, nil); rerr != nil {
					return nil, fmt.Errorf("%w (and recording the current content failed: %v)", err, rerr)
				}
			}
			return nil, err
		}
		pending[i] = &pendingEdit{sec: sec, path: paths[i], file: f, res: res}
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

	plans := make([]planned, len(pending))
	for i, pe := range pending {
		plans[i] = plannedWrite(pe.path, pe.res.Old, pe.res.New, "")
		plans[i].ch.NewTag = pe.res.NewTag
		plans[i].diff = pe.res.Diff
	}
	changes, err := commit(ctx, env, "edit", plans, a.AllowVCS)
	if err != nil {
		return nil, err
	}
	details := &editDetails{Op: "update"}
	var texts, diffs, warnings []string
	for i, pe := range pending {
		c := changes[i]
		fr := editFileResult{Path: pe.path.Rel, Tag: pe.res.NewTag, PreviousTag: pe.res.OldTag, SHA256: c.NewSHA256, Diff: pe.res.Diff,
			FirstChangedLine: pe.res.FirstChangedLine, Warnings: pe.res.Warnings, Overlay: c.Overlay, AuditID: c.AuditID}
		if len(c.TrashIDs) > 0 {
			fr.TrashID = c.TrashIDs[0]
		}
		details.PerFileResults = append(details.PerFileResults, fr)
		texts = append(texts, pe.res.Text)
		diffs = append(diffs, pe.res.Diff)
		for _, w := range pe.res.Warnings {
			warnings = append(warnings, pe.path.Rel+": "+w)
		}
	}
	details.Diff = strings.Join(diffs, "")
	details.FirstChangedLine = pending[0].res.FirstChangedLine
	return &Result{Text: strings.Join(texts, "\n\n"), Details: details, Changes: changes, Warnings: warnings}, nil
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
