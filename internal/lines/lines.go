// Package lines holds the 1-based inclusive line range that the edit
// engine and the workspace both speak (edit and workspace may not import
// each other), and the one function that merges a set of them. Entry
// points: Range, Merge.
package lines

import "sort"

// Range is lines Start..End, 1-based and inclusive (End 0 means "to the
// end" where a caller says so).
type Range struct{ Start, End int }

// Merge returns rs sorted by Start with overlapping and adjacent ranges
// joined; empty and reversed ranges are dropped. The result is never nil
// (callers tell "no lines" from "not tracked" by nil), and rs is left as it
// was.
func Merge(rs []Range) []Range {
	out := make([]Range, 0, len(rs))
	for _, r := range rs {
		if r.Start >= 1 && r.End >= r.Start {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	w := 0
	for _, r := range out {
		if w > 0 && r.Start <= out[w-1].End+1 {
			out[w-1].End = max(out[w-1].End, r.End)
			continue
		}
		out[w] = r
		w++
	}
	return out[:w]
}
