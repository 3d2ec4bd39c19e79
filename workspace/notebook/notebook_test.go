package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// sample is laid out as nbformat writes (indent 1, sorted keys).
const sample = `{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "a1",
   "metadata": {},
   "source": [
    "# Title\n",
    "text <b>"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 3,
   "id": "b2",
   "metadata": {"tags": ["x"]},
   "outputs": [
    {"name": "stdout", "output_type": "stream", "text": ["hi\n"]},
    {"name": "stdout", "output_type": "stream", "text": ["ho\n"]}
   ],
   "source": [
    "print('hi')\n",
    "print('ho')"
   ]
  }
 ],
 "metadata": {"kernelspec": {"name": "python3"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
`

func TestText(t *testing.T) {
	nb, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	want := "# %% [markdown] cell:0\n# Title\ntext <b>\n# %% [code] cell:1 (2 outputs elided)\nprint('hi')\nprint('ho')\n"
	if got := nb.Text(); got != want {
		t.Fatalf("Text:\n%q\nwant\n%q", got, want)
	}
}

func TestRewrite(t *testing.T) {
	nb, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text string
		check      func(t *testing.T, out string)
		err        string
	}{
		{name: "unchanged is byte for byte", text: nb.Text(), check: func(t *testing.T, out string) {
			if out != sample {
				t.Fatalf("changed:\n%s", out)
			}
		}},
		{name: "one cell edited keeps the other's bytes", text: strings.Replace(nb.Text(), "print('ho')", "print('HO')", 1), check: func(t *testing.T, out string) {
			if !strings.Contains(out, sample[strings.Index(sample, "  {\n   \"cell_type\": \"markdown\""):strings.Index(sample, "  },\n")+3]) {
				t.Fatalf("markdown cell bytes changed:\n%s", out)
			}
			if !strings.Contains(out, `"print('HO')"`) || !strings.Contains(out, `"execution_count": 3`) || !strings.Contains(out, `"output_type": "stream"`) {
				t.Fatalf("edited cell lost fields:\n%s", out)
			}
			if !strings.HasSuffix(out, " \"metadata\": {\"kernelspec\": {\"name\": \"python3\"}},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n") {
				t.Fatalf("bytes after the cells changed:\n%s", out)
			}
		}},
		{name: "new cell", text: nb.Text() + "# %% [code]\nx = 1\n", check: func(t *testing.T, out string) {
			nb2, err := Parse([]byte(out))
			if err != nil {
				t.Fatal(err)
			}
			if len(nb2.Cells) != 3 || nb2.Cells[2].Source != "x = 1" || !nb2.Cells[2].hasID {
				t.Fatalf("cells %+v", nb2.Cells)
			}
		}},
		{name: "delete a cell", text: "# %% [code] cell:1\nprint('hi')\nprint('ho')\n", check: func(t *testing.T, out string) {
			nb2, err := Parse([]byte(out))
			if err != nil || len(nb2.Cells) != 1 || nb2.Cells[0].Outputs != 2 {
				t.Fatalf("%v %+v", err, nb2)
			}
		}},
		{name: "not cell text", text: "import os\nprint(1)\n", err: "before the first cell marker"},
		{name: "duplicate index", text: "# %% [code] cell:1\n# %% [code] cell:1\n", err: "appears twice"},
		{name: "missing index", text: "# %% [code] cell:9\n", err: "does not exist"},
		{name: "malformed marker", text: "# %% [code] cell:0\n# %% [code] cell:x\n", err: "looks like a cell marker"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := nb.Rewrite(tc.text)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrShape) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(out) {
				t.Fatalf("invalid JSON:\n%s", out)
			}
			tc.check(t, string(out))
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for _, in := range []string{``, `[]`, `{"cells": 3}`, `{"nbformat": 4}`, `{"cells": [{"cell_type": "weird", "source": ""}]}`, `{"cells": [1]}`} {
		if _, err := Parse([]byte(in)); !errors.Is(err, ErrShape) {
			t.Errorf("Parse(%q) = %v, want ErrShape", in, err)
		}
	}
}

func TestEmptyNotebookGetsCell(t *testing.T) {
	nb, err := Parse([]byte(`{"cells": [], "nbformat": 4}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := nb.Rewrite("# %% [markdown]\nhello\n")
	if err != nil || !json.Valid(out) {
		t.Fatalf("%v\n%s", err, out)
	}
	nb2, _ := Parse(out)
	if len(nb2.Cells) != 1 || nb2.Cells[0].Source != "hello" {
		t.Fatalf("%s", out)
	}
}

// FuzzNotebook: Parse and Rewrite never panic; Rewrite of a notebook's own
// Text is its bytes; any rewrite is valid JSON that parses back with the
// cells the text named.
func FuzzNotebook(f *testing.F) {
	f.Add([]byte(sample), "")
	f.Add([]byte(sample), "# %% [code] cell:1\nx\n# %% [raw]\n")
	f.Add([]byte(`{"cells": []}`), "# %% [markdown]\n<a>\n")
	f.Add([]byte(`{"cells":[{"cell_type":"code","source":"a\n\n"}]}`), "# %% [code] cell:0\na\n\n")
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		nb, err := Parse(data)
		// A stream reads as the bytes do.
		if snb, serr := ParseReader(bytes.NewReader(data)); (serr == nil) != (err == nil) || err == nil && snb.Text() != nb.Text() {
			t.Fatalf("ParseReader: %v, Parse: %v", serr, err)
		}
		if err != nil {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("Parse took JSON that is not valid:\n%q", data)
		}
		same, err := nb.Rewrite(nb.Text())
		if err != nil {
			t.Fatalf("own text refused: %v", err)
		}
		if string(same) != string(data) {
			t.Fatalf("own text changed the bytes:\n%s\n->\n%s", data, same)
		}
		out, err := nb.Rewrite(text)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON:\n%s", out)
		}
		nb2, err := Parse(out)
		if err != nil {
			t.Fatalf("rewrite does not parse: %v\n%s", err, out)
		}
		tcs, _ := ParseText(text)
		if len(nb2.Cells) != len(tcs) {
			t.Fatalf("%d cells, want %d", len(nb2.Cells), len(tcs))
		}
	})
}
