package langserver

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hashls/hashls/internal/lspmap"
)

// Pos is a position: 1-based line, 0-based byte column in that line.
type Pos struct {
	Line int `json:"line"`
	Col  int `json:"col"`
}

// Location is a range in a file (Path absolute).
type Location struct {
	Path  string `json:"path"`
	Start Pos    `json:"start"`
	End   Pos    `json:"end"`
}

// Diagnostic is one diagnostic a server published.
type Diagnostic struct {
	Path     string `json:"path"`
	Start    Pos    `json:"start"`
	End      Pos    `json:"end"`
	Severity string `json:"severity"` // "error", "warning", "info", "hint"
	Source   string `json:"source,omitempty"`
	Code     string `json:"code,omitempty"`
	Message  string `json:"message"`
}

// TextEdit replaces bytes [Start, End) of a file's content with NewText.
type TextEdit struct {
	Start   int    `json:"start"`
	End     int    `json:"end"`
	NewText string `json:"newText"`
}

// EditStep is one step of a WorkspaceEdit, applied in order: text edits
// of one file (Edits, byte offsets into the file's content at that step),
// or a file operation (Op "create", "rename" or "delete").
type EditStep struct {
	Path    string     `json:"path"`
	Edits   []TextEdit `json:"edits,omitempty"`
	Op      string     `json:"op,omitempty"`
	NewPath string     `json:"newPath,omitempty"` // rename target
	// Overwrite / IgnoreIfExists for create and rename.
	Overwrite      bool `json:"overwrite,omitempty"`
	IgnoreIfExists bool `json:"ignoreIfExists,omitempty"`
}

// WorkspaceEdit is a server's proposed change, as plain steps.
type WorkspaceEdit struct {
	Steps []EditStep `json:"steps"`
	state map[string]*FileState
}

// Symbol is a document or workspace symbol.
type Symbol struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	Detail   string   `json:"detail,omitempty"`
	Loc      Location `json:"location"`
	Depth    int      `json:"depth,omitempty"`
	Children int      `json:"-"`
}

// wire types (LSP JSON).
type wirePos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type wireRange struct {
	Start wirePos `json:"start"`
	End   wirePos `json:"end"`
}

type wireLocation struct {
	URI   string    `json:"uri"`
	Range wireRange `json:"range"`
	// LocationLink fields
	TargetURI            string     `json:"targetUri"`
	TargetRange          *wireRange `json:"targetRange"`
	TargetSelectionRange *wireRange `json:"targetSelectionRange"`
}

type wireTextEdit struct {
	Range   wireRange `json:"range"`
	NewText string    `json:"newText"`
}

type wireDiagnostic struct {
	Range    wireRange       `json:"range"`
	Severity int             `json:"severity"`
	Code     json.RawMessage `json:"code"`
	Source   string          `json:"source"`
	Message  string          `json:"message"`
}

// URI converts an absolute path to a file URI.
func URI(path string) string {
	p := filepath.ToSlash(path)
	if runtime.GOOS == "windows" && !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	u := url.URL{Scheme: "file", Path: p}
	return u.String()
}

// PathOf converts a file URI to an absolute path ("" when it is not a
// file URI).
func PathOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	return filepath.FromSlash(p)
}

// lineIndex maps positions of one text (internal/lspmap does the UTF-16).
type lineIndex struct{ m *lspmap.Mapper }

func newLineIndex(text []byte) *lineIndex { return &lineIndex{lspmap.New(text)} }

// offset converts an LSP position (UTF-16) to a byte offset, clamped.
func (li *lineIndex) offset(p wirePos) int { return li.m.Offset(p.Line, p.Character) }

// pos converts an LSP position to a Pos.
func (li *lineIndex) pos(p wirePos) Pos {
	if li == nil {
		// A file we cannot read (outside the root): UTF-16 units as bytes.
		return Pos{Line: p.Line + 1, Col: p.Character}
	}
	off := li.offset(p)
	l, _ := li.m.Position(off)
	return Pos{Line: l + 1, Col: off - li.m.LineStart(l)}
}

// wire converts a Pos to an LSP position (a column past the line's end
// is its end).
func (li *lineIndex) wire(p Pos) wirePos {
	p.Line = max(p.Line, 1)
	start := li.m.LineStart(p.Line - 1)
	off := start + min(max(p.Col, 0), li.m.LineEnd(p.Line-1)-start)
	l, c := li.m.Position(off)
	return wirePos{Line: l, Character: c}
}

var severities = [...]string{"", "error", "warning", "info", "hint"}

func severityName(s int) string {
	if s >= 1 && s < len(severities) {
		return severities[s]
	}
	return "error"
}

var symbolKinds = [...]string{"", "file", "module", "namespace", "package", "class", "method", "property", "field",
	"constructor", "enum", "interface", "function", "variable", "constant", "string", "number", "boolean", "array",
	"object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}

func symbolKindName(k int) string {
	if k >= 1 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return "symbol"
}
