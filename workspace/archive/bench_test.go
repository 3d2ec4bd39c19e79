package archive

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkListAndRead indexes a 2,000-member zip and reads one member.
func BenchmarkListAndRead(b *testing.B) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < 2000; i++ {
		w, _ := zw.Create(fmt.Sprintf("d%02d/f%04d.txt", i%50, i))
		w.Write(bytes.Repeat([]byte("line of text\n"), 20))
	}
	zw.Close()
	abs := filepath.Join(b.TempDir(), "big.zip")
	os.WriteFile(abs, buf.Bytes(), 0o644)
	f := openT(b, abs)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		idx, err := List(f)
		if err != nil {
			b.Fatal(err)
		}
		idx.Children("d07")
		if _, err := ReadMember(f, "d07/f1007.txt", MaxMemberBytes); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRewriteZip replaces one member of a 2,000-member zip.
func BenchmarkRewriteZip(b *testing.B) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < 2000; i++ {
		w, _ := zw.Create(fmt.Sprintf("d%02d/f%04d.txt", i%50, i))
		w.Write(bytes.Repeat([]byte("line of text\n"), 20))
	}
	zw.Close()
	old := buf.Bytes()
	now := time.Now()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Rewrite(old, Zip, "d07/f1007.txt", []byte("new\n"), now); err != nil {
			b.Fatal(err)
		}
	}
}
