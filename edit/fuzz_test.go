package edit

import (
	"bytes"
	"crypto/sha256"
	"strconv"
	"strings"
	"testing"
)

func FuzzSplitInput(f *testing.F) {
	for _, c := range loadCorpus(f) {
		f.Add(c.Input)
	}
	f.Add("¶a.txt#00ZZ\n[b.txt]\n*** End Patch")
	f.Fuzz(func(t *testing.T, in string) {
		secs, err := SplitInput(in)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T", err)
			}
			return
		}
		for _, s := range secs {
			if s.Path == "" {
				t.Fatalf("empty path")
			}
			if s.Tag != "" && len(s.Tag) != 4 {
				t.Fatalf("tag %q", s.Tag)
			}
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, c := range loadCorpus(f) {
		if secs, err := SplitInput(strings.ReplaceAll(c.Input, "#TAG", "#0000")); err == nil {
			for _, s := range secs {
				f.Add(s.Body)
			}
		}
	}
	for _, b := range []string{"SWAP 1.=2:\n+a", "DEL 3.=4", "DEL.BLK 2:", "INS.PRE 1:\n+x\nINS.POST 2\n+y",
		"INS.HEAD:\n+h\nINS.TAIL:\n+t", "SWAP.BLK 4:\n+b\nINS.BLK.POST 9:\n+c", "REM", "MV 'a b.ts'", "SWAP 1..=3\n+z\nMV x"} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body string) {
		p, err := ParseBody(body)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T", err)
			}
			return
		}
		for _, h := range p.Hunks {
			if h.End < h.Start {
				t.Fatalf("reversed range survived: %+v", h)
			}
			// The op as written parses back to the same op.
			if h2, ok := parseOpHeader(h.Written()); !ok || h2.Kind != h.Kind || h2.Start != h.Start || h2.End != h.End || h2.v2 != h.v2 {
				t.Fatalf("%q does not parse back to %+v: %+v %v", h.Written(), h, h2, ok)
			}
		}
		if p.Remove && (len(p.Hunks) > 0 || p.MoveTo != "") {
			t.Fatalf("REM with other ops survived")
		}
	})
}

// fuzzResolver returns spans derived from the line number, including
// nonsense ones, to exercise the engine's guards.
type fuzzResolver struct{}

func (fuzzResolver) BlockRange(_, text string, line int) (int, int, bool) {
	switch line % 4 {
	case 0:
		return 0, 0, false
	case 1:
		return line, line + line%3, true
	case 2:
		return line, line - 1, true
	default:
		return line, strings.Count(text, "\n") + 5, true
	}
}

// fuzzChecker reports a syntax error on every line holding "#ERR".
type fuzzChecker struct{}

func (fuzzChecker) SyntaxErrors(path, text string) ([]LineRange, bool) {
	var out []LineRange
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "#ERR") {
			out = append(out, LineRange{i + 1, i + 1})
		}
	}
	return out, true
}

// fuzzSeen says the first half of every snapshot's lines (by byte length)
// was shown.
type fuzzSeen struct{}

func (fuzzSeen) Seen(_ string, sum [32]byte) ([]LineRange, bool, error) {
	n := int(sum[0]) % 8
	return []LineRange{{1, n}, {n + 2, n + 3}}, sum[1]%4 != 0, nil
}

type oneSnap struct {
	content []byte
	head    bool
}

func (s oneSnap) Lookup(_, tag string) (Snapshot, bool, error) {
	if s.content == nil || Tag(s.content) != tag {
		return Snapshot{}, false, nil
	}
	return Snapshot{Tag: tag, SHA256: sha256.Sum256(s.content), Content: s.content, Head: s.head}, true, nil
}

