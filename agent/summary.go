package agent

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/treesitter"
	"github.com/hashls/hashls/workspace"
)

// The tree-sitter resolver is the engine's block resolver.
var _ edit.BlockResolver = (*treesitter.Resolver)(nil)

// Limits of the read tool's structural summary (spec §9, "When read
// summarises").
const (
	summaryMaxBytes      = 2 << 20
	summaryMaxLines      = 20000
	summaryMinTotalLines = 100
)

// summarizeForRead renders the structural summary `read` shows for a whole
// file: the header ¶displayPath#tag, kept lines as N:TEXT, elided runs as
// "..." or brace-merged "S-E:head .. tail" lines, a blank line and the
// footer. content is the raw file (BOM and CRLF are normalised away). ok is
// false when read should do a plain read instead. details is the read
// tool's "summary" object: lines, elidedSpans, elidedLines.
func (lim Limits) summarizeForRead(ctx context.Context, displayPath, tag string, content []byte) (text string, details map[string]any, ok bool) {
	text, details, _, ok = lim.summarizeForReadSeen(ctx, displayPath, tag, content)
	return text, details, ok
}

// summarizeForReadSeen is summarizeForRead that also returns the lines the
// summary displays (kept lines, and both lines of a merged brace pair).
func (lim Limits) summarizeForReadSeen(ctx context.Context, displayPath, tag string, content []byte) (text string, details map[string]any, seen []workspace.LineRange, ok bool) {
	if len(content) > summaryMaxBytes {
		return "", nil, nil, false
	}
	switch strings.ToLower(filepath.Ext(displayPath)) {
	case ".md", ".txt":
		return "", nil, nil, false
	}
	if !treesitter.Supported(displayPath) || bytes.IndexByte(content, 0) >= 0 {
		return "", nil, nil, false
	}
	norm := normaliseForSummary(content)
	lines := strings.Split(string(norm), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the final newline does not start a line here
	}
	if len(lines) > summaryMaxLines || len(lines) < summaryMinTotalLines {
		return "", nil, nil, false
	}
	sum, err := treesitter.Summarize(ctx, displayPath, norm, treesitter.DefaultSummaryOptions())
	if err != nil || !sum.Parsed || !sum.Elided {
		return "", nil, nil, false
	}
	segs := sum.Segments
	body, spans, elided := renderSummary(displayPath, lines, segs)
	cutAt := 0 // the first line the summary does not cover (0: none)
	if lim.overCaps(body) {
		// Page by declarations: the page ends before a kept segment (where
		// a declaration starts, after the closer of the body before it);
		// the last such end at which the rendered page fits the caps.
		var cuts []int // indexes of kept segments after the first
		for k, seg := range segs {
			if k > 0 && !seg.Elided {
				cuts = append(cuts, k)
			}
		}
		page := func(k int) ([]treesitter.Segment, int) {
			next := segs[k].Start
			p := slices.Clip(segs[:k])
			if segs[k-1].Elided && k >= 2 && canMergeBracePair(lines[segs[k-1].Start-2], lines[next-1]) {
				p = append(p, treesitter.Segment{Start: next, End: next})
				next++
			}
			return p, next
		}
		// The first cut that does not fit; the one before it is the page.
		i := sort.Search(len(cuts), func(i int) bool {
			p, _ := page(cuts[i])
			b, _, _ := renderSummary(displayPath, lines, p)
			return lim.overCaps(b)
		})
		if i == 0 {
			return "", nil, nil, false // no declaration to cut at: the plain read pages
		}
		segs, cutAt = page(cuts[i-1])
		body, spans, elided = renderSummary(displayPath, lines, segs)
	}
	var b strings.Builder
	b.WriteString(header(displayPath, tag) + "\n")
	b.WriteString(body)
	details = map[string]any{"lines": len(lines), "elidedSpans": len(spans), "elidedLines": elided}
	if cutAt > 0 {
		fmt.Fprintf(&b, "\n[Summary cut at the %d-line / %d KiB read limit: it covers lines 1-%d of %d. Read %s:%d- for the rest (plain lines, paged), or a range of it.]", lim.ReadLines, lim.ReadBytes/1024, cutAt-1, len(lines), displayPath, cutAt)
		details["nextLine"] = cutAt
	}
	for _, seg := range segs {
		if seg.Elided {
			// A merged brace line shows the lines on either side; they are
			// kept segments, so nothing inside the span is shown.
			continue
		}
		seen = append(seen, workspace.LineRange{Start: seg.Start, End: seg.End})
	}
	return b.String(), details, workspace.MergeLineRanges(seen), true
}

