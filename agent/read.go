package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/workspace"
	"github.com/hashls/hashls/workspace/notebook"
)

// Read limits (read.md "Limits & Caps").
const (
	readLeadingContext  = 1
	readTrailingContext = 3
)

type readTool struct{}

func (readTool) Name() string { return "read" }
func (readTool) Description() string {
	return "Read a file as ¶PATH#TAG then N:TEXT rows (a code file without a selector: its structural summary); also directories, archive members and SQLite"
}
func (readTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"Path, optionally with :N, :A-B, :A+C, :A-B,C-D, :N@B (line N from byte B) or :raw (no rows). Archive member: a.zip:dir/f.txt. SQLite: db.sqlite[:table[:key]][?limit=&offset=&order=&where=], db.sqlite?q=SELECT …"}` +
		`},"required":["path"],"additionalProperties":false}`)
}

type readArgs struct {
	Path string `json:"path"`
}

// readDetails is the structured part of a read result.
type readDetails struct {
	Path         string         `json:"path"`
	ResolvedPath string         `json:"resolvedPath"`
	Tag          string         `json:"tag,omitempty"`
	SHA256       string         `json:"sha256,omitempty"`
	Lines        int            `json:"lines"`
	Shown        *shownRange    `json:"shown,omitempty"`
	Truncation   *truncation    `json:"truncation,omitempty"`
	Summary      map[string]any `json:"summary,omitempty"`
	IsDirectory  bool           `json:"isDirectory,omitempty"`
	Raw          bool           `json:"raw,omitempty"`
	Overlay      bool           `json:"overlay,omitempty"`
	// Kind is "notebook", "image" or "conflicts" when the file is shown
	// as such; "" for text.
	Kind             string            `json:"kind,omitempty"`
	Image            *imageInfo        `json:"image,omitempty"`
	Tree             *dirTreeLimits    `json:"tree,omitempty"`
	SuffixResolution *suffixResolution `json:"suffixResolution,omitempty"`
	// Conflicts are the merge-conflict regions of a :conflicts read.
	Conflicts []conflictRegion `json:"conflicts,omitempty"`
}

type shownRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

type truncation struct {
	Reason     string `json:"reason"` // "lines" or "bytes"
	NextOffset int    `json:"nextOffset"`
	// NextByte, when not 0, is where in line NextOffset the next page
	// starts (`:N@B`): the line is longer than a page; LineBytes is its
	// length.
	NextByte   int `json:"nextByte,omitempty"`
	LineBytes  int `json:"lineBytes,omitempty"`
	TotalLines int `json:"totalLines"`
}

func (readTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a readArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: "read: " + err.Error()}
	}
	if strings.TrimSpace(a.Path) == "" {
		return nil, &Error{Kind: KindUsage, Message: "read: path is empty; pass a file path such as src/main.go or src/main.go:10-20"}
	}
	// Archive members (a.zip:dir/file) and SQLite targets (db.sqlite:table)
	// have their own colon syntax: they are tried first.
	if res, ok, err := readTarget(ctx, env, a.Path); ok || err != nil {
		return res, err
	}
	pathStr, sel, err := workspace.SplitSelector(a.Path)
	if err != nil {
		return nil, &Error{Kind: KindUsage, Message: err.Error()}
	}
	p, err := env.WS.Resolve(pathStr)
	if err != nil {
		return nil, err
	}
	if st, err := env.WS.Stat(p); err == nil {
		if res, ok, err := readByKind(ctx, env, p, st, a.Path, pathStr, sel); ok || err != nil {
			return res, err
		}
	}
	l, err := loadText(env, "read", p)
	if err != nil {
		return nil, err
	}
	return readText(ctx, env, l, a.Path, sel)
}

// readByKind reads what is not a text file held whole (ok false: it is
// one): a missing path that is the tail of one file, a directory, an
// image, a notebook's cells, a file too large to hold (streamed).
func readByKind(ctx context.Context, env *Env, p workspace.Path, st workspace.Info, arg, pathStr string, sel workspace.Selector) (*Result, bool, error) {
	if !st.Exists && !filepath.IsAbs(pathStr) {
		if res, ok, err := resolveBySuffix(ctx, env, readTool{}, arg, pathStr, arg[len(pathStr):]); ok || err != nil {
			return res, true, err
		}
	}
	if st.Dir {
		res, err := readDirectory(ctx, env, p)
		return res, true, err
	}
	onDisk := st.Regular && !st.Overlay
	if onDisk && isImageName(p.Rel) && !sel.Raw {
		if res, ok, err := readImage(env, p, st.Size); ok || err != nil {
			return res, true, err
		}
	}
	isNotebook := notebook.IsNotebook(p.Rel) && !sel.Raw
	if onDisk && isNotebook && !sel.Conflicts {
		// Its cell text, read in one pass that never holds the outputs.
		res, err := readNotebookFile(env, p, arg, sel)
		return res, true, err
	}
	if onDisk && st.Size > streamThreshold(env) && !sel.Conflicts && !isNotebook {
		// Too large to hold for a page of it: streamed (no summary, which
		// declines files this large anyway).
		res, err := readStreamed(ctx, env, p, arg, sel)
		return res, true, err
	}
	return nil, false, nil
}

// loaded is a file loaded for reading by loadText: the bytes a reader
// sees (the editor's open buffer over the disk), the proofs of that
// snapshot (sha256, tag) and its lines as both reads number them.
type loaded struct {
	p      workspace.Path
	f      *workspace.File
	sum    [32]byte
	tag    string
	lines  displayLines
	binary bool // not text (read shows an image of it, read_file refuses it)
}

// loadText is the one loading core of both reads, read and read_file
// (they differ only in what they gate and how they render): it reads the
// file at p as a reader sees it and computes its proofs and its line
// model. A missing file and a directory are refused with the contract's
// kinds (readExisting); binary content is loaded and marked.
func loadText(env *Env, tool string, p workspace.Path) (*loaded, error) {
	f, err := readExisting(env, tool, p, true)
	if err != nil {
		return nil, err
	}
	l := &loaded{p: p, f: f, sum: sha256.Sum256(f.Bytes), binary: workspace.IsBinary(f.Bytes)}
	if !l.binary {
		l.tag, l.lines = edit.Tag(f.Bytes), newDisplayLines(f.Bytes)
	}
	return l, nil
}

func (l *loaded) sha256() string { return hex.EncodeToString(l.sum[:]) }

// record records the snapshot and the lines of it a result shows (seen;
// nil for none) in one store transaction: what an edit of either family
// may then name.
func (l *loaded) record(env *Env, seen []workspace.LineRange) error {
	return record(env, l.p, l.tag, l.f.Bytes, &l.sum, nonNil(seen))
}

// shown is the file as a result shows it under its tag.
func (l *loaded) shown() []Shown {
	return []Shown{{Path: l.p.Rel, Tag: l.tag, SHA256: l.sha256()}}
}

// readText reads a file held whole (l): raw rows, merge conflicts, a
// notebook open in the editor, a code file's summary, or its numbered
// rows under its tag, the snapshot and the lines shown recorded.
func readText(ctx context.Context, env *Env, l *loaded, arg string, sel workspace.Selector) (*Result, error) {
	p, f := l.p, l.f
	if l.binary {
		if !f.Overlay {
			if res, ok, err := readImage(env, p, int64(len(f.Bytes))); ok || err != nil {
				return res, err
			}
		}
		return nil, errBinary("read", p.Rel, len(f.Bytes))
	}
	d := &readDetails{Path: arg, ResolvedPath: p.Rel, SHA256: l.sha256(), Raw: sel.Raw, Overlay: f.Overlay, Lines: l.lines.Len()}
	if sel.Raw {
		// Raw reads show no anchors, so nothing is recorded.
		text, shown, tr, _ := env.limits().renderRowsFrom(p.Rel, l.lines, sel, false)
		d.Shown, d.Truncation = shown, tr
		return &Result{Text: text, Details: d}, nil
	}
	if sel.Conflicts {
		return readConflicts(env, p, f.Bytes, d)
	}
	if nb, ok, err := notebookView(p, f.Bytes); ok {
		if err != nil {
			return nil, err
		}
		return readNotebook(env, p, nb, d, sel)
	}
	d.Tag = l.tag
	if len(sel.Ranges) == 0 {
		if text, details, seen, ok := env.limits().summarizeForReadSeen(ctx, p.Rel, l.tag, f.Bytes); ok {
			if err := l.record(env, seen); err != nil {
				return nil, err
			}
			d.Summary = details
			return &Result{Text: text, Details: d, Shown: l.shown()}, nil
		}
	}
	body, shown, tr, seen := env.limits().renderRowsFrom(p.Rel, l.lines, sel, true)
	if err := l.record(env, seen); err != nil {
		return nil, err
	}
	d.Shown, d.Truncation = shown, tr
	return &Result{Text: header(p.Rel, l.tag) + "\n" + body, Details: d, Shown: l.shown()}, nil
}

// record records a snapshot of content for p in the store, if there is one
// (a store whose disk is full or read-only records nothing and says so:
// Workspace.RecordReads). sum is content's sha256 when the caller has it
// (nil: computed). seen, when not nil, is the lines of content the result
// displays.
func record(env *Env, p workspace.Path, tag string, content []byte, sum *[32]byte, seen []workspace.LineRange) error {
	return env.WS.RecordReads([]workspace.Recording{{Key: p.Abs, Tag: tag, Content: content, SHA256: sum, Seen: seen}})
}

// splitDisplayLines splits content into lines as read shows them (see
// displayLines), each line a string.
func splitDisplayLines(b []byte) []string {
	ls := newDisplayLines(b)
	if ls.Len() == 0 {
		return nil
	}
	lines := make([]string, ls.Len())
	for n := range lines {
		lines[n] = ls.Line(n + 1)
	}
	return lines
}

// displayLines indexes content's lines as read shows them, matching the
// edit engine's line numbering: BOM dropped; "\r\n", "\n" and a lone "\r"
// each end a line (found by edit.BreakFinder, the one scanner of breaks);
// the empty line after a final break (the engine's sentinel) is not shown.
// It keeps offsets, not strings: a read of a few lines of a large file
// copies only those (a lineSource).
type displayLines struct {
	b      []byte
	bom    int   // bytes of BOM dropped before b
	starts []int // start of each line in b; the line ends at the break before the next start
	ends   []int // end of each line's content (before its break)
}

func newDisplayLines(b []byte) displayLines {
	body := bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
	ls := displayLines{b: body, bom: len(b) - len(body)}
	b = body
	if len(b) == 0 {
		return ls
	}
	n := bytes.Count(b, []byte{'\n'}) + 1
	ls.starts, ls.ends = make([]int, 0, n), make([]int, 0, n)
	br := edit.NewBreakFinder(b)
	i := 0
	for i < len(b) {
		j := br.Next(i)
		if j < 0 {
			break
		}
		ls.starts, ls.ends = append(ls.starts, i), append(ls.ends, j)
		i = j + 1
		if b[j] == '\r' && i < len(b) && b[i] == '\n' {
			i++
		}
	}
	if i < len(b) {
		ls.starts, ls.ends = append(ls.starts, i), append(ls.ends, len(b))
	}
	return ls
}

func (l displayLines) Len() int { return len(l.starts) }

// lineOf returns the 1-based line holding byte off of the content (BOM
// included, as the caller's offsets are).
func (l displayLines) lineOf(off int) int {
	return sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off-l.bom })
}

// span returns the bytes of b from line a's start to the end of line z,
// its break included.
func (l displayLines) span(a, z int) (from, to int) {
	from, to = l.starts[a-1], len(l.b)
	if z < len(l.starts) {
		to = l.starts[z]
	}
	return from, to
}
func (l displayLines) Line(n int) string { return l.From(n, 0) }
func (l displayLines) From(n, off int) string {
	return string(l.b[min(l.starts[n-1]+off, l.ends[n-1]):l.ends[n-1]])
}
func (l displayLines) LineLen(n int) int { return l.ends[n-1] - l.starts[n-1] }

// lineSource is the lines renderRowsFrom shows: all of a file's (a
// slice), or the few a streamed read kept (streamedLines).
type lineSource interface {
	Len() int               // lines in the file
	From(n, off int) string // line n (1-based) from byte off, possibly cut when very long
	LineLen(n int) int      // line n's full length in bytes
}

type sliceLines []string

func (l sliceLines) Len() int               { return len(l) }
func (l sliceLines) From(n, off int) string { return l[n-1][min(off, len(l[n-1])):] }
func (l sliceLines) LineLen(n int) int      { return len(l[n-1]) }

// renderRowsFrom renders the selected rows of lines as "N:TEXT"
// (numbered) or plain text, with context around explicit ranges, within
// the limits, for the ranges of sel, from sel.Byte of its first line
// (`:N@B`), and returns the lines it displayed. Every page names a
// selector that makes progress: a line too long for the page's room is
// shown in pieces (`N@B:` rows), each naming the next (`:N@E`).
func (lim Limits) renderRowsFrom(display string, lines lineSource, sel workspace.Selector, numbered bool) (string, *shownRange, *truncation, []workspace.LineRange) {
	ranges := sel.Ranges
	total := lines.Len()
	if total == 0 {
		if numbered {
			return "(empty file; add content with `insert head:`)\n", nil, nil, nil
		}
		return "", nil, nil, nil
	}
	open := len(ranges) == 0
	if open {
		ranges = []workspace.LineRange{{Start: 1}}
	}
	first := ranges[0].Start
	if first > total {
		return fmt.Sprintf("Line %d is past the end of %s, which has %d line%s. Use %s:%d to read the last line, or %s:1 to read from the start.\n",
			first, display, total, plural(total), display, total, display), nil, nil, nil
	}
	startByte := sel.Byte
	if l := lines.LineLen(first); startByte > l {
		return fmt.Sprintf("Byte %d is past the end of line %d of %s, which has %d byte%s. Use %s:%d to read the line from its start.\n",
			startByte, first, display, l, plural(l), display, first), nil, nil, nil
	}
	spans := readSpans(ranges, open, startByte > 0, total)
	var sb strings.Builder
	var seen []workspace.LineRange
	count, bytesOut := 0, 0
	requested := 0 // rows shown of the lines asked for (not their context)
	var tr *truncation
	shown := &shownRange{Start: spans[0].Start}
loop:
	for i, sp := range spans {
		if i > 0 {
			sb.WriteString("...\n")
		}
		for n := sp.Start; n <= sp.End; n++ {
			off := 0
			if n == first {
				off = startByte
			}
			prefix := ""
			if numbered {
				prefix = strconv.Itoa(n) + ":"
				if off > 0 {
					prefix = strconv.Itoa(n) + "@" + strconv.Itoa(off) + ":"
				}
			}
			if count >= lim.ReadLines {
				tr = &truncation{Reason: "lines", NextOffset: n, TotalLines: total}
				break loop
			}
			rest := lines.LineLen(n) - off
			if bytesOut+len(prefix)+rest+1 > lim.ReadBytes {
				if requested > 0 || n < first {
					tr = &truncation{Reason: "bytes", NextOffset: n, TotalLines: total}
					break loop
				}
				// The first line asked for does not fit: show a piece of
				// it, and name where the next piece starts.
				text := lines.From(n, off)
				cut := min(max(lim.ReadBytes-bytesOut-len(prefix)-128, 1024), len(text))
				for cut > 0 && cut < len(text) && !utf8Start(text[cut]) {
					cut--
				}
				sb.WriteString(prefix)
				sb.WriteString(text[:cut])
				sb.WriteString("…\n")
				shown.End = n
				seen = addSeen(seen, n)
				tr = &truncation{Reason: "bytes", NextOffset: n, NextByte: off + cut, LineBytes: lines.LineLen(n), TotalLines: total}
				break loop
			}
			sb.WriteString(prefix)
			sb.WriteString(lines.From(n, off))
			sb.WriteByte('\n')
			count++
			bytesOut += len(prefix) + rest + 1
			if n >= first {
				requested++
			}
			shown.End = n
			seen = addSeen(seen, n)
		}
	}
	if tr != nil {
		sb.WriteString(lim.truncationNotice(display, shown, tr))
	}
	return sb.String(), shown, tr, seen
}

// readSpans expands the ranges asked for by context on their constrained
// sides (open: no range was asked for; fromByte: the first starts inside
// its line, so it has no leading context), clamps them to the total lines
// and merges them.
func readSpans(ranges []workspace.LineRange, open, fromByte bool, total int) []workspace.LineRange {
	var spans []workspace.LineRange
	for i, r := range ranges {
		s, e := r.Start, r.End
		if !open && !(i == 0 && fromByte) {
			s -= readLeadingContext
		}
		if e == 0 {
			e = total
		} else {
			e += readTrailingContext
		}
		s = max(s, 1)
		e = min(e, total)
		if s > e {
			continue
		}
		if n := len(spans); n > 0 && s <= spans[n-1].End+1 {
			spans[n-1].End = max(spans[n-1].End, e)
			continue
		}
		spans = append(spans, workspace.LineRange{Start: s, End: e})
	}
	return spans
}

// truncationNotice is the line after a page cut short: what it showed and
// where to read on.
func (lim Limits) truncationNotice(display string, shown *shownRange, tr *truncation) string {
	limit := fmt.Sprintf("%d-line limit", lim.ReadLines)
	if tr.Reason == "bytes" {
		limit = fmt.Sprintf("%d KiB limit", lim.ReadBytes/1024)
	}
	if tr.NextByte > 0 {
		return fmt.Sprintf("\n[Showing lines %d-%d of %d; line %d is %d bytes, shown up to byte %d (%s). Use %s:%d@%d to continue.]\n", shown.Start, shown.End, tr.TotalLines, tr.NextOffset, tr.LineBytes, tr.NextByte, limit, display, tr.NextOffset, tr.NextByte)
	}
	return fmt.Sprintf("\n[Showing lines %d-%d of %d (%s). Use %s:%d to continue.]\n", shown.Start, shown.End, tr.TotalLines, limit, display, tr.NextOffset)
}

// addSeen adds line n to seen, ranges of the lines a result showed in
// order, extending the last range when n follows it.
func addSeen(seen []workspace.LineRange, n int) []workspace.LineRange {
	if k := len(seen); k > 0 && seen[k-1].End == n-1 {
		seen[k-1].End = n
		return seen
	}
	return append(seen, workspace.LineRange{Start: n, End: n})
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func humanSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1fMB", float64(n)/(1024*1024))
	}
}
