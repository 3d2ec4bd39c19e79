package agent

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashls/hashls/workspace"
)

var (
	continueRE = regexp.MustCompile(`Use (\S+) to continue\.\]\n$`)
	rowRE      = regexp.MustCompile(`^(\d+)(?:@(\d+))?:(.*)$`)
)

// Every page names a selector that makes progress, and following them
// from any line shows every byte of the file once: a line longer than a
// page (the 2 GiB line, here 200 KiB) is shown in pieces, each
// naming the next, also when the page starts with the line before it as
// context (read f:N used to name f:N again, forever).
func TestReadPagingProgress(t *testing.T) {
	env := newTestEnv(t)
	long := strings.Repeat("0123456789abcdé", 14000) // 224,000 bytes, runes cut at page ends
	var f strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&f, "line %d\n", i)
	}
	f.WriteString(long + "\nafter\n" + long)
	writeRootFile(t, env, "f.txt", f.String())
	old := readStreamMin
	t.Cleanup(func() { readStreamMin = old })
	for _, streamMin := range []int64{1 << 40, 0} { // whole, streamed
		readStreamMin = streamMin
		for _, start := range []string{"f.txt", "f.txt:99", "f.txt:100", "f.txt:101", "f.txt:102", "f.txt:103", "f.txt:101@5"} {
			// Every piece shown, by line and byte offset.
			pieces := map[int]map[int]string{}
			sel, seen := start, map[string]bool{}
			for pages := 0; sel != ""; pages++ {
				if seen[sel] || pages > 40 {
					t.Fatalf("streamed %v, from %s: %s is named again (pages %d)", streamMin == 0, start, sel, pages)
				}
				seen[sel] = true
				res, err := runTool(env, "read", map[string]any{"path": sel})
				if err != nil {
					t.Fatalf("%s: %v", sel, err)
				}
				body, _, _ := strings.Cut(res.Text, "\n\n[Showing")
				for _, row := range strings.Split(strings.TrimSuffix(body, "\n"), "\n")[1:] {
					m := rowRE.FindStringSubmatch(row)
					if m == nil {
						t.Fatalf("%s: row %.40q", sel, row)
					}
					n, off := atoi(m[1]), 0
					if m[2] != "" {
						off = atoi(m[2])
					}
					if pieces[n] == nil {
						pieces[n] = map[int]string{}
					}
					pieces[n][off] = strings.TrimSuffix(m[3], "…")
				}
				sel = ""
				if m := continueRE.FindStringSubmatch(res.Text); m != nil {
					sel = m[1]
				}
			}
			lines := strings.Split(strings.TrimSuffix(f.String(), "\n"), "\n")
			_, ss, _ := workspace.SplitSelector(start)
			from := 1
			if len(ss.Ranges) > 0 {
				from = ss.Ranges[0].Start
			}
			for n := from; n <= len(lines); n++ {
				at := 0
				if n == from {
					at = ss.Byte
				}
				var got strings.Builder
				for off := at; ; {
					p, ok := pieces[n][off]
					if !ok || p == "" {
						break
					}
					got.WriteString(p)
					off += len(p)
				}
				if want := lines[n-1][at:]; got.String() != want {
					t.Fatalf("streamed %v, from %s: line %d shown as %d bytes, want %d", streamMin == 0, start, n, got.Len(), len(want))
				}
			}
		}
	}
	// The numbered rows of a piece say where in the line they start.
	readStreamMin = 1 << 40
	res, err := runTool(env, "read", map[string]any{"path": "f.txt:101"})
	if err != nil {
		t.Fatal(err)
	}
	m := continueRE.FindStringSubmatch(res.Text)
	if !strings.Contains(res.Text, "\n100:line 100\n101:0123456789") || m == nil || !strings.HasPrefix(m[1], "f.txt:101@") {
		t.Fatalf("f.txt:101:\n%.200s\n…%s", res.Text, res.Text[len(res.Text)-200:])
	}
	d := res.Details.(*readDetails)
	if d.Truncation == nil || d.Truncation.NextOffset != 101 || d.Truncation.NextByte == 0 || d.Truncation.LineBytes != len(long) {
		t.Errorf("truncation %+v", d.Truncation)
	}
	res, err = runTool(env, "read", map[string]any{"path": m[1]})
	if err != nil || !strings.HasPrefix(strings.SplitN(res.Text, "\n", 2)[1], "101@"+strings.TrimPrefix(m[1], "f.txt:101@")+":") {
		t.Errorf("%s: %v\n%.200s", m[1], err, res.Text)
	}
	if _, err := runTool(env, "read", map[string]any{"path": "f.txt:102@9"}); err != nil {
		t.Fatal(err)
	} else if res, _ := runTool(env, "read", map[string]any{"path": "f.txt:102@9"}); !strings.Contains(res.Text, "Byte 9 is past the end of line 102") {
		t.Errorf("a byte past the end: %s", res.Text)
	}
}
