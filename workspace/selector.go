package workspace

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hashls/hashls/internal/lazy"
	"github.com/hashls/hashls/internal/names"

	"github.com/hashls/hashls/internal/lines"
)

// LineRange is an inclusive 1-based line range; End == 0 means open-ended.
type LineRange = lines.Range

// Selector is the trailing `:…` part of a read path: line ranges and raw mode.
type Selector struct {
	Raw    bool
	Ranges []LineRange // sorted and merged; empty means the whole file
	// Byte, from `:N@B`, is where in line N (Ranges is that line on) the
	// read starts: a page of a line too long for one page names the
	// next piece so.
	Byte int
	// Conflicts: ":conflicts", list the file's merge-conflict regions.
	Conflicts bool
}

// IsZero reports whether the selector selects the whole file, not raw.
func (s Selector) IsZero() bool { return !s.Raw && len(s.Ranges) == 0 && !s.Conflicts }

var (
	rangeListRE = lazy.Regexp(`^L?\d+(?:-(?:L?\d+)?|\+\d+)?(?:,L?\d+(?:-(?:L?\d+)?|\+\d+)?)*$`)
	chunkRE     = lazy.Regexp(`^L?(\d+)(?:(-)(?:L?(\d+))?|\+(\d+))?$`)
	lineByteRE  = lazy.Regexp(`^L?(\d+)@(\d+)$`)
)

// SplitSelector splits a trailing selector off p: `:raw`, `:N`, `:N-`,
// `:A-B`, `:A+C`, comma-separated ranges (L prefixes allowed), `:N@B`
// (from byte B of line N on), and `:range:raw` / `:raw:range`. An unrecognised trailing `:…` stays part of
// the path. Invalid numbers (`:0`, `:5-3`, `:5+0`) are errors.
//
// Drive letters: only the last one or two `:…` parts can be a selector, and
// a drive letter is written with its separator (`C:\`, `C:/`), which no
// selector starts with, so `C:\x\a.go:10-20` is `C:\x\a.go` lines 10-20 and
// `C:\x\a.go` is a whole file, on every OS. `d:1-2` is lines 1-2 of a file
// named d (Windows refuses drive-relative paths such as `C:a.go`, so a
// single letter before a selector is never a drive). A name such as
// `a.txt:stream` keeps its colon (Windows then refuses it as an alternate
// data stream), except that a stream named like a selector, `a.txt:10` or
// `a.txt:raw`, is a selector.
//
// Path elements may be $'…' quoted (package names: how tool output shows
// a name with a line break, a quote, a leading space, bytes that are not
// UTF-8, …): they are read as the names they spell, and a selector is
// looked for only after the last one.
func SplitSelector(p string) (path string, sel Selector, err error) {
	if name, rest, ok, qerr := names.Cut(p); ok {
		if qerr != nil {
			return p, Selector{}, fmt.Errorf("path %s: %w; copy the name as tool output shows it", shortPrefix(p), qerr)
		}
		// What follows the last quoted element is split as ever.
		tail, sel, err := SplitSelector("x" + rest)
		if err != nil {
			return p, Selector{}, err
		}
		return name + tail[1:], sel, nil
	}
	path = p
	if strings.HasSuffix(p, ":conflicts") && len(p) > len(":conflicts") {
		return strings.TrimSuffix(p, ":conflicts"), Selector{Conflicts: true}, nil
	}
	for i := 0; i < 2; i++ {
		idx := strings.LastIndexByte(path, ':')
		if idx <= 0 {
			break
		}
		suffix := path[idx+1:]
		switch {
		case suffix == "raw" && !sel.Raw:
			sel.Raw = true
		case rangeListRE().MatchString(suffix) && sel.Ranges == nil:
			rs, err := parseRanges(suffix)
			if err != nil {
				return p, Selector{}, err
			}
			sel.Ranges = rs
		case lineByteRE().MatchString(suffix) && sel.Ranges == nil:
			m := lineByteRE().FindStringSubmatch(suffix)
			rs, err := parseRanges(m[1])
			if err != nil {
				return p, Selector{}, err
			}
			b, err := strconv.Atoi(m[2])
			if err != nil || b > 1<<40 {
				return p, Selector{}, fmt.Errorf("byte offset %q in %q is out of range", m[2], suffix)
			}
			sel.Ranges, sel.Byte = rs, b
		default:
			return path, sel, nil
		}
		path = path[:idx]
	}
	return path, sel, nil
}

func parseRanges(s string) ([]LineRange, error) {
	var out []LineRange
	for _, chunk := range strings.Split(s, ",") {
		m := chunkRE().FindStringSubmatch(chunk)
		if m == nil {
			return nil, fmt.Errorf("invalid line selector %q; use :N, :A-B, :A+C or :N-", chunk)
		}
		start, err := strconv.Atoi(m[1])
		if err != nil || start > 1<<30 {
			return nil, fmt.Errorf("line selector %q is out of range", chunk)
		}
		if start == 0 {
			return nil, fmt.Errorf("Line selector 0 is invalid; lines are 1-indexed. Use :1.")
		}
		r := LineRange{Start: start}
		switch {
		case m[4] != "":
			n, err := strconv.Atoi(m[4])
			if err != nil || n > 1<<30 {
				return nil, fmt.Errorf("line selector %q is out of range", chunk)
			}
			if n < 1 {
				return nil, fmt.Errorf("invalid line selector %q: the count after + must be at least 1", chunk)
			}
			r.End = start + n - 1
		case m[3] != "":
			end, err := strconv.Atoi(m[3])
			if err != nil || end > 1<<30 {
				return nil, fmt.Errorf("line selector %q is out of range", chunk)
			}
			if end < start {
				return nil, fmt.Errorf("invalid line selector %q: range ends before it starts; use :%d-%d", chunk, end, start)
			}
			r.End = end
		case m[2] == "-":
			r.End = 0 // open-ended
		default:
			r.End = 0 // :N reads from N on
		}
		out = append(out, r)
	}
	return mergeRanges(out), nil
}

// mergeRanges sorts ranges and merges overlapping or adjacent ones.
func mergeRanges(rs []LineRange) []LineRange {
	sort.Slice(rs, func(i, j int) bool { return rs[i].Start < rs[j].Start })
	var out []LineRange
	for _, r := range rs {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if last.End == 0 || r.Start <= last.End+1 {
				if last.End != 0 && (r.End == 0 || r.End > last.End) {
					last.End = r.End
				}
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

// conflictTargetRE matches the write target of one conflict region.
var conflictTargetRE = lazy.Regexp(`^(.+):conflict:([^:]*)$`)

// SplitConflictTarget splits "FILE:conflict:N", the write target of the
// N-th merge-conflict region read FILE:conflicts lists. ok is false when p
// does not end in ":conflict:…"; a bad N is an error.
func SplitConflictTarget(p string) (path string, id int, ok bool, err error) {
	m := conflictTargetRE().FindStringSubmatch(p)
	if m == nil {
		return p, 0, false, nil
	}
	n, err := strconv.Atoi(m[2])
	if err != nil || n < 1 || n > 1<<20 {
		return m[1], 0, true, fmt.Errorf("conflict id %q in %s is not a region number; read %s:conflicts to list the regions, then write %s:conflict:N with N from that list", m[2], p, m[1], m[1])
	}
	return m[1], n, true, nil
}
