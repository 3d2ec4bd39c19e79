package search

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

func TestCompileSanitizes(t *testing.T) {
	cases := []struct {
		pattern, text string
		want          int
	}{
		{`${platform}`, "x ${platform} y", 0}, // compiles; "$" is still an anchor
		{`\${platform}`, "x ${platform} y", 1},
		{`interface{}`, "var x interface{}", 1},
		{`a{2,4}`, "aaa", 1},
		{`a{2,4}`, "a{2,4}", 0},
		{`{2}`, "x{2}", 1},
		{`f\(x\)`, "f(x)", 1},
		{`[{]`, "{", 1},
		{`x{,3}`, "x{,3}", 1},
	}
	for _, c := range cases {
		m, err := Compile(c.pattern, false)
		if err != nil {
			t.Errorf("Compile(%q): %v", c.pattern, err)
			continue
		}
		if got := m.MatchLines([]byte(c.text), nil); got != c.want {
			t.Errorf("%q on %q: %d matches, want %d (regexp %s)", c.pattern, c.text, got, c.want, m)
		}
	}
	// An unbalanced bracket of any kind is an error, never searched for
	// as something else; the message quotes the pattern as written.
	for _, bad := range []string{`[`, `a**`, `x{1001}`, `(?P<>x)`, `foo(`, `bar)`, `(a|b`, `f(x))`} {
		_, err := Compile(bad, false)
		if err == nil || !strings.HasPrefix(err.Error(), "Invalid regex: ") || strings.Contains(err.Error(), "(?m)") {
			t.Errorf("Compile(%q) = %v, want Invalid regex", bad, err)
		}
	}
}

func TestMultilineOnlyWithNewline(t *testing.T) {
	m, _ := Compile(`a\nb`, false)
	if !m.Multiline() {
		t.Fatal("want multiline")
	}
	if n := m.MatchLines([]byte("x\na\nb\nc\n"), nil); n != 2 {
		t.Fatalf("got %d lines, want 2 (a and b)", n)
	}
	m, _ = Compile(`a\sb`, false)
	if m.Multiline() {
		t.Fatal("want single-line mode")
	}
	if n := m.MatchLines([]byte("a\nb\n"), nil); n != 0 {
		t.Fatalf("single-line mode matched across lines")
	}
}

// TestFoldPrefilterIsSafe: k and s fold to non-ASCII runes; the ASCII
// prefilter must not reject those.
func TestFoldPrefilterIsSafe(t *testing.T) {
	cases := []struct{ pattern, text string }{
		{"kelvin", "\u212Aelvin"},
		{"class", "cla\u017F\u017F"},
		{"deadline exceeded", "DeadLine EXCEEDED"},
		{"ünïcode", "ÜNÏCODE"},
	}
	for _, c := range cases {
		m, err := Compile(c.pattern, true)
		if err != nil {
			t.Fatal(err)
		}
		if n := m.MatchLines([]byte("x\n"+c.text+"\ny"), nil); n != 1 {
			t.Errorf("(?i)%q on %q: %d", c.pattern, c.text, n)
		}
	}
}

