package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashls/hashls/workspace"
)

// create_file and write_file replace a whole file, as write does, under
// the file tools' rules: create_file only creates (already_exists
// otherwise), write_file only writes with expectedSha256, and content is
// written as given (no read-header stripping, no archive or SQLite paths).

type createFileTool struct{}
type writeFileTool struct{}

func (createFileTool) Name() string { return "create_file" }
func (createFileTool) Description() string {
	return "Create a new file (parents created); already_exists when the path exists"
}
func (createFileTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"new file path"},` +
		`"content":{"type":"string","description":"its content"},` +
		`"allowVcs":{"type":"boolean","description":"allow changes under .git, .hg or .svn"}` +
		`},"required":["path","content"],"additionalProperties":false}`)
}

func (writeFileTool) Name() string { return "write_file" }
func (writeFileTool) Description() string {
	return "Replace a file's content, only if expectedSha256 is still its sha256; the old content goes to the trash"
}
func (writeFileTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"file path"},` +
		`"content":{"type":"string","description":"the whole new content (a CRLF or BOM file keeps them)"},` +
		`"expectedSha256":{"type":"string","description":"read_file's sha256 (\"\": must not exist)"},` +
		`"allowGenerated":{"type":"boolean","description":"overwrite a generated file"},` +
		`"allowVcs":{"type":"boolean","description":"allow changes under .git, .hg or .svn"}` +
		`},"required":["path","content","expectedSha256"],"additionalProperties":false}`)
}

// fileWriteDetails is the data of create_file, write_file, edit_file,
// delete_file, restore_file and move_file: what the file holds now (SHA256
// and Tag are the proofs for the next change) and where the old content
// went.
type fileWriteDetails struct {
	Path      string  `json:"path"`
	Op        string  `json:"op"` // "create", "update", "delete" or "move"
	MovedFrom string  `json:"movedFrom,omitempty"`
	SHA256    string  `json:"sha256,omitempty"`    // of the new content ("" after a delete)
	Tag       string  `json:"tag,omitempty"`       // the hashline tag of the same content
	OldSHA256 string  `json:"oldSha256,omitempty"` // "" when the file did not exist
	Diff      string  `json:"diff,omitempty"`      // the first change's Diff
	TrashIDs  []int64 `json:"trashIds,omitempty"`  // where the replaced or deleted content is kept
	AuditIDs  []int64 `json:"auditIds,omitempty"`
	Overlay   bool    `json:"overlay,omitempty"` // applied to the editor's open buffer
	// Replacements counts edit_file's replacements per edit.
	Replacements []int    `json:"replacements,omitempty"`
	Notes        []string `json:"notes,omitempty"`
}

func (d *fileWriteDetails) withoutDiffs() any {
	c := *d
	c.Diff = ""
	return &c
}

func (createFileTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a struct {
		Path     string `json:"path"`
		Content  string `json:"content"`
		AllowVCS bool   `json:"allowVcs"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("create_file: %v", err)}
	}
	p, err := resolveFile(env, "create_file", "path", a.Path)
	if err != nil {
		return nil, err
	}
	if err := mustNotExist(env, "create_file", p); err != nil {
		return nil, err
	}
	w, err := writeFile(ctx, env, writeReq{tool: "create_file", path: p, content: []byte(a.Content), create: true, allowVCS: a.AllowVCS})
	if err != nil {
		return nil, err
	}
	return fileWriteResult(w.changes, w.notes(), fmt.Sprintf("Created %s (%d bytes)", showName(p.Rel), w.size)), nil
}

func (writeFileTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a struct {
		Path           string  `json:"path"`
		Content        string  `json:"content"`
		ExpectedSha256 *string `json:"expectedSha256"`
		AllowVCS       bool    `json:"allowVcs"`
		AllowGenerated bool    `json:"allowGenerated"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("write_file: %v", err)}
	}
	if err := checkSHAArg("write_file", "expectedSha256", a.ExpectedSha256, true); err != nil {
		return nil, err
	}
	p, err := resolveFile(env, "write_file", "path", a.Path)
	if err != nil {
		return nil, err
	}
	w, err := writeFile(ctx, env, writeReq{tool: "write_file", path: p, content: []byte(a.Content), expected: a.ExpectedSha256, allowVCS: a.AllowVCS, allowGenerated: a.AllowGenerated})
	if err != nil {
		return nil, err
	}
	return fileWriteResult(w.changes, w.notes(), fmt.Sprintf("Wrote %d bytes to %s", w.size, showName(p.Rel))), nil
}

