package edit

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func makeLines(n int, crlf bool) []byte {
	b := make([]byte, 0, n*60)
	for i := 1; i <= n; i++ {
		b = append(b, "\tline "...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, " of the generated file: value = compute("...)
		b = strconv.AppendInt(b, int64(i*7), 10)
		b = append(b, ");"...)
		if crlf {
			b = append(b, '\r')
		}
		b = append(b, '\n')
	}
	return b
}

func fiftyHunks(lines int) string {
	var sb strings.Builder
	step := lines / 50
	for i := 0; i < 50; i++ {
		n := i*step + 1
		switch i % 3 {
		case 0:
			fmt.Fprintf(&sb, "replace %d..%d:\n+\tchanged %d\n+\tadded %d\n", n, n+1, i, i)
		case 1:
			fmt.Fprintf(&sb, "insert after %d:\n+\tinserted %d\n", n, i)
		default:
			fmt.Fprintf(&sb, "delete %d\n", n)
		}
	}
	return sb.String()
}

func BenchmarkApply50Hunks10kLines(b *testing.B) {
	file := makeLines(10000, false)
	sec := Section{Path: "big.go", Tag: Tag(file), Body: fiftyHunks(10000)}
	f := File{Path: "big.go", Key: "big.go", Bytes: file}
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := ApplySection(sec, f, Options{})
		if err != nil || res.NoOp {
			b.Fatal(err)
		}
	}
}

func BenchmarkTag1MiB(b *testing.B) {
	file := makeLines(1<<20/52, false)
	file = file[:1<<20]
	b.SetBytes(int64(len(file)))
	for b.Loop() {
		Tag(file)
	}
}

func BenchmarkTag1MiBCRLF(b *testing.B) {
	file := makeLines(1<<20/52, true)
	file = file[:1<<20]
	b.SetBytes(int64(len(file)))
	for b.Loop() {
		Tag(file)
	}
}

func TestApply50HunksMatchesNaive(t *testing.T) {
	file := makeLines(10000, true)
	res, err := ApplySection(Section{Path: "big.go", Tag: Tag(file), Body: fiftyHunks(10000)}, File{Path: "big.go", Bytes: file}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := applyUnified(t, newDoc(file).lfString(), res.Diff), newDoc(res.New).lfString(); got != want {
		t.Fatalf("diff does not reproduce the result")
	}
	if bytes.Count(res.New, []byte("\r\n")) != bytes.Count(res.New, []byte("\n")) {
		t.Fatalf("CRLF file gained LF-only lines")
	}
	if strings.Count(res.Diff, "\n@@ ") < 40 {
		t.Fatalf("expected separate hunks, got:\n%s", res.Diff)
	}
}

// A 64 MiB file edits correctly and in bounded time.
func TestApplyHugeFile(t *testing.T) {
	file := makeLines(64<<20/56, false)
	lines := bytes.Count(file, []byte("\n"))
	body := fmt.Sprintf("replace 1..1:\n+first\ninsert after %d:\n+middle\ndelete %d\ninsert tail:\n+end", lines/2, lines)
	res, err := ApplySection(Section{Path: "huge.txt", Tag: Tag(file), Body: body}, File{Path: "huge.txt", Bytes: file}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(res.New, []byte("first\n\tline 2 ")) || !bytes.HasSuffix(res.New, []byte("\nend\n")) {
		t.Fatalf("unexpected ends: %q … %q", res.New[:20], res.New[len(res.New)-40:])
	}
	if !bytes.Contains(res.New, []byte("\nmiddle\n")) {
		t.Fatalf("middle insert missing")
	}
	if strings.Count(res.Diff, "\n@@ ") != 3 {
		t.Fatalf("diff:\n%s", res.Diff)
	}
}
