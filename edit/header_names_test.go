package edit

import (
	"strings"
	"testing"
)

// Headers name any path: '#' inside it (the tag is the last #XXXX), and
// $'…' quoted elements (names with line breaks, bytes that are not UTF-8,
// leading spaces, …), as results print them.
func TestHeaderNames(t *testing.T) {
	for _, c := range []struct {
		line, path, tag, err string
	}{
		{line: "¶x#1234.txt#125C", path: "x#1234.txt", tag: "125C"},
		{line: "[x#1234.txt#125c]", path: "x#1234.txt", tag: "125C"},
		{line: "¶a#b#c.txt#ABCD", path: "a#b#c.txt", tag: "ABCD"},
		{line: `¶nl/$'a\n12:fake\n¶evil.txt#ABCD\nb.txt'#5BF9`, path: "nl/a\n12:fake\n¶evil.txt#ABCD\nb.txt", tag: "5BF9"},
		{line: `¶$'bad\xff.txt'#3B3B`, path: "bad\xff.txt", tag: "3B3B"},
		{line: `¶$' lead'/sub/x.go#0001`, path: " lead/sub/x.go", tag: "0001"},
		{line: `[$'a\'b']`, path: "a'b"},
		{line: "¶x#1234.txt", err: "with a 4-hex content-hash tag"},
		{line: "¶a.txt#12", err: `got "¶a.txt#12".`},
		{line: "[a.txt#12]", err: `got "[a.txt#12]".`},
		{line: `¶$'a\q'#ABCD`, err: `"¶$'a\\q'#ABCD" has a quoted`},
		{line: `¶$'a\q'#ABCD`, err: `\q is not an escape`},
		{line: `¶$'open#ABCD`, err: "closing ' is missing"},
	} {
		path, tag, ok, err := parseHeader(c.line)
		if c.err != "" {
			if !ok || err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want an error with %q", c.line, err, c.err)
			}
			continue
		}
		if !ok || err != nil || path != c.path || tag != c.tag {
			t.Errorf("%s: %q %q %v %v, want %q %q", c.line, path, tag, ok, err, c.path, c.tag)
		}
		// What header prints reads back.
		if p, tg, _, err := parseHeader(header(c.path, "ABCD", strings.HasPrefix(c.line, "["))); err != nil || p != c.path || tg != "ABCD" {
			t.Errorf("header(%q) reads back as %q %q %v", c.path, p, tg, err)
		}
	}
	if got := header("nl/a\nb", "ABCD", false); got != `¶nl/$'a\nb'#ABCD` {
		t.Errorf("header: %s", got)
	}
	for written, want := range map[string]string{`$'new\nname.txt'`: "new\nname.txt", `"a b.txt"`: "a b.txt", `dir/$'x\x01'/y.go`: "dir/x\x01/y.go"} {
		sec, err := ParseBody("MV " + written)
		if err != nil || sec.MoveTo != want {
			t.Errorf("MV %s: %q %v, want %q", written, sec.MoveTo, err, want)
		}
	}
	if _, err := ParseBody(`MV $'unclosed`); err == nil || !strings.Contains(err.Error(), "does not read") {
		t.Errorf("MV with a bad quote: %v", err)
	}
}
