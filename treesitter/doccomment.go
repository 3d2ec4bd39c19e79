package treesitter

import "context"

// DocCommentStart returns the first line of the comment that documents the
// code on 1-based line: the comments directly above it, each alone on its
// lines, with no blank line between them or before the line (a structural
// summary shows them above the block, and they go with it). It returns
// line when there is none, the language is unknown or the text does not
// parse.
func DocCommentStart(ctx context.Context, path string, text []byte, line int) int {
	lang := LanguageFor(path)
	if lang == nil || line < 2 {
		return line
	}
	t, err := parse(ctx, lang, text)
	if err != nil || t == nil {
		return line
	}
	// The comments alone on their lines, by their last row.
	starts := map[int]int{}
	for i := range t.nodes {
		if !t.is(uint32(i), classComment) {
			continue
		}
		n := &t.nodes[i]
		last := int(n.EndRow)
		if n.EndCol == 0 && n.EndRow > n.StartRow {
			last-- // the comment ends with its line break
		}
		ln, ok := lineAt(text, int(n.StartRow)+1)
		if !ok || firstContentColumn(ln) != int(n.StartCol) {
			continue // after code on its first line
		}
		if end, ok := lineAt(text, last+1); !ok || trailingCode(end, n, last) {
			continue
		}
		if s, ok := starts[last]; !ok || int(n.StartRow) < s {
			starts[last] = int(n.StartRow)
		}
	}
	first := line // 1-based
	for {
		s, ok := starts[first-2] // a comment ending on the line above
		if !ok {
			return first
		}
		first = s + 1
	}
}

// trailingCode reports whether line (the last of comment n, row last) has
// anything but blanks after the comment.
func trailingCode(line []byte, n *node, last int) bool {
	if int(n.EndRow) != last {
		return false // the comment runs to the end of the line
	}
	for _, b := range line[min(int(n.EndCol), len(line)):] {
		if b != ' ' && b != '\t' && b != '\r' {
			return true
		}
	}
	return false
}
