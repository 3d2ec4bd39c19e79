package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hashls/hashls/workspace"
)

// read_file limits.
const (
	readFileDefaultBytes = 256 << 10
	readFileMaxBytes     = 16 << 20
	readFileMaxSize      = 64 << 20 // larger files are too_large
)

type readFileTool struct{}

func (readFileTool) Name() string { return "read_file" }
func (readFileTool) Description() string {
	return "Read a text file (or lines startLine..endLine, at most maxBytes) with the sha256 of the whole file, for expectedSha256"
}
func (readFileTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"file path"},` +
		`"startLine":{"type":"integer","minimum":1,"description":"first line (default 1)"},` +
		`"endLine":{"type":"integer","minimum":1,"description":"last line (default: the end)"},` +
		`"maxBytes":{"type":"integer","minimum":1,"description":"at most this many bytes (default 262144)"}` +
		`},"required":["path"],"additionalProperties":false}`)
}

// readFileDetails is read_file's data. SHA256 is always of the whole file
// (the open buffer's text when the editor has it open), however the
// content was sliced; Tag names the same snapshot for hashline edits.
type readFileDetails struct {
	Path          string `json:"path"`
	SHA256        string `json:"sha256"`
	Tag           string `json:"tag"`
	Content       string `json:"content"`
	StartLine     int    `json:"startLine"`
	EndLine       int    `json:"endLine"`
	TotalLines    int    `json:"totalLines"`
	Truncated     bool   `json:"truncated"`
	NextStartLine int    `json:"nextStartLine,omitempty"` // where to continue when truncated
	Size          int    `json:"size"`
	BOM           bool   `json:"bom,omitempty"` // the file starts with a UTF-8 BOM (not in content)
	Overlay       bool   `json:"overlay,omitempty"`
}

func (readFileTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	a, start, end, maxBytes, err := parseReadFileArgs(raw)
	if err != nil {
		return nil, err
	}
	p, err := resolveFile(env, "read_file", "path", a.Path)
	if err != nil {
		return nil, err
	}
	if info, err := env.WS.Stat(p); err == nil && info.Size > readFileMaxSize {
		return nil, &Error{Kind: KindTooLarge, Message: fmt.Sprintf(
			"read_file: %s is %s, over the %d MiB limit", p.Rel, humanSize(info.Size), readFileMaxSize>>20), SuggestedAction: "Search it[ with {search}], or read it outside these tools."}

	}
	// The loading core of both reads: the same bytes, proofs and line
	// model as read's.
	l, err := loadText(env, "read_file", p)
	if err != nil {
		return nil, err
	}
	if l.binary {
		return nil, errBinary("read_file", p.Rel, len(l.f.Bytes))
	}
	total := l.lines.Len()
	d := &readFileDetails{Path: p.Rel, SHA256: l.sha256(), Tag: l.tag, TotalLines: total, Size: len(l.f.Bytes),
		BOM: len(l.lines.b) < len(l.f.Bytes), Overlay: l.f.Overlay}
	if total > 0 && start > total {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("read_file: startLine %d is past the end of %s, which has %d line%s", start, p.Rel, total, plural(total)), SuggestedAction: fmt.Sprintf("Pass a startLine from 1 to %d.", total)}
	}
	if end == 0 || end > total {
		end = total
	}
	// The lines shown are recorded with the snapshot (a hashline edit may
	// anchor on them), so that either family's proof is accepted by the
	// other.
	var seen []workspace.LineRange
	if total > 0 {
		readFileCut(d, l.lines, start, end, maxBytes)
		seen = []workspace.LineRange{{Start: d.StartLine, End: d.EndLine}}
	}
	if err := l.record(env, seen); err != nil {
		return nil, err
	}
	return &Result{Text: readFileText(d, maxBytes), Details: d, Shown: l.shown()}, nil
}

// readFileArgs are read_file's arguments.
type readFileArgs struct {
	Path      string `json:"path"`
	StartLine *int   `json:"startLine"`
	EndLine   *int   `json:"endLine"`
	MaxBytes  *int   `json:"maxBytes"`
}

// parseReadFileArgs checks read_file's arguments: the 1-based lines start
// to end (0: the last) and the byte bound.
func parseReadFileArgs(raw json.RawMessage) (a readFileArgs, start, end, maxBytes int, err error) {
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, 0, 0, 0, &Error{Kind: KindUsage, Message: fmt.Sprintf("read_file: %v", err)}
	}
	start, end, maxBytes = 1, 0, readFileDefaultBytes
	switch {
	case a.StartLine != nil && *a.StartLine < 1:
		err = &Error{Kind: KindUsage, Message: fmt.Sprintf("read_file: startLine %d is invalid", *a.StartLine), SuggestedAction: "Lines are 1-based: pass startLine 1 for the first line."}
	case a.EndLine != nil && *a.EndLine < 1:
		err = &Error{Kind: KindUsage, Message: fmt.Sprintf("read_file: endLine %d is invalid", *a.EndLine), SuggestedAction: "Lines are 1-based: pass an endLine of 1 or more."}
	case a.StartLine != nil && a.EndLine != nil && *a.EndLine < *a.StartLine:
		err = &Error{Kind: KindUsage, Message: fmt.Sprintf("read_file: endLine %d is before startLine %d", *a.EndLine, *a.StartLine), SuggestedAction: "Pass an endLine at or after startLine."}
	case a.MaxBytes != nil && (*a.MaxBytes < 1 || *a.MaxBytes > readFileMaxBytes):
		err = &Error{Kind: KindUsage, Message: fmt.Sprintf("read_file: maxBytes must be 1..%d, not %d", readFileMaxBytes, *a.MaxBytes)}
	}
	if err != nil {
		return a, 0, 0, 0, err
	}
	if a.StartLine != nil {
		start = *a.StartLine
	}
	if a.EndLine != nil {
		end = *a.EndLine
	}
	if a.MaxBytes != nil {
		maxBytes = *a.MaxBytes
	}
	return a, start, end, maxBytes, nil
}

// readFileCut sets d's content to lines start..end of ls (1 <= start <=
// end <= the last line), cut to maxBytes: at the last line end that fits,
// or inside a first line longer than that (at a UTF-8 boundary).
func readFileCut(d *readFileDetails, ls displayLines, start, end, maxBytes int) {
	body, total := ls.b, ls.Len()
	from, to := ls.span(start, end)
	shownEnd := end
	if to-from > maxBytes {
		// Cut at the last line end that fits; a first line longer than
		// maxBytes is cut inside (at a UTF-8 boundary).
		endOf := func(line int) int { // the offset after line (1-based)
			_, to := ls.span(line, line)
			return to
		}
		i := sort.Search(end-start+1, func(i int) bool { return endOf(start+i)-from > maxBytes }) // lines start..start+i-1 fit
		if i > 0 {
			shownEnd, to = start+i-1, endOf(start+i-1)
			d.NextStartLine = shownEnd + 1
		} else {
			to = from + maxBytes
			for to > from && !utf8Start(body[to]) {
				to--
			}
			shownEnd = start
			if start < total {
				d.NextStartLine = start + 1
			}
		}
		d.Truncated = true
	}
	d.Content, d.StartLine, d.EndLine = string(body[from:to]), start, shownEnd
}

// readFileText is read_file's text: a header naming the file, its proofs
// and the lines shown, then the content.
func readFileText(d *readFileDetails, maxBytes int) string {
	total := d.TotalLines
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s (sha256 %s, tag %s, ", showName(d.Path), d.SHA256, d.Tag)
	switch {
	case total == 0:
		sb.WriteString("empty file)\n")
	case d.Truncated && d.NextStartLine > 0:
		fmt.Fprintf(&sb, "lines %d-%d of %d, truncated at %d bytes: continue with startLine %d)\n", d.StartLine, d.EndLine, total, maxBytes, d.NextStartLine)
	case d.Truncated:
		fmt.Fprintf(&sb, "line %d of %d cut at %d bytes)\n", d.StartLine, total, maxBytes)
	default:
		fmt.Fprintf(&sb, "lines %d-%d of %d)\n", d.StartLine, d.EndLine, total)
	}
	sb.WriteString(d.Content)
	return sb.String()
}
