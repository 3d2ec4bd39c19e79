package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixture files: name → content ("" with a trailing '/' name = directory).
var fixture = []struct{ name, content string }{
	{"dir/", ""},
	{"dir/a.txt", "alpha\nbeta\n"},
	{"dir/sub/b.txt", "b\n"},
	{"top.md", "# top\n"},
	{"./dot.txt", "dot\n"},
	{"../evil.txt", "evil\n"},
	{"/abs.txt", "abs\n"},
}

func makeZip(t testing.TB) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range fixture {
		w, err := zw.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f.content))
	}
	zw.Close()
	return b.Bytes()
}

func makeTar(t testing.TB, gz bool) []byte {
	var b bytes.Buffer
	var out = &b
	var zw *gzip.Writer
	var tw *tar.Writer
	if gz {
		zw = gzip.NewWriter(out)
		tw = tar.NewWriter(zw)
	} else {
		tw = tar.NewWriter(out)
	}
	for _, f := range fixture {
		h := &tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.content)), Typeflag: tar.TypeReg}
		if strings.HasSuffix(f.name, "/") {
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(f.content))
	}
	tw.Close()
	if zw != nil {
		zw.Close()
	}
	return b.Bytes()
}

func writeFixtures(t testing.TB) (dir string, names []string) {
	dir = t.TempDir()
	files := map[string][]byte{"a.zip": makeZip(t), "a.tar": makeTar(t, false), "a.tar.gz": makeTar(t, true), "a.tgz": makeTar(t, true), "a.jar": makeZip(t)}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	return dir, names
}

func TestCandidates(t *testing.T) {
	cases := []struct {
		in   string
		want []Candidate
	}{
		{"a.zip", []Candidate{{Archive: "a.zip"}}},
		{"a.zip:dir/f.txt", []Candidate{{Archive: "a.zip", Member: "dir/f.txt", HasMember: true}}},
		{"x/a.TAR.GZ:f:5-10", []Candidate{{Archive: "x/a.TAR.GZ", Member: "f:5-10", HasMember: true}}},
		{"a.tgz:", []Candidate{{Archive: "a.tgz", HasMember: true}}},
		{"b.zip.d/c.tar:x", []Candidate{{Archive: "b.zip.d/c.tar", Member: "x", HasMember: true}}},
		{"a.zip:b.tar", []Candidate{{Archive: "a.zip", Member: "b.tar", HasMember: true}, {Archive: "a.zip:b.tar"}}},
		{"src/zip.go:10", nil},
		{"a.tar.gzip:x", nil},
		{"lib.jar:META-INF/MANIFEST.MF", []Candidate{{Archive: "lib.jar", Member: "META-INF/MANIFEST.MF", HasMember: true}}},
	}
	for _, c := range cases {
		got := Candidates(c.in)
		if len(got) != len(c.want) {
			t.Errorf("%q: got %+v, want %+v", c.in, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q[%d]: got %+v, want %+v", c.in, i, got[i], c.want[i])
			}
		}
	}
}

