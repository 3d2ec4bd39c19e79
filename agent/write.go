package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hashls/hashls/internal/lazy"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/workspace"
	"github.com/hashls/hashls/workspace/notebook"
)

type writeTool struct{}

func (writeTool) Name() string { return "write" }
func (writeTool) Description() string {
	return "Create or replace a whole file (parents created); the old content goes to the trash; prints the new ¶PATH#TAG. Also an archive member or a SQLite row"
}
func (writeTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"File, a.zip:member, or db.sqlite:table (insert) / db.sqlite:table:key (update; blank content deletes)"},` +
		`"content":{"type":"string","description":"The whole new text (SQLite: a JSON5 object)"},` +
		`"contentBase64":{"type":"string","description":"Instead of content: exact bytes, base64"},` +
		`"expectedSha256":{"type":"string","description":"Optional: the sha256 the file must have (\"\": must not exist)"},` +
		`"allowGenerated":{"type":"boolean","description":"overwrite a generated file"},` +
		`"allowVcs":{"type":"boolean","description":"allow changes under .git, .hg or .svn"},` + afterEditProps +
		`},"required":["path"],"additionalProperties":false}`)
}

type writeArgs struct {
	Path           string  `json:"path"`
	Content        *string `json:"content"`
	ContentBase64  *string `json:"contentBase64"`
	ExpectedSha256 *string `json:"expectedSha256"`
	AllowVCS       bool    `json:"allowVcs"`
	AllowGenerated bool    `json:"allowGenerated"`
}

type writeDetails struct {
	Path    string `json:"path"`
	Tag     string `json:"tag"`
	SHA256  string `json:"sha256"`
	Op      string `json:"op"` // "create" or "update"
	Bytes   int    `json:"bytes"`
	Diff    string `json:"diff,omitempty"` // the change's Diff
	AuditID int64  `json:"auditId,omitempty"`
	TrashID int64  `json:"trashId,omitempty"`
	// StrippedPrefixes is set when a pasted read header and its N: row
	// prefixes were removed.
	StrippedPrefixes bool `json:"strippedPrefixes,omitempty"`
	// KeptCRLF and KeptBOM say that the replaced file's line style was
	// kept for content sent with plain "\n".
	KeptCRLF bool     `json:"keptCrlf,omitempty"`
	KeptBOM  bool     `json:"keptBom,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// MadeExecutable: a new file starting with "#!" was given mode 0755
	// (never on Windows, which has no mode bits).
	MadeExecutable bool `json:"madeExecutable,omitempty"`
}

func (d *writeDetails) withoutDiffs() any {
	c := *d
	c.Diff = ""
	return &c
}

var (
	pastedHeaderRE = lazy.Regexp(`^(?:¶[^\n]*#[0-9A-Fa-f]{4}|\[[^\n]*#[0-9A-Fa-f]{4}\])[ \t]*\r?\n`)
	pastedRowRE    = lazy.Regexp(`^[1-9][0-9]*:`)
)

// stripReadPrefixes removes read output's framing from content pasted back
// whole: only when content starts with read's header (¶PATH#TAG or
// [PATH#TAG]) are the header and the N: row prefixes removed (the rows
// only when every line carries one). Content without the header is written
// as given; looksLikeRead reports that every line starts with N: (a YAML
// map of numbers does too), for a warning.
func stripReadPrefixes(s string) (out string, stripped, looksLikeRead bool) {
	loc := pastedHeaderRE().FindStringIndex(s)
	if loc == nil {
		return s, false, allRows(s)
	}
	body := s[loc[1]:]
	if !allRows(body) {
		return body, true, false
	}
	lines := strings.SplitAfter(body, "\n")
	for i, l := range lines {
		if m := pastedRowRE().FindStringIndex(l); m != nil {
			lines[i] = l[m[1]:]
		}
	}
	return strings.Join(lines, ""), true, false
}

// allRows reports whether s has lines and every non-empty one starts N:.
func allRows(s string) bool {
	n := 0
	for _, l := range strings.SplitAfter(s, "\n") {
		if l == "" {
			continue
		}
		if !pastedRowRE().MatchString(l) {
			return false
		}
		n++
	}
	return n > 0
}

