// Package notebook converts Jupyter notebooks (.ipynb, nbformat 4) to and
// from editable cell text, for the read, write and edit tools:
//
//	# %% [code] cell:0 (2 outputs elided)
//	print("hi")
//	# %% [markdown] cell:1
//	# Title
//
// Parse (bytes) and ParseReader (a stream, for reads: its outputs are never
// held) read a notebook; Text renders it as cell text; Rewrite turns edited
// cell text back into notebook JSON. Cells are matched by their "cell:N" marker (N is the
// cell's index in the notebook the text was made from); a cell whose type
// and source are unchanged keeps its original JSON bytes, and the notebook's
// bytes outside the cells array are kept as they are, so an edit of one
// cell changes only that cell's bytes. A marker without "cell:N" adds a new
// cell. It is pure (no workspace or agent import).
package notebook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/hashls/hashls/internal/lazy"
	"github.com/hashls/hashls/internal/pieces"
)

// ErrShape wraps every error about content that is not cell text or a
// notebook.
var ErrShape = errors.New("not a notebook")

// IsNotebook reports whether name is a notebook by its extension.
func IsNotebook(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".ipynb") }

// Cell is one cell as the text view shows it.
type Cell struct {
	Type        string // code, markdown or raw
	Source      string
	Outputs     int   // number of outputs (code cells)
	OutputBytes int64 // their JSON's size (never held: the cell text elides them)
	// Where the cell is in the notebook's bytes: the cell object is
	// start:end, its "source" value srcStart:srcEnd (0, 0: none), whose
	// bytes srcRaw holds (the cell text holds its source anyway); the rest
	// of the cell, its outputs too, is never held.
	start, end       int64
	srcStart, srcEnd int64
	srcRaw           []byte
	hasID            bool
}

// Notebook is a parsed notebook with the byte layout of its cells array:
// offsets into its bytes, which it holds when it was parsed from them
// (Parse) and reads again from its file when it is rewritten otherwise
// (ParseReader, RewritePieces).
type Notebook struct {
	Cells []Cell
	data  []byte // Parse's bytes; nil from ParseReader
	size  int64  // the notebook's length in bytes
	// The cells array: byte arrStart is '[', byte arrEnd-1 is ']'.
	arrStart, arrEnd int64
	ids              bool // cells carry "id" (nbformat 4.5)
}

// Parse reads notebook JSON. The top level must be an object with a
// "cells" array of objects, each with a string "cell_type". Nothing of
// data is copied but the cell text; Rewrite rewrites it from data.
func Parse(data []byte) (*Notebook, error) {
	nb, err := scan(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	nb.data = data
	return nb, nil
}

// ParseReader reads a notebook from r as Parse does, keeping only its
// cell text and layout: memory is its cell text, whatever its outputs
// weigh. RewritePieces rewrites it, reading the bytes it keeps from the
// file again.
func ParseReader(r io.Reader) (*Notebook, error) {
	return scan(r)
}

// Size is the notebook's length in bytes.
func (nb *Notebook) Size() int64 { return nb.size }

// sourceText joins a cell source: a string or a list of strings.
func sourceText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []string
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("source is neither a string nor a list of strings")
	}
	return strings.Join(parts, ""), nil
}

// markerRE matches a cell marker line.
var markerRE = lazy.Regexp(`^# %% \[(code|markdown|raw)\](?: cell:(\d+))?(?: \([^)\n]*\))?[ \t]*$`)

// looseMarkerRE matches lines meant as markers but malformed
// ("# %% [code] cell:x").
var looseMarkerRE = lazy.Regexp(`^# %% \[(?:code|markdown|raw)\]`)

// Shape is the expected shape of cell text, for error messages.
const Shape = "cell text: each cell starts with a marker line \"# %% [code] cell:N\", \"# %% [markdown] cell:N\" or \"# %% [raw] cell:N\" (N the cell's index as read; omit \" cell:N\" for a new cell), followed by the cell's source lines"

// Text renders the notebook as cell text. Each cell's source is shown with
// one trailing newline dropped (the marker of the next cell ends it).
func (nb *Notebook) Text() string {
	var sb strings.Builder
	for i, c := range nb.Cells {
		c.writeText(&sb, i)
	}
	return sb.String()
}