func TestNormalizeMember(t *testing.T) {
	cases := []struct {
		in, want string
		dir      bool
		err      string
	}{
		{"", "", false, ""},
		{"a/b.txt", "a/b.txt", false, ""},
		{"./a//b/./c", "a/b/c", false, ""},
		{`a\b.txt`, "a/b.txt", false, ""},
		{"dir/", "dir", true, ""},
		{"../x", "", false, "'..'"},
		{"a/../../x", "", false, "'..'"},
		{"/etc/passwd", "", false, "absolute"},
		{`\x`, "", false, "absolute"},
		{"C:/x", "", false, "drive"},
		{"a\x00b", "", false, "NUL"},
	}
	for _, c := range cases {
		got, dir, err := NormalizeMember(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want || dir != c.dir {
			t.Errorf("%q: %q %v %v, want %q %v", c.in, got, dir, err, c.want, c.dir)
		}
	}
}

func TestListChildrenRead(t *testing.T) {
	dir, names := writeFixtures(t)
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			abs := filepath.Join(dir, n)
			idx, err := List(openT(t, abs))
			if err != nil {
				t.Fatal(err)
			}
			if idx.Unsafe != 2 {
				t.Errorf("unsafe = %d, want 2 (../evil.txt, /abs.txt)", idx.Unsafe)
			}
			kids, ok := idx.Children("")
			var got []string
			for _, k := range kids {
				got = append(got, k.Name+map[bool]string{true: "/", false: ""}[k.Dir])
			}
			if !ok || strings.Join(got, " ") != "dir/ dot.txt top.md" {
				t.Errorf("root children %v %v", got, ok)
			}
			kids, ok = idx.Children("dir")
			if !ok || len(kids) != 2 || kids[0].Name != "sub" || !kids[0].Dir || kids[1].Name != "a.txt" || kids[1].Size != 11 {
				t.Errorf("dir children %+v", kids)
			}
			if _, ok := idx.Children("dir/sub"); !ok {
				t.Error("implicit directory dir/sub missing")
			}
			if _, ok := idx.Children("nope"); ok {
				t.Error("nope exists")
			}
			data, err := ReadMember(openT(t, abs), "dir/a.txt", MaxMemberBytes)
			if err != nil || string(data) != "alpha\nbeta\n" {
				t.Errorf("read: %q %v", data, err)
			}
			if _, err := ReadMember(openT(t, abs), "missing", MaxMemberBytes); !errors.Is(err, ErrNotFound) {
				t.Errorf("missing: %v", err)
			}
			if _, err := ReadMember(openT(t, abs), "dir/a.txt", 3); !errors.Is(err, ErrTooLarge) {
				t.Errorf("too large: %v", err)
			}
			if _, err := ReadMember(openT(t, abs), "evil.txt", MaxMemberBytes); !errors.Is(err, ErrNotFound) {
				t.Errorf("an unsafe member must not be readable under a cleaned name: %v", err)
			}
		})
	}
}

func TestCorrupt(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"bad.zip", "bad.tgz", "bad.tar"} {
		abs := filepath.Join(dir, n)
		os.WriteFile(abs, []byte("this is not an archive at all, just some text that is long enough................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................."), 0o644)
		if _, err := List(openT(t, abs)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: List err %v, want ErrCorrupt", n, err)
		}
		k, _ := KindOf(n)
		old, _ := os.ReadFile(abs)
		if _, err := Rewrite(old, k, "x.txt", []byte("x"), time.Now()); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Rewrite err %v, want ErrCorrupt", n, err)
		}
	}
}

func TestRewrite(t *testing.T) {
	dir, names := writeFixtures(t)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, n := range append(names, "new.zip", "new.tar", "new.tgz") {
		t.Run(n, func(t *testing.T) {
			abs := filepath.Join(dir, n)
			old, _ := os.ReadFile(abs) // nil for new.*
			k, _ := KindOf(n)
			b, err := Rewrite(old, k, "dir/a.txt", []byte("replaced\n"), now)
			if err != nil {
				t.Fatal(err)
			}
			b, err = Rewrite(b, k, "added/c.txt", []byte("c\n"), now)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), n)
			os.WriteFile(out, b, 0o644)
			for name, want := range map[string]string{"dir/a.txt": "replaced\n", "added/c.txt": "c\n"} {
				if got, err := ReadMember(openT(t, out), name, MaxMemberBytes); err != nil || string(got) != want {
					t.Errorf("%s: %q %v", name, got, err)
				}
			}
			idx, _ := List(openT(t, out))
			if old != nil {
				if got, _ := ReadMember(openT(t, out), "dir/sub/b.txt", MaxMemberBytes); string(got) != "b\n" {
					t.Errorf("other member changed: %q", got)
				}
				if idx.Unsafe != 2 {
					t.Errorf("unsafe members not preserved: %d", idx.Unsafe)
				}
				count := 0
				for _, e := range idx.Entries {
					if e.Name == "dir/a.txt" {
						count++
					}
				}
				if count != 1 {
					t.Errorf("dir/a.txt appears %d times", count)
				}
			}
			if old != nil {
				if _, err := Rewrite(old, k, "dir", []byte("x"), now); err == nil || !strings.Contains(err.Error(), "directory") {
					t.Errorf("writing over a directory: %v", err)
				}
			}
			if _, err := Rewrite(old, k, "", []byte("x"), now); err == nil {
				t.Error("empty member accepted")
			}
		})
	}
}