// summaryReserve is what a summary page keeps free under the read caps
// for its header and footers: rows and bytes.
const (
	summaryReserveLines = 10
	summaryReserveBytes = 2 << 10
)

// overCaps reports whether a summary body breaks the read caps.
func (lim Limits) overCaps(body string) bool {
	return strings.Count(body, "\n")+summaryReserveLines > lim.ReadLines || len(body)+summaryReserveBytes > lim.ReadBytes
}

// normaliseForSummary drops a UTF-8 BOM and turns CRLF into LF.
func normaliseForSummary(b []byte) []byte {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	if bytes.Contains(b, []byte("\r\n")) {
		b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	}
	return b
}

// canMergeBracePair reports whether an elided run between head and tail can
// be shown as one "head .. tail" line: head ends with an opener and tail is
// its closer followed only by ;,)]} characters.
func canMergeBracePair(head, tail string) bool {
	h := strings.TrimRightFunc(head, unicode.IsSpace)
	t := strings.TrimSpace(tail)
	if h == "" || t == "" {
		return false
	}
	var closer byte
	switch h[len(h)-1] {
	case '{':
		closer = '}'
	case '(':
		closer = ')'
	case '[':
		closer = ']'
	default:
		return false
	}
	if t[0] != closer {
		return false
	}
	return strings.Trim(t[1:], ";,)]}") == ""
}

// renderSummary renders the rows and the footer; it returns the text, the
// footer's ranges and the number of elided lines.
func renderSummary(path string, lines []string, segs []treesitter.Segment) (string, []string, int) {
	var rows []string
	var ranges []string
	elided := 0
	skipFirst := false // the next kept segment's first line was merged into a brace line
	lastKeptWasTail := false
	for k, seg := range segs {
		if !seg.Elided {
			for n := seg.Start; n <= seg.End; n++ {
				if n == seg.Start && skipFirst {
					skipFirst = false
					lastKeptWasTail = n == seg.End
					continue
				}
				lastKeptWasTail = false
				rows = append(rows, strconv.Itoa(n)+":"+lines[n-1])
			}
			continue
		}
		merged := false
		if k > 0 && k+1 < len(segs) && !segs[k-1].Elided && !segs[k+1].Elided && !lastKeptWasTail {
			head, tail := lines[seg.Start-2], lines[seg.End]
			if canMergeBracePair(head, tail) {
				s, e := seg.Start-1, seg.End+1
				rows = rows[:len(rows)-1]
				rows = append(rows, fmt.Sprintf("%d-%d:%s .. %s", s, e, strings.TrimRightFunc(head, unicode.IsSpace), strings.TrimSpace(tail)))
				ranges = append(ranges, fmt.Sprintf("%d-%d", s, e))
				elided += e - s - 1
				skipFirst = true
				merged = true
			}
		}
		if !merged {
			rows = append(rows, "...")
			ranges = append(ranges, fmt.Sprintf("%d-%d", seg.Start, seg.End))
			elided += seg.End - seg.Start + 1
		}
		lastKeptWasTail = false
	}
	noun := "lines"
	if elided == 1 {
		noun = "line"
	}
	var footer string
	if len(ranges) <= 2 {
		footer = fmt.Sprintf("[%d %s elided; re-read needed ranges with %s:%s]", elided, noun, path, strings.Join(ranges, ","))
	} else {
		footer = fmt.Sprintf("[%d %s elided; re-read needed ranges, e.g. %s:%s]", elided, noun, path, strings.Join(ranges[:2], ","))
	}
	return strings.Join(rows, "\n") + "\n\n" + footer, ranges, elided
}
