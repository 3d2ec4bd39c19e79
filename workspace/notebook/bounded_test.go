package notebook

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
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

// A notebook with a 256 MiB output is read in a pass that never holds the
// output: the cell text says what was elided, and the read allocates a
// few megabytes.
func TestParseReaderHoldsNoOutputs(t *testing.T) {
	const size = 256 << 20
	r := io.MultiReader(
		strings.NewReader(`{"cells": [{"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [{"name": "stdout", "output_type": "stream", "text": ["`),
		&repeatReader{c: 'x', n: size},
		strings.NewReader(`"]}], "source": ["print(1)\n", "x = 2"]}, {"cell_type": "markdown", "metadata": {}, "source": "# Title"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`),
	)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	nb, err := ParseReader(r)
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
	if _, err := nb.Rewrite(want); err == nil {
		t.Error("a streamed notebook was rewritten")
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
