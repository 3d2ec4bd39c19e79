package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/workspace"
)

// FuzzEditTool drives the edit tool end to end (read records the file, edit
// applies the input): no input may panic (Run reports a panic as
// KindInternal), a failed edit leaves the file untouched, and a successful
// one writes exactly the content its ¶PATH#TAG header names.
func FuzzEditTool(f *testing.F) {
	f.Add("a\nb\nc\n", "replace 2..2:\n+B")
	f.Add("a\r\nb\r\n", "insert after 1:\n+x\ndelete 2")
	f.Add("\xEF\xBB\xBFx\ny", "insert head:\n+h\ninsert tail:\n+t")
	f.Add("func f() {\n}\n", "replace block 1:\n+func g() {}")
	f.Add("", "replace 1..1:\n+first")
	f.Add("a\nb\n", "delete 3")
	f.Add("x\n", "@@ -1,1 +1,1 @@\n-x\n+y")
	env := newTestEnv(f)
	f.Fuzz(func(t *testing.T, content, ops string) {
		if workspace.IsBinary([]byte(content)) {
			return // binary files are refused before any edit
		}
		writeRootFile(t, env, "f.go", content)
		if _, err := runTool(env, "read", map[string]string{"path": "f.go:1"}); err != nil {
			t.Fatalf("read: %v", err)
		}
		input := "¶f.go#" + edit.Tag([]byte(content)) + "\n" + ops
		res, err := runTool(env, "edit", map[string]string{"input": input})
		got, rerr := os.ReadFile(filepath.Join(env.WS.Root(), "f.go"))
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err != nil {
			var ae *Error
			if errors.As(err, &ae) && ae.Kind == KindInternal {
				t.Fatalf("internal error (a panic): %v", err)
			}
			if string(got) != content {
				t.Fatalf("failed edit (%v) changed the file to %q", err, got)
			}
			return
		}
		hdr, _, _ := strings.Cut(res.Text, "\n")
		if want := "¶f.go#" + edit.Tag(got); hdr != want {
			t.Fatalf("response header %q, but the file on disk is tagged %q", hdr, want)
		}
	})
}
