package agent

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/workspace"
)

// FuzzEditTool drives the edit tool end to end (read records the file, edit
// applies the input): no input may panic (Run reports a panic as
// KindInternal), a failed edit leaves the file untouched, the documented
// soft "no change" result (one section whose rows equal the file) leaves it
// untouched too and names no change, and a successful edit writes exactly
// the content its ¶PATH#TAG header names.
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
		if d, ok := res.Details.(*editDetails); ok && len(d.PerFileResults) == 1 && d.PerFileResults[0].NoOp {
			if string(got) != content {
				t.Fatalf("a no-change result changed the file to %q", got)
			}
			if len(res.Changes) != 0 || !strings.HasPrefix(res.Text, edit.NoChangeMessage("f.go")) {
				t.Fatalf("a no-change result reports changes %v or text %q", res.Changes, res.Text)
			}
			return
		}
		hdr, _, _ := strings.Cut(res.Text, "\n")
		if want := "¶f.go#" + edit.Tag(got); hdr != want {
			t.Fatalf("response header %q, but the file on disk is tagged %q", hdr, want)
		}
	})
}

// FuzzApplyPatchTool drives apply_patch end to end over two files: no
// input may panic, a failed patch leaves every file untouched, and a
// successful one reports exactly the files that changed on disk (with the
// sha256 of what is there now).
func FuzzApplyPatchTool(f *testing.F) {
	f.Add("a\nb\nc\n", "x\r\ny\r\n", "*** Begin Patch\n*** Update File: a.txt\n@@\n a\n-b\n+B\n*** End Patch")
	f.Add("a\n", "x\n", "*** Begin Patch\n*** Add File: n.txt\n+new\n*** Delete File: b.txt\n*** End Patch")
	f.Add("a\n", "x\n", "*** Begin Patch\n*** Update File: a.txt\n*** Move to: d/m.txt\n@@\n-a\n+z\n*** End Patch")
	f.Add("a\n\ta\n", "", "*** Begin Patch\n*** Update File: a.txt\n@@\n-  a\n+b\n*** End Patch")
	f.Add("", "", "garbage")
	env := newTestEnv(f)
	f.Fuzz(func(t *testing.T, a, b, patch string) {
		root := env.WS.Root()
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			_ = os.RemoveAll(filepath.Join(root, e.Name()))
		}
		writeRootFile(t, env, "a.txt", a)
		writeRootFile(t, env, "b.txt", b)
		before := snapshotTree(t, root)
		res, err := runTool(env, "apply_patch", map[string]string{"input": patch})
		after := snapshotTree(t, root)
		if err != nil {
			var ae *Error
			if errors.As(err, &ae) && ae.Kind == KindInternal {
				t.Fatalf("internal error (a panic): %v", err)
			}
			if !maps.Equal(before, after) {
				t.Fatalf("failed patch (%v) changed the tree from %q to %q", err, before, after)
			}
			return
		}
		changed := map[string]bool{}
		for _, c := range res.Changes {
			changed[c.Path] = true
			if c.Op == "delete" {
				if _, ok := after[c.Path]; ok {
					t.Fatalf("%s reported deleted but exists", c.Path)
				}
				continue
			}
			got, ok := after[c.Path]
			if !ok || c.NewSHA256 != sha256Hex([]byte(got)) {
				t.Fatalf("%s reported %s but holds %q", c.Path, c.Op, got)
			}
		}
		for p, v := range before {
			if w, ok := after[p]; (!ok || w != v) && !changed[p] {
				t.Fatalf("%s changed but is not reported", p)
			}
		}
	})
}

// snapshotTree maps every regular file under root (dot-directories left
// out) to its content.
func snapshotTree(t testing.TB, root string) map[string]string {
	out := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != root {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(root, p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	return out
}

// FuzzReadTarget fuzzes the decision whether a path names a file, a
// directory, an archive (member) or a SQLite database (table, row, query),
// through the read tool over a root holding each (and a corrupt archive and
// a text file named .db): no input may panic, and reading never changes a
// file.
func FuzzReadTarget(f *testing.F) {
	for _, s := range []string{"a.zip", "a.zip:dir/", "a.zip:dir/b.txt:1-2", "a.tgz:x", "bad.zip:a", "notes.db", "notes.db:t",
		"data.db", "data.db:users", "data.db:users:2", "data.db?q=SELECT 1", "data.db:users?limit=1&order=name:desc",
		"data.db?q=DROP TABLE users", "a.tar:../x", "./a.zip::", "a.zip:", "data.db:", ":raw", "a.zip:raw", "data.db:users:raw"} {
		f.Add(s)
	}
	env := targetEnv(f)
	root := env.WS.Root()
	before := snapshotTree(f, root)
	f.Fuzz(func(t *testing.T, path string) {
		_, err := runTool(env, "read", map[string]string{"path": path})
		var ae *Error
		if errors.As(err, &ae) && ae.Kind == KindInternal {
			t.Fatalf("read %q: internal error (a panic): %v", path, err)
		}
		after := snapshotTree(t, root)
		for p, v := range before {
			if after[p] != v {
				t.Fatalf("read %q changed %s", path, p)
			}
		}
		for p := range after {
			if _, ok := before[p]; !ok {
				t.Fatalf("read %q created %s", path, p)
			}
		}
	})
}
