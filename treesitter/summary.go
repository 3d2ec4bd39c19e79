package treesitter

import (
	"bytes"
	"context"
	"sort"
)

// SummaryOptions tunes Summarize. Start from DefaultSummaryOptions: the zero
// value means "fold only the roots" (UnfoldUntil 0).
type SummaryOptions struct {
	MinBodyLines    int // bodies spanning fewer lines are never elided (floored at 2)
	MinCommentLines int // comments spanning fewer lines are never elided (floored at 4)
	UnfoldUntil     int // the BFS unfolds while fewer lines are visible; 0: only roots are folded
	UnfoldLimit     int // never unfold past this many visible lines
	// SkipOverflow selects the later reference behaviour (17.x natives): a
	// span whose unfolding would overflow UnfoldLimit is skipped and the BFS
	// continues. The default (false) is 15.11.1's: the BFS stops there.
	SkipOverflow bool
}

// DefaultSummaryOptions are the read tool's defaults (spec §9).
func DefaultSummaryOptions() SummaryOptions {
	return SummaryOptions{MinBodyLines: 4, MinCommentLines: 6, UnfoldUntil: 50, UnfoldLimit: 100}
}

// Segment is a run of lines of a summary: kept (shown) or elided.
type Segment struct {
	Elided     bool
	Start, End int // 1-based, inclusive
}

// Summary is the structural summary of a file.
type Summary struct {
	Parsed   bool // false: unknown language, empty text or a syntax error anywhere
	Elided   bool // at least one elided segment
	Lines    int  // number of lines (a final newline does not start another line)
	Segments []Segment
}

type fspan struct {
	start, end int // 1-based inclusive lines
	children   []*fspan
	folded     bool
}

func (s *fspan) lines() int { return s.end - s.start + 1 }

// countLines counts lines the way summaries do: "a\nb\n" has two.
func countLines(text []byte) int {
	n := bytes.Count(text, []byte{'\n'})
	if len(text) > 0 && text[len(text)-1] != '\n' {
		n++
	}
	return n
}

// Summarize computes the structural summary of text (LF-normalised) for
// path's language. A file that cannot be summarised gets Parsed false and a
// nil error; the error is for a cancelled or failed parse.
func Summarize(ctx context.Context, path string, text []byte, opts SummaryOptions) (*Summary, error) {
	lines := countLines(text)
	sum := &Summary{Lines: lines}
	lang := LanguageFor(path)
	if lang == nil || len(text) == 0 {
		return sum, nil
	}
	if opts.MinBodyLines < 2 {
		opts.MinBodyLines = 2
	}
	if opts.MinCommentLines < 4 {
		opts.MinCommentLines = 4
	}
	// Every span is a node (or a run of sibling imports, which are children
	// of a node at least as long) of at least this many lines.
	t, err := parseSkeleton(ctx, lang, text, min(opts.MinBodyLines, opts.MinCommentLines))
	if err != nil {
		return nil, err
	}
	if t.hasError() {
		return sum, nil
	}
	sum.Parsed = true
	t.mu.Lock()
	segs, ok := t.summaries[opts]
	t.mu.Unlock()
	if !ok {
		var roots []*fspan
		t.collectSpans(0, opts, &roots, 0)
		spans := unfold(roots, lines, opts)
		segs, _ = segments(spans, lines)
		t.mu.Lock()
		if t.summaries == nil {
			t.summaries = map[SummaryOptions][]Segment{}
		}
		if len(t.summaries) < 8 {
			t.summaries[opts] = segs
		}
		t.mu.Unlock()
	}
	sum.Segments = append([]Segment(nil), segs...)
	for _, s := range segs {
		sum.Elided = sum.Elided || s.Elided
	}
	return sum, nil
}

// nodeLines counts the rows a node touches, including its end row even when
// the node ends with a newline (the reference does the same).
func (t *tree) nodeLines(i uint32) int {
	return int(t.nodes[i].EndRow-t.nodes[i].StartRow) + 1
}

