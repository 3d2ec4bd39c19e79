package workspace

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitSelector(t *testing.T) {
	tests := []struct {
		in      string
		path    string
		sel     Selector
		wantErr string
	}{
		{in: "a.go", path: "a.go"},
		{in: "a.go:raw", path: "a.go", sel: Selector{Raw: true}},
		{in: "a.go:5", path: "a.go", sel: Selector{Ranges: []LineRange{{Start: 5, End: 0}}}},
		{in: "a.go:L5", path: "a.go", sel: Selector{Ranges: []LineRange{{Start: 5, End: 0}}}},
		{in: "a.go:5-", path: "a.go", sel: Selector{Ranges: []LineRange{{Start: 5, End: 0}}}},
		{in: "a.go:5-9", path: "a.go", sel: Selector{Ranges: []LineRange{{Start: 5, End: 9}}}},
		{in: "a.go:L5-L9", path: "a.go", sel: Selector{Ranges: []LineRange{{Start: 5, End: 9}}}},
		{in: "a.go:5+3", path: "a.go", sel: Selector{Ranges: []LineRange{{Start: 5, End: 7}}}},
		{in: "a.go:20-30,5-10", path: "a.go", sel: Selector{Ranges: []LineRange{{Start: 5, End: 10}, {Start: 20, End: 30}}}},
		{in: "a.go:5-10,8-12,13-14", path: "a.go", sel: Selector{Ranges: []LineRange{{Start: 5, End: 14}}}},
		{in: "a.go:5-10:raw", path: "a.go", sel: Selector{Raw: true, Ranges: []LineRange{{Start: 5, End: 10}}}},
		{in: "a.go:100001@51136", path: "a.go", sel: Selector{Ranges: []LineRange{{Start: 100001}}, Byte: 51136}},
		{in: `$'a\n12:x.go'`, path: "a\n12:x.go"},
		{in: `$'a.go:5':5-6`, path: "a.go:5", sel: Selector{Ranges: []LineRange{{Start: 5, End: 6}}}},
		{in: `$'\xff\'':raw:3`, path: "\xff'", sel: Selector{Raw: true, Ranges: []LineRange{{Start: 3}}}},
		{in: "a.go:7@0:raw", path: "a.go", sel: Selector{Raw: true, Ranges: []LineRange{{Start: 7}}}},
		{in: "a.go:raw:5-10", path: "a.go", sel: Selector{Raw: true, Ranges: []LineRange{{Start: 5, End: 10}}}},
		{in: "archive.zip:inner/file.txt", path: "archive.zip:inner/file.txt"},
		{in: "db.sqlite:table:key", path: "db.sqlite:table:key"},
		// Windows drive letters (the same rule on every OS).
		{in: `C:\x\a.go:10-20`, path: `C:\x\a.go`, sel: Selector{Ranges: []LineRange{{Start: 10, End: 20}}}},
		{in: `C:\x\a.go`, path: `C:\x\a.go`},
		{in: `c:/x/a.go:raw:5`, path: `c:/x/a.go`, sel: Selector{Raw: true, Ranges: []LineRange{{Start: 5, End: 0}}}},
		{in: `d:1-2`, path: `d`, sel: Selector{Ranges: []LineRange{{Start: 1, End: 2}}}},
		{in: `C:\`, path: `C:\`},
		{in: `C:/`, path: `C:/`},
		{in: `C:a.go:5`, path: `C:a.go`, sel: Selector{Ranges: []LineRange{{Start: 5, End: 0}}}},
		{in: `a.txt:stream`, path: `a.txt:stream`},
		{in: `C:\x\a.txt:stream:3`, path: `C:\x\a.txt:stream`, sel: Selector{Ranges: []LineRange{{Start: 3, End: 0}}}},
		{in: `\\server\share\a.go:7-8`, path: `\\server\share\a.go`, sel: Selector{Ranges: []LineRange{{Start: 7, End: 8}}}},
		{in: "a.go:0", wantErr: "Line selector 0 is invalid; lines are 1-indexed. Use :1."},
		{in: "a.go:9-5", wantErr: "ends before it starts"},
		{in: "a.go:5+0", wantErr: "at least 1"},
		{in: "a.go:99999999999999999999", wantErr: "out of range"},
		{in: `$'a.go`, wantErr: "closing ' is missing"},
		{in: `$'a.go'x:3`, path: "a.gox", sel: Selector{Ranges: []LineRange{{Start: 3}}}},
		{in: `nl/$'a\nb'/c.go:2`, path: "nl/a\nb/c.go", sel: Selector{Ranges: []LineRange{{Start: 2}}}},
	}
	for _, tt := range tests {
		path, sel, err := SplitSelector(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("SplitSelector(%q) err = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("SplitSelector(%q): %v", tt.in, err)
			continue
		}
		if path != tt.path || !reflect.DeepEqual(sel, tt.sel) {
			t.Errorf("SplitSelector(%q) = %q, %+v; want %q, %+v", tt.in, path, sel, tt.path, tt.sel)
		}
	}
}

func FuzzSplitSelector(f *testing.F) {
	for _, s := range []string{"a:1", "a:1-2,5+3:raw", "a:raw:L3-", "a:0", "::", "a:1,,2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, sel, err := SplitSelector(s)
		if err != nil {
			return
		}
		for i, r := range sel.Ranges {
			if r.Start < 1 || (r.End != 0 && r.End < r.Start) {
				t.Fatalf("bad range %+v from %q", r, s)
			}
			if i > 0 && sel.Ranges[i-1].End != 0 && r.Start <= sel.Ranges[i-1].End+1 {
				t.Fatalf("unmerged ranges %+v from %q", sel.Ranges, s)
			}
		}
	})
}