func FuzzApply(f *testing.F) {
	for _, c := range loadCorpus(f) {
		secs, err := SplitInput(strings.ReplaceAll(c.Input, "#TAG", "#0000"))
		if err != nil {
			continue
		}
		snap := ""
		if c.Read != nil {
			snap = *c.Read
		}
		f.Add([]byte(c.File), secs[0].Body, []byte(snap), uint8(0))
	}
	f.Add([]byte("a\r\nb\nc\rd"), "replace 2..3:\n+x\ninsert tail:\n+t", []byte{}, uint8(1))
	// The second verb set, mixed with the first, and the file ops.
	f.Add([]byte("a\nb\nc\nd\n"), "SWAP 2.=3:\n+x\nINS.HEAD:\n+h\nDEL 4", []byte{}, uint8(8))
	f.Add([]byte("a\nb\nc\nd\n"), "SWAP.BLK 1:\n+x\nINS.BLK.POST 2:\n+y\ninsert before 4:\n+z", []byte{}, uint8(0))
	f.Add([]byte("if {\n  x\n}\ny\n"), "INS.POST 2:\n+}\nreplace 3..3:\n+  z\nMV b.ts", []byte{}, uint8(16))
	f.Add([]byte("a\nb\n"), "REM", []byte{}, uint8(3))
	f.Add([]byte("a\nb\n"), "DEL.BLK 1\nINS.TAIL:\n+#ERR\nMV \"x y.ts\"", []byte("a\n"), uint8(9))
	f.Fuzz(func(t *testing.T, file []byte, body string, snapContent []byte, mode uint8) {
		opts := Options{Resolver: fuzzResolver{}}
		if mode&16 != 0 {
			opts.Checker = fuzzChecker{}
		}
		if mode&8 != 0 {
			opts.Seen = fuzzSeen{}
		}
		tag := Tag(file)
		switch mode % 4 {
		case 1: // stale, snapshot known
			opts.Snapshots = oneSnap{content: snapContent, head: mode&4 != 0}
			tag = Tag(snapContent)
		case 2: // unknown tag
			tag = "FFFF"
		case 3: // store knows the live file
			opts.Snapshots = oneSnap{content: file, head: true}
		}
		res, err := ApplySection(Section{Path: "f.ts", Tag: tag, Body: body}, File{Path: "f.ts", Key: "k", Bytes: file}, opts)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T", err)
			}
			return
		}
		// The sums and tags a result carries are its contents' (callers
		// commit them without hashing again).
		if res.OldSHA256 != sha256.Sum256(res.Old) || res.OldTag != Tag(res.Old) {
			t.Fatalf("OldSHA256/OldTag %x/%s are not Old's", res.OldSHA256, res.OldTag)
		}
		if !res.Remove && res.NewSHA256 != sha256.Sum256(res.New) {
			t.Fatalf("NewSHA256 %x is not New's", res.NewSHA256)
		}
		if res.Remove {
			if res.New != nil || res.MoveTo != "" || !strings.HasPrefix(res.Text, "Removed ") {
				t.Fatalf("REM result %+v", res)
			}
			return
		}
		// A successful edit re-read gives the tag it reported.
		if res.NewTag != Tag(res.New) {
			t.Fatalf("NewTag %s, Tag(New) %s", res.NewTag, Tag(res.New))
		}
		for _, r := range res.Seen {
			if r.Start < 1 || r.End < r.Start {
				t.Fatalf("bad seen range %+v", r)
			}
		}
		if res.MoveTo != "" {
			return
		}
		if res.NoOp {
			if !bytes.Equal(res.New, file) {
				t.Fatalf("no-op changed bytes")
			}
			return
		}
		if bytes.HasPrefix(file, utf8BOM) != bytes.HasPrefix(res.New, utf8BOM) {
			t.Fatalf("BOM not preserved")
		}
		body2 := bytes.TrimPrefix(res.New, utf8BOM)
		if bytes.HasSuffix(file, []byte("\n")) && len(body2) > 0 && !bytes.HasSuffix(body2, []byte("\n")) {
			t.Fatalf("final newline lost: %q → %q", file, res.New)
		}
		secs, err := SplitInput(strings.SplitN(res.Text, "\n", 2)[0] + "\ninsert tail:\n+x")
		if err != nil || len(secs) != 1 || secs[0].Tag != res.NewTag {
			t.Fatalf("response header does not re-split: %v %+v", err, secs)
		}
		if got, want := applyUnified(t, newDoc(file).lfString(), res.Diff), newDoc(res.New).lfString(); got != want {
			t.Fatalf("diff does not reproduce the result\nold %q\nnew %q\ndiff:\n%s\ngot %q", file, res.New, res.Diff, got)
		}
	})
}

// applyUnified applies a unified diff produced by this package to old (LF
// text) and returns the result.
func applyUnified(t *testing.T, old, diff string) string {
	t.Helper()
	if diff == "" {
		return old
	}
	type tok struct {
		s  string
		nl bool
	}
	toks := func(s string) []tok {
		if s == "" {
			return nil
		}
		parts := strings.Split(s, "\n")
		var out []tok
		for i, p := range parts {
			if i == len(parts)-1 {
				if p != "" {
					out = append(out, tok{p, false})
				}
				break
			}
			out = append(out, tok{p, true})
		}
		return out
	}
	src := toks(old)
	var dst []tok
	pos := 0
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")[2:]
	var last *tok
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "@@ "):
			f := strings.Fields(l)
			r := strings.Split(strings.TrimPrefix(f[1], "-"), ",")
			start, _ := strconv.Atoi(r[0])
			cnt, _ := strconv.Atoi(r[1])
			if cnt > 0 {
				start--
			}
			for pos < start {
				dst = append(dst, src[pos])
				pos++
			}
			last = nil
		case strings.HasPrefix(l, `\ No newline`):
			if last == nil {
				t.Fatalf("stray no-newline marker")
			}
			last.nl = false
		case l[0] == ' ':
			if pos >= len(src) || src[pos].s != l[1:] {
				t.Fatalf("context mismatch at %d: %q", pos, l)
			}
			dst = append(dst, src[pos])
			pos++
			last = &dst[len(dst)-1]
			last.nl = true
		case l[0] == '-':
			if pos >= len(src) || src[pos].s != l[1:] {
				t.Fatalf("removed-line mismatch at %d: %q", pos, l)
			}
			pos++
			x := tok{}
			last = &x
		case l[0] == '+':
			dst = append(dst, tok{l[1:], true})
			last = &dst[len(dst)-1]
		}
	}
	dst = append(dst, src[pos:]...)
	var sb strings.Builder
	for _, x := range dst {
		sb.WriteString(x.s)
		if x.nl {
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}
