// Package conflict finds git merge-conflict regions in text and replaces
// one of them, for read's ":conflicts" selector and write's
// "FILE:conflict:N" target. Both the merge style (<<<<<<< / ======= /
// >>>>>>>) and the diff3 style (with a ||||||| base section) are
// recognised. It is pure (no workspace or agent import).
package conflict

import (
	"bytes"
	"fmt"
	"strings"
)

// Region is one conflict region. Lines are 1-based; Start is the
// "<<<<<<<" line and End the ">>>>>>>" line.
type Region struct {
	ID         int // 1-based, in file order
	Start, End int
	// The first line of each side's text (0 when the side is empty) and
	// its lines (without their line breaks).
	OursStart, BaseStart, TheirsStart int
	Ours, Base, Theirs                []string
	HasBase                           bool // diff3 style
	OursLabel, BaseLabel, TheirsLabel string
}

// Lines splits text into lines with their line breaks kept ("\n" or
// "\r\n"); the last line may have none.
func Lines(text []byte) [][]byte {
	var out [][]byte
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// marker returns the label of a marker line of ch repeated seven times
// ("<<<<<<< HEAD" → "HEAD", true); the marker must be followed by a space
// or the end of the line.
func marker(line []byte, ch byte) (string, bool) {
	line = bytes.TrimRight(line, "\r\n")
	if len(line) < 7 {
		return "", false
	}
	for i := 0; i < 7; i++ {
		if line[i] != ch {
			return "", false
		}
	}
	rest := line[7:]
	if len(rest) == 0 {
		return "", true
	}
	if rest[0] != ' ' && rest[0] != '\t' {
		return "", false
	}
	return strings.TrimSpace(string(rest)), true
}

// Parse finds the complete conflict regions of text. An unterminated or
// malformed region is skipped from its "<<<<<<<" line (it is not a region
// that can be replaced safely).
func Parse(text []byte) []Region {
	lines := Lines(text)
	var out []Region
	for i := 0; i < len(lines); i++ {
		label, ok := marker(lines[i], '<')
		if !ok {
			continue
		}
		r, next, ok := parseRegion(lines, i, label)
		if !ok {
			continue
		}
		r.ID = len(out) + 1
		out = append(out, r)
		i = next
	}
	return out
}

// parseRegion reads the region starting at lines[start]; next is its
// ">>>>>>>" line's index.
func parseRegion(lines [][]byte, start int, label string) (Region, int, bool) {
	r := Region{Start: start + 1, OursLabel: label}
	const (
		ours = iota
		base
		theirs
	)
	state := ours
	for j := start + 1; j < len(lines); j++ {
		l := lines[j]
		text := string(bytes.TrimRight(l, "\r\n"))
		if _, ok := marker(l, '<'); ok {
			return Region{}, 0, false // nested or restarted: not a clean region
		}
		switch {
		case state == ours && isMarker(l, '|'):
			state, r.HasBase = base, true
			r.BaseLabel, _ = marker(l, '|')
		case state != theirs && isSep(l):
			state = theirs
		case state == theirs && isMarker(l, '>'):
			r.End = j + 1
			r.TheirsLabel, _ = marker(l, '>')
			return r, j, true
		case state == theirs && isSep(l):
			return Region{}, 0, false
		case state == ours:
			addLine(&r.OursStart, &r.Ours, j, text)
		case state == base:
			addLine(&r.BaseStart, &r.Base, j, text)
		default:
			addLine(&r.TheirsStart, &r.Theirs, j, text)
		}
	}
	return Region{}, 0, false
}

func isMarker(l []byte, ch byte) bool {
	_, ok := marker(l, ch)
	return ok
}

// addLine appends the text of line index j to a side, noting its first
// line.
func addLine(start *int, lines *[]string, j int, text string) {
	if *start == 0 {
		*start = j + 1
	}
	*lines = append(*lines, text)
}

func isSep(l []byte) bool {
	return string(bytes.TrimRight(l, "\r\n")) == "======="
}

// Replace returns text with region r's lines (Start..End) replaced by
// repl. repl's lines get the region's line break ("\r\n" when the
// "<<<<<<<" line had one); an empty repl removes the region.
func Replace(text []byte, r Region, repl string) ([]byte, error) {
	lines := Lines(text)
	if r.Start < 1 || r.End < r.Start || r.End > len(lines) {
		return nil, fmt.Errorf("conflict %d (lines %d-%d) is outside the text's %d lines", r.ID, r.Start, r.End, len(lines))
	}
	eol := "\n"
	if bytes.HasSuffix(lines[r.Start-1], []byte("\r\n")) {
		eol = "\r\n"
	}
	var buf bytes.Buffer
	for _, l := range lines[:r.Start-1] {
		buf.Write(l)
	}
	if repl != "" {
		repl = strings.ReplaceAll(repl, "\r\n", "\n")
		repl = strings.TrimSuffix(repl, "\n")
		buf.WriteString(strings.ReplaceAll(repl, "\n", eol))
		last := lines[r.End-1]
		if bytes.HasSuffix(last, []byte("\n")) || r.End < len(lines) {
			buf.WriteString(eol)
		}
	}
	for _, l := range lines[r.End:] {
		buf.Write(l)
	}
	return buf.Bytes(), nil
}