func TestSplitArchivePath(t *testing.T) {
	cases := []struct{ in, archive, member string }{
		{"bundle.zip:src/foo.ts", "bundle.zip", "src/foo.ts"},
		{"a/b.tar.gz:/x", "a/b.tar.gz", "x"},
		{"x.tgz:", "x.tgz", ""},
	}
	for _, c := range cases {
		a, m, ok := SplitArchivePath(c.in)
		if !ok || a != c.archive || m != c.member {
			t.Errorf("%q: %q %q %v", c.in, a, m, ok)
		}
	}
	if _, _, ok := SplitArchivePath("bundle.zip"); ok {
		t.Error("no ':' means no member path")
	}
}

// FuzzNormalizeMember: no panic; a clean name never escapes the archive
// root and normalising it again is the identity.
func FuzzNormalizeMember(f *testing.F) {
	for _, s := range []string{"", "a/b", "../x", "/abs", `a\..\b`, "./a//b/", "C:/x", "a/./../b", "..", "...", "a/.../b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, _, err := NormalizeMember(s)
		if err != nil {
			return
		}
		if strings.HasPrefix(c, "/") || strings.Contains(c, "\\") || strings.HasSuffix(c, "/") {
			t.Fatalf("%q → %q", s, c)
		}
		for _, seg := range strings.Split(c, "/") {
			if c != "" && (seg == ".." || seg == "." || seg == "") {
				t.Fatalf("%q → %q has segment %q", s, c, seg)
			}
		}
		again, dir, err := NormalizeMember(c)
		if err != nil || again != c || dir {
			t.Fatalf("not idempotent: %q → %q → %q %v", s, c, again, err)
		}
	})
}

// FuzzArchive reads real and malformed archive bytes of every kind (List,
// Children, ReadMember, Each) and rewrites a member: nothing may panic or
// read past the member limit, every name listed is safe (no "..", not
// absolute), and a rewrite that succeeds yields an archive whose member
// holds exactly the bytes written.
func FuzzArchive(f *testing.F) {
	f.Add(uint8(0), makeZip(f), "dir/a.txt", []byte("new"))
	f.Add(uint8(1), makeTar(f, false), "x.txt", []byte(""))
	f.Add(uint8(2), makeTar(f, true), "dir/sub/b.txt", []byte("b2\n"))
	f.Add(uint8(3), makeZip(f)[:40], "a", []byte("a"))
	f.Add(uint8(2), []byte("\x1f\x8b\x08\x00garbage"), "a", []byte("a"))
	f.Add(uint8(1), []byte{}, "../evil", []byte("x"))
	dir := f.TempDir()
	names := []string{"f.zip", "f.tar", "f.tgz", "f.jar"}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte, member string, content []byte) {
		name := names[int(kind)%len(names)]
		abs := filepath.Join(dir, name)
		if err := os.WriteFile(abs, data, 0o644); err != nil {
			t.Fatal(err)
		}
		const limit = 1 << 20
		if x, err := List(openT(t, abs)); err == nil {
			for _, e := range x.Entries {
				if strings.Contains("/"+e.Name+"/", "/../") || strings.HasPrefix(e.Name, "/") {
					t.Fatalf("listed unsafe name %q", e.Name)
				}
				if !e.Dir {
					if b, err := ReadMember(openT(t, abs), e.Name, limit); err == nil && len(b) > limit {
						t.Fatalf("ReadMember returned %d bytes, over the %d limit", len(b), limit)
					}
				}
			}
			x.Children("")
		}
		_ = Each(openT(t, abs), func(string) bool { return true }, limit, func(m Member) {
			if len(m.Data) > limit {
				t.Fatalf("Each returned %d bytes, over the limit", len(m.Data))
			}
		})
		k, _ := KindOf(name)
		clean, isDir, err := NormalizeMember(member)
		if err != nil || isDir || clean == "" {
			return
		}
		out, err := Rewrite(data, k, clean, content, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
		if err != nil {
			return
		}
		if err := os.WriteFile(abs, out, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadMember(openT(t, abs), clean, limit)
		if err != nil || string(got) != string(content) {
			t.Fatalf("after rewriting %q the member reads %q (%v), want %q", clean, got, err, content)
		}
	})
}

// openT opens the archive at abs for the test (closed when it ends).
func openT(tb testing.TB, abs string) *os.File {
	tb.Helper()
	f, err := os.Open(abs)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return f
}
