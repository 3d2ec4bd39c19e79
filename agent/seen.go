package agent

import (
	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/treesitter"
	"github.com/hashls/hashls/workspace"
	"time"
)

// EditSettings are the user settings of the edit tool (from the LSP
// settings, or HASHLS_SEEN_LINES / HASHLS_EDIT_HEADERS for the CLI).
type EditSettings struct {
	// AllowUnseen turns off the seen-lines check: hunks may then sit on
	// lines no read displayed, as long as the tag proves the content.
	AllowUnseen bool
	// BracketHeaders prints result headers as [PATH#TAG] (the reference's
	// later form) instead of ¶PATH#TAG; the edit tool's `headers`
	// argument overrides it per call.
	BracketHeaders bool
	// DiagnosticsWait is how long edit, write, edit_file and apply_patch
	// wait for the language server's diagnostics of what they changed
	// (0: they do not; a call's diagnostics argument overrides it).
	DiagnosticsWait time.Duration
	// FormatOnWrite has the language server format what those tools
	// wrote (a call's format argument overrides it).
	FormatOnWrite bool
}

// syntaxErrorser is what the tree-sitter resolver offers beyond blocks.
type syntaxErrorser interface {
	SyntaxErrors(path, text string) ([][2]int, bool)
}

// syntaxChecker adapts the tree-sitter resolver to edit.SyntaxChecker.
type syntaxChecker struct{ r syntaxErrorser }

// Parses reports whether path's language is one tree-sitter parses.
func (c syntaxChecker) Parses(path string) bool { return treesitter.Supported(path) }

func (c syntaxChecker) SyntaxErrors(path, text string) ([]edit.LineRange, bool) {
	spans, ok := c.r.SyntaxErrors(path, text)
	if !ok {
		return nil, false
	}
	out := make([]edit.LineRange, len(spans))
	for i, s := range spans {
		out[i] = edit.LineRange{Start: s[0], End: s[1]}
	}
	return out, true
}

// checkerFor returns the parse proof of the block resolver, if it has one.
func checkerFor(r edit.BlockResolver) edit.SyntaxChecker {
	if s, ok := r.(syntaxErrorser); ok {
		return syntaxChecker{s}
	}
	return nil
}

// storeSeen adapts the workspace store to edit.SeenLines.
type storeSeen struct{ st *workspace.Store }

func (s storeSeen) Seen(key string, sum [32]byte) ([]edit.LineRange, bool, error) {
	rs, known, err := s.st.Seen(key, sum)
	if err != nil || !known {
		return nil, known, err
	}
	return toEditRanges(rs), true, nil
}

func toEditRanges(rs []workspace.LineRange) []edit.LineRange {
	out := make([]edit.LineRange, len(rs))
	for i, r := range rs {
		out[i] = edit.LineRange{Start: r.Start, End: r.End}
	}
	return out
}

func fromEditRanges(rs []edit.LineRange) []workspace.LineRange {
	out := make([]workspace.LineRange, len(rs))
	for i, r := range rs {
		out[i] = workspace.LineRange{Start: r.Start, End: r.End}
	}
	return out
}

// nonNil returns ranges, or an empty list for nil: recorded seen lines
// that say "tracked, nothing displayed".
func nonNil(ranges []workspace.LineRange) []workspace.LineRange {
	if ranges == nil {
		return []workspace.LineRange{}
	}
	return ranges
}

// allLines is the whole of content as read numbers it.
func allLines(content []byte) []workspace.LineRange {
	n := newDisplayLines(content).Len()
	if n == 0 {
		return nil
	}
	return []workspace.LineRange{{Start: 1, End: n}}
}