// TestMatchLinesAgreesWithNaive compares the prefiltered scan with a
// line-by-line regexp on random text.
func TestMatchLinesAgreesWithNaive(t *testing.T) {
	patterns := []string{`foo`, `fo+`, `\bbar\b`, `^ba`, `z$`, `a.c`, `(?:foo|baz)\d`, `x*`, `[^a]b`, `f\s+o`, `ó`, `FOO`, `o\(1`}
	r := rand.New(rand.NewSource(1))
	alphabet := []string{"foo", "bar", "baz", "a", "b", "c", " ", "\n", "\n", "z", "1", "ó", "\r", "(", "\t", "FOO", "xx"}
	for iter := 0; iter < 300; iter++ {
		var sb strings.Builder
		for i := r.Intn(200); i > 0; i-- {
			sb.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		text := sb.String()
		for _, p := range patterns {
			for _, ic := range []bool{false, true} {
				m, err := Compile(p, ic)
				if err != nil {
					t.Fatal(err)
				}
				flags := "(?m)"
				if ic {
					flags = "(?mi)"
				}
				re := regexp.MustCompile(flags + p)
				want := 0
				lines := strings.Split(text, "\n")
				if strings.HasSuffix(text, "\n") || text == "" {
					lines = lines[:len(lines)-1] // no line after the final newline
				}
				for _, l := range lines {
					if re.MatchString(l) {
						want++
					}
				}
				if got := m.MatchLines([]byte(text), nil); got != want {
					t.Fatalf("pattern %q i=%v on %q: got %d, want %d", p, ic, text, got, want)
				}
				// Streaming with a tiny buffer gives the same count and lines.
				var got2 []int
				fr, _, err := m.ScanReader(iotest(text), make([]byte, 0, 64<<10), func(n int, line []byte) bool {
					got2 = append(got2, n)
					if !re.Match(line) {
						t.Fatalf("reported line %d %q does not match", n, line)
					}
					return true
				})
				if err != nil || fr.Lines != want || len(got2) != want {
					t.Fatalf("ScanReader %q on %q: %+v %v, want %d", p, text, fr, err, want)
				}
			}
		}
	}
}

func iotest(s string) io.Reader { return strings.NewReader(s) }

// genReader produces size bytes of text lazily: numbered lines, with a
// marker on every 100000th line.
type genReader struct {
	size, off int64
	line      int
	pending   []byte
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.off >= g.size {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && g.off < g.size {
		if len(g.pending) == 0 {
			g.line++
			if g.line%100000 == 0 {
				g.pending = []byte("here is the NEEDLE in a haystack of lines, line after line after line\n")
			} else {
				g.pending = []byte("just an ordinary line of text that has nothing much in it at all.....\n")
			}
		}
		c := copy(p[n:], g.pending)
		if rem := g.size - g.off; int64(c) > rem {
			c = int(rem)
		}
		g.pending = g.pending[c:]
		n += c
		g.off += int64(c)
	}
	return n, nil
}

// TestStreamsHugeInput searches 256 MiB of generated text through a 256
// KiB buffer: memory stays bounded, line numbers are right. (A 1 GiB sparse
// file goes through Scan in TestScanHugeSparseFile.)
func TestStreamsHugeInput(t *testing.T) {
	size := int64(256 << 20)
	if testing.Short() {
		size = 32 << 20
	}
	m, _ := Compile("NEEDLE", false)
	var lines []int
	fr, buf, err := m.ScanReader(&genReader{size: size}, nil, func(n int, line []byte) bool {
		lines = append(lines, n)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if cap(buf) > 1<<20 {
		t.Errorf("buffer grew to %d bytes", cap(buf))
	}
	wantN := int(size/70) / 100000
	if fr.Lines != wantN || len(lines) != wantN {
		t.Fatalf("got %d matches, want %d", fr.Lines, wantN)
	}
	for i, n := range lines {
		if n != (i+1)*100000 {
			t.Fatalf("match %d on line %d, want %d", i, n, (i+1)*100000)
		}
	}
}

func TestBinaryAndTooLong(t *testing.T) {
	m, _ := Compile("x", false)
	fr, _, err := m.ScanReader(strings.NewReader("x\nx\x00"), nil, nil)
	if err != nil || !fr.Binary || fr.Lines != 0 {
		t.Fatalf("binary: %+v %v", fr, err)
	}
	old := maxLineBytes
	maxLineBytes = 1 << 20
	defer func() { maxLineBytes = old }()
	_, _, err = m.ScanReader(io.LimitReader(repeatReader('x'), 3<<20), nil, nil)
	if !errors.Is(err, ErrTooLong) {
		t.Fatalf("long line: %v", err)
	}
	// Non-UTF-8 content is searched as bytes.
	m, _ = Compile("caf.", false)
	if n := m.MatchLines([]byte("caf\xe9\n"), nil); n != 1 {
		t.Fatalf("latin-1 line: %d", n)
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func BenchmarkMatchLinesLiteral(b *testing.B) {
	text := bytes.Repeat([]byte("func foo(ctx context.Context) error { return nil }\n"), 20000)
	m, _ := Compile(`func \w+\(ctx context\.Context`, false)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		m.MatchLines(text, nil)
	}
}

// FuzzCompile: the brace/paren sanitizer and the prefilter never panic, and
// a compiled pattern counts the same lines as a plain line-by-line regexp.
func FuzzCompile(f *testing.F) {
	f.Add("func \\w+\\(ctx", "func f(ctx\nx", false)
	f.Add("${x}(", "${x}(\n", true)
	f.Add("(?i)k{2,}s", "KK\u017F\n", false)
	f.Fuzz(func(t *testing.T, pattern, text string, ic bool) {
		m, err := Compile(pattern, ic)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "Invalid regex: ") {
				t.Fatalf("error %q lacks the prefix", err)
			}
			return
		}
		if m.Multiline() {
			m.MatchLines([]byte(text), nil)
			return
		}
		re := m.re
		want := 0
		lines := strings.Split(text, "\n")
		if strings.HasSuffix(text, "\n") || text == "" {
			lines = lines[:len(lines)-1]
		}
		for _, l := range lines {
			if re.MatchString(l) {
				want++
			}
		}
		if got := m.MatchLines([]byte(text), nil); got != want {
			t.Fatalf("%q (i=%v) on %q: %d lines, want %d", pattern, ic, text, got, want)
		}
	})
}

// pieceReader returns at most n bytes a read (and can seek), so that
// reads end anywhere in a line.
type pieceReader struct {
	*bytes.Reader
	n int
}

func (r pieceReader) Read(p []byte) (int, error) { return r.Reader.Read(p[:min(len(p), r.n)]) }

// Counting lines longer than the buffer: a long line without the literal
// is read past, one with it is counted (literal-only pattern) or read again
// whole (regexp); the counts are those of MatchLines over the whole text,
// however the reads are cut, with or without a Seeker.
func TestScanReaderLongLines(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	long := func(n int) string { return strings.Repeat("abcdefgh", n/8) }
	for _, pat := range []string{"needle", `need\w+e`, "NEEDLE", `x.needle`} {
		ic := pat == "NEEDLE"
		m, err := Compile(pat, ic)
		if err != nil {
			t.Fatal(err)
		}
		for iter := range 25 {
			var b strings.Builder
			for range 1 + r.Intn(6) {
				switch r.Intn(5) {
				case 0:
					b.WriteString("short needle line\n")
				case 1:
					b.WriteString("short line\n")
				case 2:
					l := long(64<<10 + r.Intn(200<<10))
					at := r.Intn(len(l))
					b.WriteString(l[:at] + "x needle" + l[at:] + "\n")
				default:
					b.WriteString(long(64<<10+r.Intn(200<<10)) + "\n")
				}
			}
			text := b.String()
			if iter%3 == 0 {
				text = strings.TrimSuffix(text, "\n")
			}
			want := m.MatchLines([]byte(text), nil)
			for _, rd := range []io.Reader{
				bytes.NewReader([]byte(text)),
				pieceReader{bytes.NewReader([]byte(text)), 1 + r.Intn(70<<10)},
				struct{ io.Reader }{strings.NewReader(text)}, // no Seeker
			} {
				fr, _, err := m.ScanReader(rd, make([]byte, 64<<10), nil)
				if err != nil || fr.Lines != want || fr.Binary {
					t.Fatalf("%q iter %d (%T): %+v %v, want %d lines", pat, iter, rd, fr, err, want)
				}
			}
		}
	}
	// A literal cut between two reads of a long line (the first read fills
	// the 64 KiB buffer, the next ones follow the kept tail).
	for _, pat := range []string{"needle", `need\w+e`} {
		m, _ := Compile(pat, false)
		for _, at := range []int{64<<10 - 8, 64<<10 - 5, 64<<10 - 3, 64<<10 - 1, 64 << 10, 128<<10 - 2 - 5, 128<<10 - 2 - 3} {
			l := long(300 << 10)
			text := l[:at] + "needle" + l[at:] + "\nshort\n"
			for _, rd := range []io.Reader{strings.NewReader(text), struct{ io.Reader }{strings.NewReader(text)}} {
				fr, _, err := m.ScanReader(rd, make([]byte, 64<<10), nil)
				if err != nil || fr.Lines != 1 {
					t.Fatalf("%q at %d (%T): %+v %v, want 1 line", pat, at, rd, fr, err)
				}
			}
		}
	}
	// Too long stays too long, a NUL after a long line is still seen,
	// the line count goes on after a skipped line.
	old := maxLineBytes
	maxLineBytes = 1 << 20
	defer func() { maxLineBytes = old }()
	m, _ := Compile("needle", false)
	cases := []struct {
		text   string
		lines  int
		binary bool
		err    error
	}{
		{long(1<<20) + "\n", 0, false, ErrTooLong},
		{long(1<<20-8) + "\nneedle\n", 1, false, nil},
		{long(2<<20) + "needle", 0, false, ErrTooLong},
		{long(300<<10) + "\n\x00", 0, true, nil},
		{long(300<<10) + "needle" + long(300<<10) + "\nneedle\n" + long(300<<10), 2, false, nil},
	}
	for i, c := range cases {
		fr, _, err := m.ScanReader(strings.NewReader(c.text), nil, nil)
		if !errors.Is(err, c.err) || (c.err == nil && (fr.Lines != c.lines || fr.Binary != c.binary)) {
			t.Errorf("case %d: %+v %v, want %d lines binary %v err %v", i, fr, err, c.lines, c.binary, c.err)
		}
	}
}