func (writeTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a writeArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: "write: " + err.Error()}
	}
	if strings.TrimSpace(a.Path) == "" {
		return nil, &Error{Kind: KindUsage, Message: "write: path is empty; pass the file to create or overwrite"}
	}
	body, exact, err := writeContent(a)
	if err != nil {
		return nil, err
	}
	if res, ok, err := writeTarget(ctx, env, a.Path, body, a.ExpectedSha256, a.AllowVCS); ok || err != nil {
		return res, err
	}
	if cpath, id, ok, err := workspace.SplitConflictTarget(a.Path); ok {
		if err != nil {
			return nil, &Error{Kind: KindUsage, Message: err.Error(), Err: err}
		}
		if exact {
			return nil, &Error{Kind: KindUsage, Message: "write: a conflict resolution takes content (text), not contentBase64"}
		}
		return writeConflict(ctx, env, cpath, id, body, a.ExpectedSha256, a.AllowVCS)
	}
	if strings.HasSuffix(a.Path, "/") || strings.HasSuffix(a.Path, string(filepath.Separator)) {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("write: %s ends in '/', which names a directory; give the path of a file (directories are created as needed)", a.Path)}
	}
	p, err := resolveArg(env, a.Path)
	if err != nil {
		return nil, err
	}
	content, stripped, looksLikeRead := body, false, false
	if !exact {
		content, stripped, looksLikeRead = stripReadPrefixes(body)
	}
	d := &writeDetails{Path: p.Rel, StrippedPrefixes: stripped}
	w, err := writeFile(ctx, env, writeReq{tool: "write", path: p, content: []byte(content), exact: exact, notebook: !exact && notebook.IsNotebook(p.Rel),
		expected: a.ExpectedSha256, allowVCS: a.AllowVCS, allowGenerated: a.AllowGenerated})
	if err != nil {
		return nil, err
	}
	isNotebook := !exact && notebook.IsNotebook(p.Rel)
	changes := w.changes
	c := changes[0]
	d.Op, d.KeptCRLF, d.KeptBOM, d.Bytes, d.MadeExecutable = c.Op, w.style.CRLF, w.style.BOM, int(w.size), w.madeExecutable
	d.Tag, d.SHA256, d.AuditID = c.NewTag, c.NewSHA256, c.AuditID
	if len(c.TrashIDs) > 0 {
		d.TrashID = c.TrashIDs[0]
	}
	if w.existed {
		d.Diff = c.Diff
	}
	shownTag := d.Tag
	if isNotebook {
		// The next edit names the cell text: show and record its tag.
		shownTag = edit.Tag(w.view)
		if err := record(env, workspace.Path{Abs: notebookKey(p), Rel: p.Rel}, shownTag, w.view, nil, nonNil(allLines(w.view))); err != nil {
			return nil, err
		}
	}
	text := fmt.Sprintf("%s\nSuccessfully wrote %d bytes to %s", header(p.Rel, shownTag), w.size, showName(p.Rel))
	if isNotebook {
		text += " (notebook JSON; the tag above is of its cell text, which reads show)"
	}
	if stripped {
		text += "\nNote: removed the pasted read header and N: row prefixes; content must be the raw file text."
	}
	if d.MadeExecutable {
		text += "\nNote: the new file starts with #!, so it was made executable (mode 0755)."
	}
	if d.KeptCRLF || d.KeptBOM {
		var kept []string
		if d.KeptCRLF {
			kept = append(kept, "CRLF line endings")
		}
		if d.KeptBOM {
			kept = append(kept, "its UTF-8 BOM")
		}
		text += fmt.Sprintf("\nNote: kept the file's %s (send \\r\\n yourself to choose the line endings).", strings.Join(kept, " and "))
	}
	if looksLikeRead {
		w := "every line starts with N: as read output does; it was written as given (paste read output with its ¶PATH#TAG header to have the prefixes removed)"
		d.Warnings = append(d.Warnings, w)
		text += "\nWarning: " + w + "."
	}
	return &Result{Text: text, Details: d, Changes: changes, Warnings: d.Warnings}, nil
}

// writeContent returns what write writes: content (text, whose line style
// write adapts), or contentBase64's bytes (exact); one of the two, never
// both.
func writeContent(a writeArgs) (content string, exact bool, err error) {
	switch {
	case a.Content != nil && a.ContentBase64 != nil:
		return "", false, &Error{Kind: KindUsage, Message: "write: pass either content (text) or contentBase64 (bytes), not both"}
	case a.ContentBase64 != nil:
		b, err := base64.StdEncoding.DecodeString(*a.ContentBase64)
		if err != nil {
			return "", false, &Error{Kind: KindUsage, Message: fmt.Sprintf("write: contentBase64 is not standard base64 (%v); encode the bytes with padding, alphabet A-Z a-z 0-9 + /", err), Err: err}
		}
		return string(b), true, nil
	case a.Content != nil:
		return *a.Content, false, nil
	}
	return "", false, &Error{Kind: KindUsage, Message: "write: missing content: pass content (the file's text) or contentBase64 (its bytes in base64)"}
}

// writeReq is one whole-file write, as write, write_file and create_file
// ask for it: their one core (writeFile) decides what may be replaced,
// keeps the line style, refuses generated files, makes a new #! file
// executable and commits.
type writeReq struct {
	tool    string
	path    workspace.Path
	content []byte
	// exact: content is bytes to write as they are (contentBase64), with
	// no line-style handling.
	exact bool
	// notebook: content is a notebook's cell text (write's view of it),
	// turned back into the notebook's JSON.
	notebook bool
	// expected is the stale-file gate: nil none, "" the file must not
	// exist, else its sha256 as the caller read it.
	expected *string
	// create: the file must not exist (create_file): already_exists.
	create                   bool
	allowVCS, allowGenerated bool
}

