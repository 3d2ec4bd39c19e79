// Package notebook converts Jupyter notebooks (.ipynb, nbformat 4) to and
// from editable cell text, for the read, write and edit tools:
//
//	# %% [code] cell:0 (2 outputs elided)
//	print("hi")
//	# %% [markdown] cell:1
//	# Title
//
// Text renders a notebook as cell text; Rewrite turns edited cell text back
// into notebook JSON. Cells are matched by their "cell:N" marker (N is the
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
	"sort"
	"strconv"
	"strings"

	"github.com/hashls/hashls/internal/lazy"
)

// ErrShape wraps every error about content that is not cell text or a
// notebook.
var ErrShape = errors.New("not a notebook")

// IsNotebook reports whether name is a notebook by its extension.
func IsNotebook(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".ipynb") }

// Cell is one cell as the text view shows it.
type Cell struct {
	Type    string // code, markdown or raw
	Source  string
	Outputs int // number of outputs (code cells)
	// raw is the cell's JSON bytes exactly as they are in the file.
	raw   json.RawMessage
	hasID bool
}

// Notebook is a parsed notebook with the byte layout of its cells array.
type Notebook struct {
	Cells []Cell
	data  []byte
	// The cells array: data[arrStart] is '[', data[arrEnd-1] is ']'.
	arrStart, arrEnd int
	// Bytes before the first cell, between cells, after the last.
	lead, sep, trail string
	ids              bool // cells carry "id" (nbformat 4.5)
}

// Parse reads notebook JSON. The top level must be an object with a
// "cells" array of objects, each with a string "cell_type".
func Parse(data []byte) (*Notebook, error) {
	if !json.Valid(data) { // also refuses anything after the top-level value
		return nil, fmt.Errorf("%w: the file is not valid JSON", ErrShape)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("%w: the top level is not a JSON object", ErrShape)
	}
	nb := &Notebook{data: data, arrStart: -1}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrShape, err)
		}
		key, _ := kt.(string)
		if key == "nbformat_minor" {
			var minor json.Number
			if err := dec.Decode(&minor); err == nil {
				if v, err := minor.Int64(); err == nil && v >= 5 {
					nb.ids = true // nbformat 4.5 requires cell ids
				}
			}
			continue
		}
		if key != "cells" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrShape, err)
			}
			continue
		}
		if nb.arrStart >= 0 {
			return nil, fmt.Errorf("%w: \"cells\" appears twice", ErrShape)
		}
		if err := nb.parseCells(dec); err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrShape, err)
	}
	if nb.arrStart < 0 {
		return nil, fmt.Errorf("%w: there is no \"cells\" array", ErrShape)
	}
	return nb, nil
}

