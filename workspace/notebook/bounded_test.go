package notebook

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/hashls/hashls/internal/pieces"
)

// repeatReader yields n bytes of c.
type repeatReader struct {
	c byte
	n int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), r.n))
	for i := range k {
		p[i] = r.c
	}
	r.n -= int64(k)
	return k, nil
}

// bigNotebook is a notebook with one output of n bytes of 'x': read from
// a stream (Reader) and at random (ReadAt), without being held.
type bigNotebook struct{ n int64 }

const (
	bigHead = `{"cells": [{"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [{"name": "stdout", "output_type": "stream", "text": ["`
	bigTail = `"]}], "source": ["print(1)\n", "x = 2"]}, {"cell_type": "markdown", "metadata": {}, "source": "# Title"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`
)

func (b bigNotebook) size() int64 { return int64(len(bigHead)) + b.n + int64(len(bigTail)) }

func (b bigNotebook) Reader() io.Reader {
	return io.MultiReader(strings.NewReader(bigHead), &repeatReader{c: 'x', n: b.n}, strings.NewReader(bigTail))
}

func (b bigNotebook) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		at := off + int64(n)
		switch h := int64(len(bigHead)); {
		case at < h:
			n += copy(p[n:], bigHead[at:])
		case at < h+b.n:
			k := min(int64(len(p)-n), h+b.n-at)
			for i := range k {
				p[n+int(i)] = 'x'
			}
			n += int(k)
		case at < b.size():
			n += copy(p[n:], bigTail[at-h-b.n:])
		default:
			return n, io.EOF
		}
	}
	return n, nil
}

// A notebook with a 256 MiB output is read in a pass that never holds the
// output: the cell text says what was elided, and the read allocates a
// few megabytes. Its rewrite is pieces of the file around the new source,
// which read back as the edited notebook.
func TestParseReaderHoldsNoOutputs(t *testing.T) {
	big := bigNotebook{n: 256 << 20}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	nb, err := ParseReader(big.Reader())
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("reading allocated %d bytes", got)
	}
	want := "# %% [code] cell:0 (1 output elided, 256.0 MiB)\nprint(1)\nx = 2\n# %% [markdown] cell:1\n# Title\n"
	if got := nb.Text(); got != want {
		t.Errorf("Text:\n%s\nwant\n%s", got, want)
	}
	if nb.Size() != big.size() {
		t.Errorf("Size %d, want %d", nb.Size(), big.size())
	}
	if _, err := nb.Rewrite(want); err == nil {
		t.Error("a streamed notebook was rewritten whole")
	}
	edited := strings.Replace(want, "x = 2", "x = 3", 1)
	ps, err := nb.RewritePieces(edited, big)
	if err != nil {
		t.Fatal(err)
	}
	lit := 0
	for _, p := range ps {
		lit += len(p.Data)
	}
	if lit > 100 || pieces.Size(ps) < big.n {
		t.Errorf("pieces: %d new bytes, %d in all", lit, pieces.Size(ps))
	}
	again, err := ParseReader(pieces.Reader(big, ps))
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Text(); got != edited {
		t.Errorf("the rewritten notebook reads as\n%s", got)
	}
	if ps, err := nb.RewritePieces(want, big); err != nil || len(ps) != 1 || ps[0].Data != nil || ps[0].Off != 0 || ps[0].Len != big.size() {
		t.Errorf("unchanged cell text: %v, %v", ps, err)
	}
}

// A notebook read from a stream rewrites to the bytes Parse's rewrites to,
// for every kind of change.
func TestRewritePiecesMatchesRewrite(t *testing.T) {
	src := "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"a = 1\\n\",\n    \"b = 2\"\n   ]\n  },\n  {\n   \"cell_type\": \"markdown\",\n   \"metadata\": {},\n   \"source\": \"# T\"\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n"
	nb, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	sr, err := ParseReader(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	text := nb.Text()
	for _, edited := range []string{
		text,
		strings.Replace(text, "b = 2", "b = 3\nc = 4", 1),
		strings.Replace(text, "[markdown] cell:1", "[code] cell:1", 1),
		text + "# %% [code]\nnew()\n",
		"# %% [markdown] cell:1\n# T\n# %% [code] cell:0\na = 1\nb = 2\n",
		"",
	} {
		want, err := nb.Rewrite(edited)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := sr.RewritePieces(edited, strings.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(pieces.Reader(strings.NewReader(src), ps))
		if err != nil || string(got) != string(want) {
			t.Errorf("cell text %q: pieces make\n%s\nRewrite makes\n%s (%v)", edited, got, want, err)
		}
	}
}

// An edited cell keeps every byte but its source's: its outputs and
// metadata as they were written (here on one line each), and the source
// in the layout the old one had.
func TestEditKeepsCellBytes(t *testing.T) {
	src := "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"metadata\": {\"a\": [1,2]},\n   \"outputs\": [{\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": \"big\"}],\n   \"source\": [\n    \"print(1)\\n\",\n    \"x = 2\"\n   ]\n  },\n  {\"cell_type\": \"markdown\", \"metadata\": {}, \"source\": \"one line\"}\n ],\n \"nbformat\": 4\n}\n"
	nb, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(strings.Replace(nb.Text(), "x = 2", "x = 3\ny = 4", 1), "one line", "two\nlines", 1)
	out, err := nb.Rewrite(text)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(strings.Replace(src,
		"    \"x = 2\"\n", "    \"x = 3\\n\",\n    \"y = 4\"\n", 1),
		`"source": "one line"`, `"source": "two\nlines"`, 1)
	if string(out) != want {
		t.Errorf("rewrite:\n%s\nwant\n%s", out, want)
	}
	if !bytes.Contains(out, []byte(`"outputs": [{"output_type": "stream", "name": "stdout", "text": "big"}]`)) {
		t.Errorf("the outputs' bytes changed")
	}
}