// writeText renders cell i as cell text.
func (c Cell) writeText(sb *strings.Builder, i int) {
	fmt.Fprintf(sb, "# %%%% [%s] cell:%d", c.Type, i)
	switch {
	case c.Outputs > 0 && c.OutputBytes > bigOutputs:
		fmt.Fprintf(sb, " (%d output%s elided, %.1f MiB)", c.Outputs, plural(c.Outputs), float64(c.OutputBytes)/(1<<20))
	case c.Outputs > 0:
		fmt.Fprintf(sb, " (%d output%s elided)", c.Outputs, plural(c.Outputs))
	}
	sb.WriteByte('\n')
	body := strings.TrimSuffix(c.Source, "\n")
	if body != "" || strings.HasSuffix(c.Source, "\n") {
		sb.WriteString(body)
		sb.WriteByte('\n')
	}
}

// bigOutputs is the size of a cell's outputs from which the marker says
// how much it elides.
const bigOutputs = 64 << 10

// shownAs is the cell as its own text parses back (a source the text
// cannot carry exactly, such as a lone "\r", parses to what it shows).
func (c Cell) shownAs() (textCell, bool) {
	var sb strings.Builder
	c.writeText(&sb, 0)
	tcs, err := ParseText(sb.String())
	if err != nil || len(tcs) != 1 {
		return textCell{}, false
	}
	return tcs[0], true
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// textCell is one cell parsed from cell text.
type textCell struct {
	Type   string
	Index  int // -1: a new cell
	Body   string
	hasRow bool // the body has at least one line
}

// ParseText parses cell text. Content before the first marker must be
// blank; a cell index may appear once.
func ParseText(text string) ([]textCell, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var cells []textCell
	var body []string
	flush := func() {
		if len(cells) > 0 {
			c := &cells[len(cells)-1]
			c.Body = strings.Join(body, "\n")
			c.hasRow = len(body) > 0
		}
		body = body[:0]
	}
	seen := map[int]bool{}
	lines := strings.Split(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for n, l := range lines {
		if m := markerRE().FindStringSubmatch(l); m != nil {
			flush()
			idx := -1
			if m[2] != "" {
				v, err := strconv.Atoi(m[2])
				if err != nil || v > 1<<20 {
					return nil, fmt.Errorf("%w: line %d: cell index %q is out of range; expected %s", ErrShape, n+1, m[2], Shape)
				}
				if seen[v] {
					return nil, fmt.Errorf("%w: line %d: cell:%d appears twice; give each existing cell once, and new cells no cell:N", ErrShape, n+1, v)
				}
				seen[v] = true
				idx = v
			}
			cells = append(cells, textCell{Type: m[1], Index: idx})
			continue
		}
		if len(cells) == 0 {
			if strings.TrimSpace(l) == "" {
				continue
			}
			return nil, fmt.Errorf("%w: line %d %q comes before the first cell marker; expected %s", ErrShape, n+1, clip(l), Shape)
		}
		if looseMarkerRE().MatchString(l) {
			return nil, fmt.Errorf("%w: line %d %q looks like a cell marker but is not one; expected %s", ErrShape, n+1, clip(l), Shape)
		}
		body = append(body, l)
	}
	flush()
	if len(cells) == 0 && strings.TrimSpace(text) != "" {
		return nil, fmt.Errorf("%w: no cell marker found; expected %s", ErrShape, Shape)
	}
	return cells, nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// Rewrite returns the notebook JSON for edited cell text (RewritePieces,
// made whole from the bytes Parse read). When nothing changed, the result
// is the original bytes.
func (nb *Notebook) Rewrite(text string) ([]byte, error) {
	if nb.data == nil {
		return nil, fmt.Errorf("%w: a notebook read from a stream is rewritten with RewritePieces (a hashls bug)", ErrShape)
	}
	ps, err := nb.RewritePieces(text, nil)
	if err != nil {
		return nil, err
	}
	if len(ps) == 1 && ps[0].Data == nil && ps[0].Off == 0 && ps[0].Len == nb.size {
		return nb.data, nil
	}
	out := make([]byte, pieces.Size(ps))
	if _, err := io.ReadFull(pieces.Reader(bytes.NewReader(nb.data), ps), out); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrShape, err)
	}
	return out, nil
}

// RewritePieces returns the notebook JSON for edited cell text as pieces
// of the notebook's bytes and new bytes: unchanged cells keep their
// bytes; a changed cell keeps its other fields (metadata, outputs, id)
// and gets the new source and type; new cells are added with empty
// metadata (and outputs). An edit of one cell's source is the bytes
// before the source, the new source, and the bytes after it: what the
// pieces name of the notebook is never read here. base reads the
// notebook's bytes (the file it was parsed from; nil: Parse's bytes), of
// which only a cell whose type changes and a few bytes of layout are read.
func (nb *Notebook) RewritePieces(text string, base io.ReaderAt) ([]pieces.Piece, error) {
	if base == nil {
		if nb.data == nil {
			return nil, fmt.Errorf("%w: a notebook read from a stream is rewritten from its file (a hashls bug)", ErrShape)
		}
		base = bytes.NewReader(nb.data)
	}
	tcs, err := ParseText(text)
	if err != nil {
		return nil, err
	}
	indent, err := nb.cellIndent(base)
	if err != nil {
		return nil, err
	}
	var out [][]pieces.Piece
	changed := len(tcs) != len(nb.Cells)
	for i, tc := range tcs {
		if tc.Index >= len(nb.Cells) {
			return nil, fmt.Errorf("%w: cell:%d does not exist (the notebook has %d cells, 0 to %d); drop \" cell:N\" from the marker to add a new cell", ErrShape, tc.Index, len(nb.Cells), len(nb.Cells)-1)
		}
		if tc.Index != i {
			changed = true
		}
		if tc.Index >= 0 {
			orig := nb.Cells[tc.Index]
			// Unchanged: the text shows the cell as its own text does.
			if own, ok := orig.shownAs(); ok && orig.Type == tc.Type && own.Body == tc.Body && own.hasRow == tc.hasRow {
				out = append(out, []pieces.Piece{pieces.Base(orig.start, orig.end-orig.start)})
				continue
			}
			changed = true
			src := tc.Body
			if strings.HasSuffix(orig.Source, "\n") {
				src += "\n"
			}
			ps, err := editCell(base, orig, tc.Type, src, indent)
			if err != nil {
				return nil, err
			}
			out = append(out, ps)
		} else {
			changed = true
			b, err := newCell(tc.Type, tc.Body, nb.ids, i, indent)
			if err != nil {
				return nil, err
			}
			out = append(out, []pieces.Piece{pieces.Bytes(b)})
		}
	}
	if !changed {
		return []pieces.Piece{pieces.Base(0, nb.size)}, nil
	}
	// The bytes between '[' and the first cell, between the first two,
	// and after the last: kept as they are.
	lead := []pieces.Piece{pieces.Bytes([]byte("\n" + indent))}
	trail := []pieces.Piece{pieces.Bytes([]byte("\n" + strings.TrimSuffix(indent, " ")))}
	if n := len(nb.Cells); n > 0 {
		first, last := nb.Cells[0], nb.Cells[n-1]
		lead = []pieces.Piece{pieces.Base(nb.arrStart+1, first.start-nb.arrStart-1)}
		trail = []pieces.Piece{pieces.Base(last.end, nb.arrEnd-1-last.end)}
	}
	sep := append([]pieces.Piece{pieces.Bytes([]byte(","))}, lead...)
	if len(nb.Cells) > 1 {
		sep = []pieces.Piece{pieces.Base(nb.Cells[0].end, nb.Cells[1].start-nb.Cells[0].end)}
	}
	ps := []pieces.Piece{pieces.Base(0, nb.arrStart+1)}
	if len(out) > 0 {
		ps = append(ps, lead...)
		for i, c := range out {
			if i > 0 {
				ps = append(ps, sep...)
			}
			ps = append(ps, c...)
		}
		ps = append(ps, trail...)
	}
	return append(ps, pieces.Base(nb.arrEnd-1, nb.size-nb.arrEnd+1)), nil
}

// layoutWindow bounds the bytes of layout read back from the notebook to
// find an indentation: the end of the line before a cell or a source.
const layoutWindow = 64 << 10

// lineBefore reads the bytes of base from the last newline after from and
// before to (at most layoutWindow of them); nl reports whether there was
// one.
func lineBefore(base io.ReaderAt, from, to int64) (line []byte, nl bool, err error) {
	start := max(from, to-layoutWindow)
	b := make([]byte, to-start)
	if _, err := base.ReadAt(b, start); err != nil && !(err == io.EOF && len(b) == 0) {
		return nil, false, fmt.Errorf("%w: reading the notebook's layout again: %v", ErrShape, err)
	}
	i := bytes.LastIndexByte(b, '\n')
	if i < 0 && start > from {
		return nil, false, nil // a line longer than the window: taken as none
	}
	return b[i+1:], i >= 0, nil
}

// cellIndent is the indentation of a cell object in the file (the
// whitespace after the last newline before the first cell); nbformat
// writes one space per level, so cells sit at two.
func (nb *Notebook) cellIndent(base io.ReaderAt) (string, error) {
	if len(nb.Cells) == 0 {
		return "  ", nil
	}
	line, nl, err := lineBefore(base, nb.arrStart+1, nb.Cells[0].start)
	if err != nil || !nl {
		return "  ", err
	}
	return string(line), nil
}

// editCell sets the type and source of a cell, keeping its other fields.
// When the type stays, only the source value's bytes are replaced (in the
// layout the old value had): every other byte of the cell, its outputs
// too, is kept as it is, and never read. A type change rewrites the cell
// from its JSON (read from base).
func editCell(base io.ReaderAt, orig Cell, typ, src, indent string) ([]pieces.Piece, error) {
	if typ == orig.Type && orig.srcEnd > 0 {
		old := orig.srcRaw
		var v []byte
		if bytes.HasPrefix(old, []byte(`"`)) {
			v = marshalJSON(src)
		} else {
			v = sourceJSON(src)
			if bytes.ContainsRune(old, '\n') {
				line, _, err := lineBefore(base, orig.start, orig.srcStart)
				if err != nil {
					return nil, err
				}
				keyIndent := lineIndent(line)
				var ind bytes.Buffer
				if err := json.Indent(&ind, v, keyIndent, indentUnit(old, keyIndent)); err != nil {
					return nil, fmt.Errorf("%w: %v", ErrShape, err)
				}
				v = ind.Bytes()
			}
		}
		return []pieces.Piece{pieces.Base(orig.start, orig.srcStart-orig.start), pieces.Bytes(v), pieces.Base(orig.srcEnd, orig.end-orig.srcEnd)}, nil
	}
	raw := make([]byte, orig.end-orig.start)
	if _, err := base.ReadAt(raw, orig.start); err != nil {
		return nil, fmt.Errorf("%w: reading the cell again: %v", ErrShape, err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrShape, err)
	}
	m["cell_type"] = marshalJSON(typ)
	m["source"] = sourceJSON(src)
	switch typ {
	case "code":
		if _, ok := m["outputs"]; !ok {
			m["outputs"] = json.RawMessage("[]")
		}
		if _, ok := m["execution_count"]; !ok {
			m["execution_count"] = json.RawMessage("null")
		}
	default:
		delete(m, "outputs")
		delete(m, "execution_count")
	}
	s, err := marshalCell(m, indent)
	return []pieces.Piece{pieces.Bytes([]byte(s))}, err
}

// lineIndent is the white space (spaces and tabs) that starts line.
func lineIndent(line []byte) string {
	end := 0
	for end < len(line) && (line[end] == ' ' || line[end] == '\t') {
		end++
	}
	return string(line[:end])
}

// indentUnit is the indentation a multi-line JSON value adds per level:
// that of its second line beyond its key's line (prefix); one space, as
// nbformat writes, when it cannot tell.
func indentUnit(v []byte, prefix string) string {
	i := bytes.IndexByte(v, '\n')
	if i < 0 {
		return " "
	}
	head := v[:min(i+1+len(prefix)+8, len(v))]
	line := lineIndent(head[bytes.LastIndexByte(head, '\n')+1:])
	if u, ok := strings.CutPrefix(line, prefix); ok && u != "" {
		return u
	}
	return " "
}

// newCell builds a new cell as nbformat writes one.
func newCell(typ, src string, ids bool, i int, indent string) ([]byte, error) {
	m := map[string]json.RawMessage{"metadata": json.RawMessage("{}")}
	m["cell_type"] = marshalJSON(typ)
	m["source"] = sourceJSON(src)
	if typ == "code" {
		m["outputs"] = json.RawMessage("[]")
		m["execution_count"] = json.RawMessage("null")
	}
	if ids {
		sum := sha256.Sum256([]byte(fmt.Sprintf("%d\x00%s\x00%s", i, typ, src)))
		m["id"] = marshalJSON(hex.EncodeToString(sum[:4]))
	}
	out, err := marshalCell(m, indent)
	return []byte(out), err
}

// sourceJSON is nbformat's list-of-lines form of src.
func sourceJSON(src string) json.RawMessage {
	parts := strings.SplitAfter(src, "\n")
	if len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if parts == nil {
		parts = []string{}
	}
	return marshalJSON(parts)
}

// marshalJSON encodes v as nbformat does: no HTML escaping of <, > and &.
// v is a string or a list of strings, which always encode.
func marshalJSON(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// marshalCell writes a cell with sorted keys, indented one space per level
// below the cell's own indentation (nbformat's layout).
func marshalCell(m map[string]json.RawMessage, indent string) (string, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			buf.WriteString(",")
		}
		buf.WriteString("\n" + indent + " ")
		buf.Write(marshalJSON(k))
		buf.WriteString(": ")
		var vb bytes.Buffer
		if err := json.Indent(&vb, m[k], indent+" ", " "); err != nil {
			return "", fmt.Errorf("%w: %v", ErrShape, err)
		}
		buf.Write(vb.Bytes())
	}
	buf.WriteString("\n" + indent + "}")
	return buf.String(), nil
}
