package search

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

func TestSplitArchivePath(t *testing.T) {
	cases := []struct{ in, archive, member string }{
		{"bundle.zip:src/foo.ts", "bundle.zip", "src/foo.ts"},
		{"a/b.tar.gz:/x", "a/b.tar.gz", "x"},
		{"lib.JAR:META-INF/MANIFEST.MF", "lib.JAR", "META-INF/MANIFEST.MF"},
		{"x.tgz:", "x.tgz", ""},
	}
	for _, c := range cases {
		a, m, ok := SplitArchivePath(c.in)
		if !ok || a != c.archive || m != c.member {
			t.Errorf("%q: %q %q %v", c.in, a, m, ok)
		}
	}
	if _, _, ok := SplitArchivePath("src/zip.go:10"); ok {
		t.Error("not an archive")
	}
}

func TestReadArchive(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"src/a.txt": "hello\n", "big.txt": string(bytes.Repeat([]byte("x"), 100))}
	// zip
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for n, c := range files {
		w, _ := zw.Create(n)
		w.Write([]byte(c))
	}
	zw.Close()
	os.WriteFile(filepath.Join(dir, "a.zip"), zb.Bytes(), 0o644)
	// tar.gz
	var tb bytes.Buffer
	gz := gzip.NewWriter(&tb)
	tw := tar.NewWriter(gz)
	for n, c := range files {
		tw.WriteHeader(&tar.Header{Name: "./" + n, Mode: 0o644, Size: int64(len(c)), Typeflag: tar.TypeReg})
		tw.Write([]byte(c))
	}
	tw.Close()
	gz.Close()
	os.WriteFile(filepath.Join(dir, "a.tar.gz"), tb.Bytes(), 0o644)
	for _, name := range []string{"a.zip", "a.tar.gz"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		ms, err := ReadArchive(f, func(string) bool { return true }, 50)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, m := range ms {
			got[m.Name] = string(m.Data) + m.Skipped
		}
		if got["src/a.txt"] != "hello\n" || got["big.txt"] != "too large" {
			t.Errorf("%s: %v", name, got)
		}
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("text"), 0o644)
	f, _ := os.Open(filepath.Join(dir, "a.txt"))
	defer f.Close()
	if _, err := ReadArchive(f, func(string) bool { return true }, 50); err == nil {
		t.Error("not an archive: no error")
	}
}
