package agent

import (
	"fmt"
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
		"nul.txt":  strings.Repeat("a", 100) + "\x00",
	}
	for name, c := range files {
		writeRootFile(t, env, name, c)
	}
	selectors := []string{"", ":1", ":2-3", ":4999-", ":10-12,4000-4001", ":5001", ":1-5:raw", ":raw", ":2+2", ":3000-"}
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