// notes are what a file tool says of a write beside its result: the line
// style kept, the mode given.
func (w *wrote) notes() []string {
	var notes []string
	if w.style.CRLF {
		notes = append(notes, "kept the file's CRLF line endings for content sent with \\n")
	}
	if w.style.BOM {
		notes = append(notes, "kept the file's UTF-8 BOM")
	}
	if w.madeExecutable {
		notes = append(notes, "the new file starts with #!, so it was made executable (mode 0755)")
	}
	return notes
}

// mustNotExist refuses a path that exists (a file, an open buffer or a
// directory) with already_exists.
func mustNotExist(env *Env, tool string, p workspace.Path) error {
	info, err := env.WS.Stat(p)
	switch {
	case err != nil:
		return err
	case !info.Exists:
		return nil
	}
	what := "a file"
	if info.Kind == workspace.InfoDir {
		what = "a directory"
	} else if info.Overlay {
		what = "a file open in the editor"
	}
	return &Error{Kind: KindAlreadyExists, Message: fmt.Sprintf(
		"%s: %s already exists (%s); nothing was changed", tool, p.Rel, what), SuggestedAction: "Read it[ with {read}] and change it[ with {write} or {edit}] (its sha256 as expectedSha256), or choose another path."}

}

// existsOnStale turns the commit path's stale refusal of a change that
// expected p to be absent into already_exists (p appeared meanwhile).
func existsOnStale(env *Env, tool string, p workspace.Path, err error) error {
	if workspace.IsKind(err, workspace.KindStale) {
		if e := mustNotExist(env, tool, p); e != nil {
			return e
		}
	}
	return err
}

// fileWriteResult renders what the file tools' changes did: one line per
// file with its new sha256, then notes.
func fileWriteResult(changes []Change, notes []string, head string) *Result {
	d := &fileWriteDetails{Notes: notes}
	for i, c := range changes {
		d.TrashIDs = append(d.TrashIDs, c.TrashIDs...)
		if c.AuditID != 0 {
			d.AuditIDs = append(d.AuditIDs, c.AuditID)
		}
		if c.Note != "" {
			d.Notes = append(d.Notes, c.Note)
		}
		if i > 0 {
			continue // a move's second change: the source's delete
		}
		d.Path, d.Op, d.MovedFrom, d.SHA256, d.Tag, d.OldSHA256, d.Diff, d.Overlay = c.Path, c.Op, c.MovedFrom, c.NewSHA256, c.NewTag, c.OldSHA256, c.Diff, c.Overlay
	}
	if d.MovedFrom != "" {
		d.Op = "move"
	}
	var sb strings.Builder
	sb.WriteString(head)
	if d.SHA256 != "" {
		fmt.Fprintf(&sb, "\n%s sha256 %s (tag %s)", showName(d.Path), d.SHA256, d.Tag)
	}
	if len(d.TrashIDs) > 0 {
		ids := make([]string, len(d.TrashIDs))
		for i, id := range d.TrashIDs {
			ids[i] = fmt.Sprintf("#%d", id)
		}
		fmt.Fprintf(&sb, "\nPrevious content in the trash: %s (restore_file brings it back)", strings.Join(ids, ", "))
	}
	for _, n := range d.Notes {
		sb.WriteString("\nNote: " + n)
	}
	return &Result{Text: sb.String() + "\n", Details: d, Changes: changes}
}