// wrote is what writeFile did.
type wrote struct {
	existed        bool   // the file existed
	size           int64  // the size of what was written (line style kept, notebook JSON)
	oldView, view  []byte // a notebook's cell text, before and after
	style          edit.LineStyle
	madeExecutable bool
	changes        []Change
}

// writeFile writes r.content over r.path through the commit path.
func writeFile(ctx context.Context, env *Env, r writeReq) (*wrote, error) {
	if r.notebook {
		if w, ok, err := writeNotebookStreamed(ctx, env, r); ok || err != nil {
			return w, err
		}
	}
	var old []byte
	switch f, err := env.WS.ReadFile(r.path); {
	case err == nil:
		old = f.Bytes
	case workspace.IsKind(err, workspace.KindIsDir):
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: %s is a directory; give the path of a file (directories are created as needed)", r.tool, r.path.Rel)}
	case !workspace.IsKind(err, workspace.KindNotFound):
		return nil, err
	}
	if r.create && old != nil {
		return nil, mustNotExist(env, r.tool, r.path)
	}
	if err := checkExpectedSha(r.path, old, r.expected); err != nil {
		return nil, err
	}
	if old != nil && !r.allowGenerated {
		if err := refuseGenerated(r.path, old); err != nil {
			return nil, err
		}
	}
	w, content := &wrote{}, r.content
	switch {
	case r.notebook:
		var err error
		if content, w.oldView, w.view, err = notebookWrite(r.path, old, string(r.content)); err != nil {
			return nil, err
		}
	case !r.exact:
		content, w.style = edit.KeepLineStyle(string(r.content), old)
	}
	// The caller wrote every line: an edit may anchor on any of them.
	pw := plannedWrite(r.path, old, content, "")
	if r.notebook {
		// The diff is of the cell text, as an edit's is (the JSON's would
		// carry the outputs beside a changed source).
		if pw.diff = edit.UnifiedDiff(r.path.Rel, w.oldView, w.view); pw.diff == "" {
			pw.binary = true
		}
	}
	pw.ch.Seen = nonNil(allLines(content))
	if old == nil && bytes.HasPrefix(content, []byte("#!")) && runtime.GOOS != "windows" { // no mode bits there
		pw.ch.Mode, w.madeExecutable = 0o755, true
	}
	changes, err := commit(ctx, env, r.tool, []planned{pw}, r.allowVCS)
	if err != nil {
		if r.create {
			return nil, existsOnStale(env, r.tool, r.path, err)
		}
		return nil, err
	}
	w.changes, w.existed, w.size = changes, old != nil, int64(len(content))
	return w, nil
}

// refuseGenerated refuses to overwrite p, whose content starts with head,
// when it looks generated (generatedReason).
func refuseGenerated(p workspace.Path, head []byte) error {
	if why := generatedReason(p.Rel, head); why != "" {
		return &Error{Kind: KindPermission, Message: fmt.Sprintf("Refusing to overwrite %s: it looks generated (%s), so the next generator run would undo this write. Change its generator or source instead, or pass allowGenerated: true to write it anyway.", p.Rel, why), SuggestedAction: "Change the generator's input, or retry with allowGenerated: true."}
	}
	return nil
}

// checkExpectedSha is the stale-file gate of write: want "" means the file
// must not exist; any other value must be the sha256 of old.
func checkExpectedSha(p workspace.Path, old []byte, want *string) error {
	if want == nil {
		return nil
	}
	sum := ""
	if old != nil && *want != "" {
		sum = sha256Hex(old)
	}
	return checkExpectedSum(p, old != nil, sum, want)
}

// checkExpectedSum is checkExpectedSha for a caller that has the file's
// sha256 (hex, when exists) and not its content.
func checkExpectedSum(p workspace.Path, exists bool, sum string, want *string) error {
	if want == nil {
		return nil
	}
	switch {
	case *want == "" && exists:
		return &Error{Kind: KindStale, Message: fmt.Sprintf("%s already exists, but expectedSha256 \"\" says it must not. Re-read the file to obtain the current sha256 and re-apply your edit.", p.Rel)}
	case *want != "" && !exists:
		return &Error{Kind: KindStale, Message: fmt.Sprintf("%s does not exist any more, but expectedSha256 names a version of it. Re-read the file to obtain the current sha256 and re-apply your edit.", p.Rel)}
	case *want != "" && !strings.EqualFold(*want, sum):
		return &Error{Kind: KindStale, Message: fmt.Sprintf("%s changed since it was read (its sha256 is %s, not %s). Re-read the file to obtain the current sha256 and re-apply your edit.", p.Rel, sum, *want)}
	}
	return nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
