package names

import (
	"errors"
	"strings"
	"testing"
)

func TestShow(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a.txt", "a.txt"},
		{"dir/x#1234.txt", "dir/x#1234.txt"},
		{"with space.txt", "with space.txt"},
		{"日本.go", "日本.go"},
		{`back\slash`, `back\slash`},
		{"a\n12:fake\n¶evil.txt#ABCD\nb.txt", `$'a\n12:fake\n¶evil.txt#ABCD\nb.txt'`},
		{"cr\r.txt", `$'cr\r.txt'`},
		{"tab\t'q'.txt", `$'tab\t\'q\'.txt'`},
		{"\xff\xfe.bin", `$'\xff\xfe.bin'`},
		{"bell\a", `$'bell\x07'`},
		{"ls\u2028ps", `$'ls\u2028ps'`},
		{"rtl\u202eexe.txt", `$'rtl\u202eexe.txt'`},
		{" lead", "$' lead'"},
		{"trail ", "$'trail '"},
		{`"quoted"`, `$'"quoted"'`},
		{"$'x'", `$'$\'x\''`},
		{"*star", "$'*star'"},
		{"Update File: x", "$'Update File: x'"},
		{"a#ABCD", "$'a#ABCD'"},
		{"a.txt:5", "$'a.txt:5'"},
		{"a.txt:1-2,4", "$'a.txt:1-2,4'"},
		{"a.txt:9@3", "$'a.txt:9@3'"},
		{"a.txt:raw", "$'a.txt:raw'"},
		{"a.txt:conflict:2", "$'a.txt:conflict:2'"},
		{"a.txt:stream", "a.txt:stream"},
		{"\U0001f600.txt", "\U0001f600.txt"},
		{"nbsp\u00a0x", `$'nbsp\u00a0x'`},
		{"x\U000e0001", `$'x\U000e0001'`},
		{"nl/a\nb/c.txt", `nl/$'a\nb'/c.txt`},
		{"a b/ c/d", `a b/$' c'/d`},
	} {
		if got := Show(c.in); got != c.want {
			t.Errorf("Show(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// Every name reads back from what Show writes, with what follows.
func TestCutRoundTrip(t *testing.T) {
	for _, name := range []string{"a\n12:fake\n¶evil.txt#ABCD\nb.txt", "\xff\x00\x7f'\\\"", " x ", "ls\u2028\U000e0001", "plain"} {
		q := Quote(name)
		got, rest, ok, err := Cut(q + ":5-6")
		if !ok || err != nil || got != name || rest != ":5-6" {
			t.Errorf("Cut(%s) = %q %q %v %v, want %q", q, got, rest, ok, err, name)
		}
	}
	if _, rest, ok, err := Cut("plain.txt:3"); ok || err != nil || rest != "plain.txt:3" {
		t.Errorf("a plain name: %q %v %v", rest, ok, err)
	}
	if got, rest, ok, err := Cut(`nl/$'a\nb'/$'\x01'/c.txt:5`); !ok || err != nil || got != "nl/a\nb/\x01" || rest != "/c.txt:5" {
		t.Errorf("quoted elements: %q %q %v %v", got, rest, ok, err)
	}
	if got, rest, ok, err := Cut(`a$'b'/x`); ok || err != nil || got != "" || rest != `a$'b'/x` {
		t.Errorf("$' inside an element is not a quote: %q %q %v %v", got, rest, ok, err)
	}
	for in, want := range map[string]string{
		`$'abc`:     "closing ' is missing",
		`$'a\q'`:    `\q is not an escape`,
		`$'a\x4`:    `\x needs 2 hex digits`,
		`$'a\xzz'`:  `\xzz is not 2 hex digits`,
		`$'\ud800'`: "is not a character",
		`$'a\`:      "lone \\",
	} {
		_, _, ok, err := Cut(in)
		if !ok || !errors.Is(err, ErrQuote) || !strings.Contains(err.Error(), want) {
			t.Errorf("Cut(%s): %v %v, want %q", in, ok, err, want)
		}
	}
}

func FuzzCut(f *testing.F) {
	for _, s := range []string{"a", "a\nb", "\xff", "$'x'", " x", "a.txt:5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		shown := Show(name)
		if strings.ContainsAny(shown, "\n\r") {
			t.Fatalf("Show(%q) = %q holds a line break", name, shown)
		}
		if shown == name {
			return
		}
		got, rest, ok, err := Cut(shown)
		if !ok || err != nil || got+rest != name {
			t.Fatalf("Cut(Show(%q)) = %q %q %v %v", name, got, rest, ok, err)
		}
	})
}
