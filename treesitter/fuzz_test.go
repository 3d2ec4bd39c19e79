package treesitter

import (
	"context"
	"testing"
)

var fuzzPaths = []string{"f.go", "f.py", "f.ts", "f.rb", "f.yaml", "f.lua"}

func fuzzSeeds(f *testing.F) {
	f.Add("package p\n\nfunc a() {\n\tif x {\n\t}\n}\n", 3, uint8(0))
	f.Add("def f():\n    '''doc'''\n    return 1\n", 2, uint8(1))
	f.Add("class A {\n  m() { return (\n    1); }\n}\n", 2, uint8(2))
	f.Add("class A\n  def m\n  end\nend\n", 2, uint8(3))
	f.Add("a:\n  b: 1\n  c: [1,\n    2]\n", 2, uint8(4))
	f.Add("function f()\n  return 1\nend\n", 1, uint8(5))
	f.Add("\x00\xff{{{(((\n}}", 1, uint8(0))
}

// FuzzBlockRange: never panics; a resolved span starts on the line and
// stays inside the text.
func FuzzBlockRange(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, text string, line int, which uint8) {
		path := fuzzPaths[int(which)%len(fuzzPaths)]
		s, e, ok := DefaultResolver.BlockRange(path, text, line)
		if !ok {
			return
		}
		if s != line || e < s || e > countLines([]byte(text))+1 {
			t.Fatalf("BlockRange(%s, %q, %d) = %d-%d", path, text, line, s, e)
		}
	})
}

// FuzzSummarize: never panics; segments alternate and cover every line;
// symbols, folds and selection ranges don't panic either.
func FuzzSummarize(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, text string, off int, which uint8) {
		path := fuzzPaths[int(which)%len(fuzzPaths)]
		ctx := context.Background()
		o := DefaultSummaryOptions()
		o.UnfoldUntil, o.UnfoldLimit = 5, 10
		s, err := Summarize(ctx, path, []byte(text), o)
		if err != nil {
			t.Fatal(err)
		}
		if s.Parsed {
			checkSegments(t, s)
		}
		DocumentSymbols(ctx, path, []byte(text))
		FoldingRanges(ctx, path, []byte(text))
		SelectionRanges(ctx, path, []byte(text), []int{off, len(text), 0})
	})
}