func (t *tree) collectSpans(i uint32, opts SummaryOptions, out *[]*fspan, depth int) {
	if depth > 10000 {
		return
	}
	// Runs of consecutive sibling imports. The reference records them
	// before the children's own spans, and the BFS queues spans in this
	// recording order (not source order): it matters when an import run
	// follows a folded module docstring.
	first, last, runLen := noParent, noParent, 0
	flush := func() {
		if runLen >= 2 {
			spanLines := int(t.nodes[last].EndRow-t.nodes[first].StartRow) + 1
			s, e := t.lastRow(first)+2, int(t.nodes[last].StartRow)
			if spanLines >= opts.MinBodyLines && s <= e {
				*out = append(*out, &fspan{start: s, end: e})
			}
		}
		runLen = 0
	}
	t.children(i, func(k uint32) bool {
		if t.is(k, classImport) {
			if runLen == 0 {
				first = k
			}
			last = k
			runLen++
		} else {
			flush()
		}
		return true
	})
	flush()
	t.children(i, func(k uint32) bool {
		n := &t.nodes[k]
		if t.is(k, classComment) {
			if t.nodeLines(k) >= opts.MinCommentLines {
				s, e := int(n.StartRow)+3, int(n.EndRow)
				if s <= e {
					*out = append(*out, &fspan{start: s, end: e})
				}
			}
			return true
		}
		if t.is(k, classElidable) && t.nodeLines(k) >= opts.MinBodyLines {
			s, e := int(n.StartRow)+2, int(n.EndRow)
			if s <= e {
				sp := &fspan{start: s, end: e}
				t.collectSpans(k, opts, &sp.children, depth+1)
				*out = append(*out, sp)
				return true
			}
		}
		if n.End > k+1 { // has named children
			t.collectSpans(k, opts, out, depth+1)
		}
		return true
	})
}

// unfold runs the BFS of spec §9 and returns the spans left folded.
func unfold(roots []*fspan, total int, opts SummaryOptions) []*fspan {
	visible := total
	for _, r := range roots {
		r.folded = true
		visible -= r.lines()
	}
	if opts.UnfoldUntil > 0 {
		queue := append([]*fspan(nil), roots...)
		for len(queue) > 0 {
			if visible >= opts.UnfoldUntil {
				break
			}
			n := queue[0]
			queue = queue[1:]
			if !n.folded {
				continue
			}
			revealed := n.lines()
			for _, c := range n.children {
				revealed -= c.lines()
			}
			if visible+revealed > opts.UnfoldLimit {
				if opts.SkipOverflow {
					continue
				}
				break
			}
			n.folded = false
			visible += revealed
			for _, c := range n.children {
				c.folded = true
				queue = append(queue, c)
			}
		}
	}
	var out []*fspan
	var walk func(list []*fspan)
	walk = func(list []*fspan) {
		for _, s := range list {
			if s.folded {
				out = append(out, s)
			} else {
				walk(s.children)
			}
		}
	}
	walk(roots)
	return out
}

// segments clamps, sorts and merges the folded spans and returns the
// alternating kept/elided segments covering lines 1..total.
func segments(spans []*fspan, total int) ([]Segment, bool) {
	type iv struct{ s, e int }
	var ivs []iv
	for _, sp := range spans {
		s, e := max(sp.start, 1), min(sp.end, total)
		if s <= e {
			ivs = append(ivs, iv{s, e})
		}
	}
	sort.Slice(ivs, func(a, b int) bool { return ivs[a].s < ivs[b].s || ivs[a].s == ivs[b].s && ivs[a].e < ivs[b].e })
	var merged []iv
	for _, v := range ivs {
		if k := len(merged) - 1; k >= 0 && v.s <= merged[k].e+1 {
			merged[k].e = max(merged[k].e, v.e)
			continue
		}
		merged = append(merged, v)
	}
	var segs []Segment
	next := 1
	for _, v := range merged {
		if v.s > next {
			segs = append(segs, Segment{Start: next, End: v.s - 1})
		}
		segs = append(segs, Segment{Elided: true, Start: v.s, End: v.e})
		next = v.e + 1
	}
	if next <= total {
		segs = append(segs, Segment{Start: next, End: total})
	}
	return segs, len(merged) > 0
}