// parseCells reads the cells array, recording its byte layout.
func (nb *Notebook) parseCells(dec *json.Decoder) error {
	off := int(dec.InputOffset())
	i := skipSpace(nb.data, off)
	if i >= len(nb.data) || nb.data[i] == ':' {
		i = skipSpace(nb.data, i+1)
	}
	if i >= len(nb.data) || nb.data[i] != '[' {
		return fmt.Errorf("%w: \"cells\" is not an array", ErrShape)
	}
	nb.arrStart = i
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return fmt.Errorf("%w: \"cells\" is not an array", ErrShape)
	}
	prevEnd := i + 1
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("%w: cell %d: %v", ErrShape, len(nb.Cells), err)
		}
		end := int(dec.InputOffset())
		start := end - len(raw)
		gap := string(nb.data[prevEnd:start])
		if len(nb.Cells) == 0 {
			nb.lead = gap
		} else if nb.sep == "" {
			nb.sep = gap
		}
		prevEnd = end
		c, err := decodeCell(raw)
		if err != nil {
			return fmt.Errorf("%w: cell %d: %v", ErrShape, len(nb.Cells), err)
		}
		nb.Cells = append(nb.Cells, c)
		nb.ids = nb.ids || c.hasID
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') {
		return fmt.Errorf("%w: the cells array is not closed", ErrShape)
	}
	nb.arrEnd = int(dec.InputOffset())
	nb.trail = string(nb.data[prevEnd : nb.arrEnd-1])
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// decodeCell reads one cell object. Keys are matched exactly, as
// nbformat's are (encoding/json would match "Cell_Type" to cell_type).
func decodeCell(raw json.RawMessage) (Cell, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return Cell{}, fmt.Errorf("not an object with cell_type and source: %v", err)
	}
	var cellType string
	if t, ok := m["cell_type"]; !ok || json.Unmarshal(t, &cellType) != nil {
		return Cell{}, fmt.Errorf("the cell has no string cell_type")
	}
	switch cellType {
	case "code", "markdown", "raw":
	default:
		return Cell{}, fmt.Errorf("cell_type %q is not code, markdown or raw", cellType)
	}
	src, err := sourceText(m["source"])
	if err != nil {
		return Cell{}, err
	}
	var outputs []json.RawMessage
	if o, ok := m["outputs"]; ok && json.Unmarshal(o, &outputs) != nil {
		return Cell{}, fmt.Errorf("outputs is not a list")
	}
	var id *string
	if v, ok := m["id"]; ok && string(v) != "null" {
		var s string
		if json.Unmarshal(v, &s) == nil {
			id = &s
		}
	}
	return Cell{Type: cellType, Source: src, Outputs: len(outputs), raw: raw, hasID: id != nil}, nil
}

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
	if c.Outputs > 0 {
		fmt.Fprintf(sb, " (%d output%s elided)", c.Outputs, plural(c.Outputs))
	}
	sb.WriteByte('\n')
	body := strings.TrimSuffix(c.Source, "\n")
	if body != "" || strings.HasSuffix(c.Source, "\n") {
		sb.WriteString(body)
		sb.WriteByte('\n')
	}
}

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

// Rewrite returns the notebook JSON for edited cell text. Unchanged cells
// keep their bytes; a changed cell keeps its other fields (metadata,
// outputs, id) and gets the new source and type; new cells are added with
// empty metadata (and outputs). When nothing changed, the result is the
// original bytes.
func (nb *Notebook) Rewrite(text string) ([]byte, error) {
	tcs, err := ParseText(text)
	if err != nil {
		return nil, err
	}
	indent := nb.cellIndent()
	var out []string
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
				out = append(out, string(orig.raw))
				continue
			}
			changed = true
			src := tc.Body
			if strings.HasSuffix(orig.Source, "\n") {
				src += "\n"
			}
			b, err := editCell(orig.raw, tc.Type, src, indent)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
			continue
		}
		changed = true
		b, err := newCell(tc.Type, tc.Body, nb.ids, i, indent)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	if !changed {
		return nb.data, nil
	}
	var buf bytes.Buffer
	buf.Write(nb.data[:nb.arrStart+1])
	if len(out) > 0 {
		lead, sep, trail := nb.lead, nb.sep, nb.trail
		if len(nb.Cells) == 0 {
			lead, trail = "\n"+indent, "\n"+strings.TrimSuffix(indent, " ")
		}
		if sep == "" {
			sep = "," + lead
		}
		buf.WriteString(lead)
		buf.WriteString(strings.Join(out, sep))
		buf.WriteString(trail)
	}
	buf.Write(nb.data[nb.arrEnd-1:])
	return buf.Bytes(), nil
}

// cellIndent is the indentation of a cell object in the file (the
// whitespace after the last newline before the first cell); nbformat
// writes one space per level, so cells sit at two.
func (nb *Notebook) cellIndent() string {
	if i := strings.LastIndexByte(nb.lead, '\n'); i >= 0 {
		return nb.lead[i+1:]
	}
	return "  "
}

// editCell sets the type and source of a cell, keeping its other fields.
func editCell(raw json.RawMessage, typ, src, indent string) (string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", fmt.Errorf("%w: %v", ErrShape, err)
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
	return marshalCell(m, indent)
}

// newCell builds a new cell as nbformat writes one.
func newCell(typ, src string, ids bool, i int, indent string) (string, error) {
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
	return marshalCell(m, indent)
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
