package langserver

import (
	"encoding/json"
	"fmt"
	"sort"
)

// FileState is what a WorkspaceEdit does to one file, once all its steps
// ran: the content it started from and the content it ends with.
type FileState struct {
	Path      string // final path (absolute)
	MovedFrom string // original path when the file was renamed
	Existed   bool   // the file existed before the edit
	Old       []byte // content before (at MovedFrom when moved)
	Deleted   bool   // the file no longer exists afterwards
	New       []byte // content afterwards
	Edits     int    // text edits applied to it
}

// Files returns the end state of every file the edit touches, sorted by
// path.
func (we *WorkspaceEdit) Files() []FileState {
	if we == nil {
		return nil
	}
	out := make([]FileState, 0, len(we.state))
	for _, s := range we.state {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Empty reports whether the edit changes nothing.
func (we *WorkspaceEdit) Empty() bool { return we == nil || len(we.Steps) == 0 }

type wireEdit struct {
	Changes         map[string][]wireTextEdit `json:"changes"`
	DocumentChanges []json.RawMessage         `json:"documentChanges"`
}

// convertEdit turns a wire WorkspaceEdit into steps with byte offsets,
// reading each file as the tools see it.
func (m *Manager) convertEdit(raw json.RawMessage) (*WorkspaceEdit, error) {
	return m.convertEditOn(raw, &WorkspaceEdit{})
}

// convertEditOn converts raw as if applied after prev (its steps and
// file states continue prev's).
func (m *Manager) convertEditOn(raw json.RawMessage, prev *WorkspaceEdit) (*WorkspaceEdit, error) {
	we := &WorkspaceEdit{Steps: append([]EditStep(nil), prev.Steps...), state: map[string]*FileState{}}
	for k, v := range prev.state {
		c := *v
		we.state[k] = &c
	}
	if len(raw) == 0 || string(raw) == "null" {
		return we, nil
	}
	var w wireEdit
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("the server sent a workspace edit hashls cannot read: %w", err)
	}
	if w.DocumentChanges != nil {
		for _, dc := range w.DocumentChanges {
			var head struct {
				Kind         string `json:"kind"`
				URI          string `json:"uri"`
				OldURI       string `json:"oldUri"`
				NewURI       string `json:"newUri"`
				TextDocument struct {
					URI string `json:"uri"`
				} `json:"textDocument"`
				Edits   []wireTextEdit `json:"edits"`
				Options struct {
					Overwrite      bool `json:"overwrite"`
					IgnoreIfExists bool `json:"ignoreIfExists"`
				} `json:"options"`
			}
			if err := json.Unmarshal(dc, &head); err != nil {
				return nil, fmt.Errorf("the server sent a document change hashls cannot read: %w", err)
			}
			var err error
			switch head.Kind {
			case "":
				err = m.textStep(we, PathOf(head.TextDocument.URI), head.Edits)
			case "create":
				err = m.opStep(we, EditStep{Op: "create", Path: PathOf(head.URI), Overwrite: head.Options.Overwrite, IgnoreIfExists: head.Options.IgnoreIfExists})
			case "rename":
				err = m.opStep(we, EditStep{Op: "rename", Path: PathOf(head.OldURI), NewPath: PathOf(head.NewURI), Overwrite: head.Options.Overwrite, IgnoreIfExists: head.Options.IgnoreIfExists})
			case "delete":
				err = m.opStep(we, EditStep{Op: "delete", Path: PathOf(head.URI)})
			default:
				err = fmt.Errorf("the server sent an unknown document change kind %q", head.Kind)
			}
			if err != nil {
				return nil, err
			}
		}
		return we, nil
	}
	uris := make([]string, 0, len(w.Changes))
	for u := range w.Changes {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	for _, u := range uris {
		if err := m.textStep(we, PathOf(u), w.Changes[u]); err != nil {
			return nil, err
		}
	}
	return we, nil
}

// file returns the simulated state of path, loading it on first use.
func (m *Manager) file(we *WorkspaceEdit, path string) (*FileState, error) {
	if s := we.state[path]; s != nil {
		return s, nil
	}
	text, ok, err := m.read(path)
	if err != nil {
		return nil, err
	}
	s := &FileState{Path: path, Existed: ok, Old: text, New: text, Deleted: !ok}
	we.state[path] = s
	return s, nil
}

func (m *Manager) textStep(we *WorkspaceEdit, path string, edits []wireTextEdit) error {
	if path == "" {
		return fmt.Errorf("the server sent an edit of a non-file URI")
	}
	if len(edits) == 0 {
		return nil
	}
	s, err := m.file(we, path)
	if err != nil {
		return err
	}
	if s.Deleted {
		return fmt.Errorf("the server edits %s, which does not exist", m.rel(path))
	}
	li := newLineIndex(s.New)
	step := EditStep{Path: path, Edits: make([]TextEdit, len(edits))}
	for i, e := range edits {
		step.Edits[i] = TextEdit{Start: li.offset(e.Range.Start), End: li.offset(e.Range.End), NewText: e.NewText}
	}
	next, err := applyEdits(s.New, step.Edits)
	if err != nil {
		return fmt.Errorf("the server's edit of %s: %w", m.rel(path), err)
	}
	s.New = next
	s.Edits += len(edits)
	we.Steps = append(we.Steps, step)
	return nil
}

func (m *Manager) opStep(we *WorkspaceEdit, st EditStep) error {
	if st.Path == "" || (st.Op == "rename" && st.NewPath == "") {
		return fmt.Errorf("the server sent a file operation on a non-file URI")
	}
	s, err := m.file(we, st.Path)
	if err != nil {
		return err
	}
	switch st.Op {
	case "create":
		if !s.Deleted {
			if st.IgnoreIfExists {
				return nil
			}
			if !st.Overwrite {
				return fmt.Errorf("the server creates %s, which exists", m.rel(st.Path))
			}
		}
		s.Deleted, s.New = false, []byte{}
	case "delete":
		if s.Deleted {
			return nil
		}
		s.Deleted, s.New = true, nil
	case "rename":
		if s.Deleted {
			return fmt.Errorf("the server renames %s, which does not exist", m.rel(st.Path))
		}
		d, err := m.file(we, st.NewPath)
		if err != nil {
			return err
		}
		if !d.Deleted && !st.Overwrite {
			if st.IgnoreIfExists {
				return nil
			}
			return fmt.Errorf("the server renames %s onto %s, which exists", m.rel(st.Path), m.rel(st.NewPath))
		}
		moved := &FileState{Path: st.NewPath, MovedFrom: s.MovedFrom, Existed: s.Existed, Old: s.Old, New: s.New, Edits: s.Edits}
		if moved.MovedFrom == "" {
			moved.MovedFrom = st.Path
		}
		if d.Existed {
			// Overwriting an existing file: it is replaced (the commit
			// path trashes it); the move is recorded on the new path.
			moved.Existed, moved.Old, moved.MovedFrom = true, d.Old, ""
		}
		we.state[st.NewPath] = moved
		// The source is gone; it keeps its original content for the base.
		s.Deleted, s.New = true, nil
		if s.MovedFrom != "" {
			delete(we.state, st.Path)
		}
	}
	we.Steps = append(we.Steps, st)
	return nil
}

// applyEdits applies non-overlapping edits (offsets into text) at once.
func applyEdits(text []byte, edits []TextEdit) ([]byte, error) {
	es := append([]TextEdit(nil), edits...)
	sort.SliceStable(es, func(i, j int) bool { return es[i].Start < es[j].Start })
	out := make([]byte, 0, len(text))
	at := 0
	for _, e := range es {
		if e.Start < at || e.End < e.Start || e.End > len(text) {
			return nil, fmt.Errorf("overlapping or out-of-range text edits (at byte %d)", e.Start)
		}
		out = append(out, text[at:e.Start]...)
		out = append(out, e.NewText...)
		at = e.End
	}
	return append(out, text[at:]...), nil
}
