package agent

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/workspace"
)

// A streamed read shows what the whole-file read shows (text, details,
// tag over the whole file), records the snapshot by sha256 and size with
// the lines shown (so an edit of them is accepted), and keeps only a page.
func TestReadStreamedMatchesWholeRead(t *testing.T) {
	ws, err := workspace.Open(t.TempDir(), workspace.Options{StateDir: t.TempDir(), Limits: workspace.Limits{MaxContentBytes: 64, MaxVersions: 8, MaxTotalContentBytes: 1 << 30, MaxTrashBytes: 1 << 30}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	env := &Env{WS: ws}
	var big strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&big, "line %d with trailing space \r\n", i)
	}
	files := map[string]string{
		"big.txt":  big.String(),
		"bom.txt":  "\xEF\xBB\xBFfirst\nsecond\rthird\r\nfourth  \t" + strings.Repeat("x", 100),
		"long.txt": "short\n" + strings.Repeat("é", 40000) + "\nafter\n",
		"zero.txt": strings.Repeat("a", 100) + "\x00", // not nul.txt: a device name on Windows
	}
	for name, c := range files {
		writeRootFile(t, env, name, c)
	}
	selectors := []string{"", ":1", ":2-3", ":4999-", ":10-12,4000-4001", ":5001", ":1-5:raw", ":raw", ":2+2", ":3000-", ":2@7", ":2@51136", ":2@80000", ":2@80001", ":1@3:raw"}
	old := readStreamMin
	t.Cleanup(func() { readStreamMin = old })
	for name := range files {
		for _, s := range selectors {
			path := name + s
			readStreamMin = 1 << 40
			want, wantErr := runTool(env, "read", map[string]any{"path": path})
			readStreamMin = 0
			got, gotErr := runTool(env, "read", map[string]any{"path": path})
			if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
				t.Errorf("%s: err %v, want %v", path, gotErr, wantErr)
				continue
			}
			if wantErr != nil {
				continue
			}
			if got.Text != want.Text {
				t.Errorf("%s: streamed text differs:\n%.300s\nwant\n%.300s", path, got.Text, want.Text)
			}
			if !reflect.DeepEqual(got.Details, want.Details) {
				t.Errorf("%s: details %+v, want %+v", path, got.Details, want.Details)
			}
		}
	}
	// The tag is the whole file's; the recorded snapshot (size only, as
	// the store keeps no content this large) lets an edit of a shown line in.
	readStreamMin = 0
	res, err := runTool(env, "read", map[string]any{"path": "big.txt:2500-2501"})
	if err != nil {
		t.Fatal(err)
	}
	tag := edit.Tag([]byte(files["big.txt"]))
	if !strings.HasPrefix(res.Text, "¶big.txt#"+tag+"\n") {
		t.Fatalf("tag: %.40s, want %s", res.Text, tag)
	}
	snap, ok, err := env.WS.Store().Lookup(filepath.Join(ws.Root(), "big.txt"), tag)
	if err != nil || !ok || snap.Kept || snap.Size != int64(len(files["big.txt"])) {
		t.Fatalf("snapshot %+v %v %v", snap, ok, err)
	}
	if _, err := runTool(env, "edit", map[string]any{"input": "¶big.txt#" + tag + "\nreplace 2500..2500:\n+changed"}); err != nil {
		t.Fatalf("edit after a streamed read: %v", err)
	}
}

// The line streamer keeps what splitDisplayLines gives for the wanted
// lines, and counts every line, however the stream is cut and wherever
// the wanted lines are (bulk counting of unwanted lines, "\r\n" cut
// between pieces, a BOM cut).
func TestLineStreamerMatchesSplit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("ab \n\n\n\r\xEF\xBB\xBF")
	for iter := range 2000 {
		b := make([]byte, r.IntN(300))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		if iter%3 == 0 {
			b = append([]byte("\xEF\xBB\xBF"), b...)
		}
		if iter%4 == 0 {
			b = bytes.ReplaceAll(b, []byte("\r"), nil) // only "\n": the bulk path
		}
		want := splitDisplayLines(b)
		var ranges []workspace.LineRange
		for range r.IntN(3) {
			s := 1 + r.IntN(40)
			e := 0
			if r.IntN(4) > 0 {
				e = s + r.IntN(5)
			}
			ranges = append(ranges, workspace.LineRange{Start: s, End: e})
		}
		wanted := func(n int) bool {
			if len(ranges) == 0 {
				return true
			}
			for _, rg := range ranges {
				if n >= rg.Start-readLeadingContext && (rg.End == 0 || n <= rg.End+readTrailingContext) {
					return true
				}
			}
			return false
		}
		ls := newLineStreamer(DefaultLimits(), func(n int) int {
			for ; n < 1000; n++ {
				if wanted(n) {
					return n
				}
			}
			return math.MaxInt
		}, 0, 0)
		for rest := b; len(rest) > 0; {
			k := min(len(rest), 1+r.IntN(20))
			ls.Write(rest[:k])
			rest = rest[k:]
		}
		got := ls.finish()
		if got.Len() != len(want) {
			t.Fatalf("%q ranges %v: %d lines, want %d", b, ranges, got.Len(), len(want))
		}
		for n := 1; n <= len(want); n++ {
			_, kept := got.kept[n]
			if kept != wanted(n) {
				t.Fatalf("%q ranges %v: line %d kept %v, want %v", b, ranges, n, kept, wanted(n))
			}
			if kept && (got.From(n, 0) != want[n-1] || got.LineLen(n) != len(want[n-1])) {
				t.Fatalf("%q ranges %v: line %d %q (%d), want %q", b, ranges, n, got.From(n, 0), got.LineLen(n), want[n-1])
			}
		}
	}
}
