package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashls/hashls/edit"
)

func readAndTag(t *testing.T, env *Env, rel string) string {
	t.Helper()
	r, err := runTool(env, "read", map[string]string{"path": rel})
	if err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
	return r.Details.(*readDetails).Tag
}

func exists(env *Env, rel string) bool {
	_, err := os.Stat(filepath.Join(env.WS.Root(), filepath.FromSlash(rel)))
	return err == nil
}

func TestEditFileOps(t *testing.T) {
	t.Run("REM deletes into the trash and the audit log", func(t *testing.T) {
		env := newTestEnv(t)
		writeRootFile(t, env, "a.txt", "one\ntwo\n")
		tag := readAndTag(t, env, "a.txt")
		res, err := runTool(env, "edit", map[string]string{"input": "[a.txt#" + tag + "]\nREM"})
		if err != nil {
			t.Fatal(err)
		}
		if exists(env, "a.txt") {
			t.Fatal("a.txt still exists")
		}
		if len(res.Changes) != 1 || res.Changes[0].Op != "delete" || len(res.Changes[0].TrashIDs) == 0 {
			t.Fatalf("changes %+v", res.Changes)
		}
		if !strings.HasPrefix(res.Text, "Removed a.txt") {
			t.Errorf("text %q", res.Text)
		}
		log, err := env.WS.Store().AuditLog(5)
		if err != nil || len(log) == 0 || log[0].Tool != "edit" || log[0].Path != "a.txt" {
			t.Fatalf("audit %+v %v", log, err)
		}
		// The trash gives the content back.
		if _, err := runTool(env, "restore", map[string]any{"id": res.Changes[0].TrashIDs[0]}); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(env.WS.Root(), "a.txt")); string(b) != "one\ntwo\n" {
			t.Fatalf("restored %q", b)
		}
	})
	t.Run("MV after the line edits, with the other sections", func(t *testing.T) {
		env := newTestEnv(t)
		writeRootFile(t, env, "src/a.ts", "const a = 1;\nexport { a };\n")
		writeRootFile(t, env, "b.txt", "b\n")
		ta, tb := readAndTag(t, env, "src/a.ts"), readAndTag(t, env, "b.txt")
		in := "¶src/a.ts#" + ta + "\nSWAP 1.=1:\n+const a = 2;\nMV \"lib/new name.ts\"\n¶b.txt#" + tb + "\nreplace 1:\n+B"
		res, err := runTool(env, "edit", map[string]string{"input": in})
		if err != nil {
			t.Fatal(err)
		}
		if exists(env, "src/a.ts") {
			t.Fatal("source still exists")
		}
		b, err := os.ReadFile(filepath.Join(env.WS.Root(), "lib/new name.ts"))
		if err != nil || string(b) != "const a = 2;\nexport { a };\n" {
			t.Fatalf("dest %q %v", b, err)
		}
		if !strings.HasPrefix(res.Text, "¶lib/new name.ts#"+edit.Tag(b)+"\nmoved from src/a.ts") {
			t.Errorf("text %q", res.Text)
		}
		if len(res.Changes) != 3 || res.Changes[0].MovedFrom != "src/a.ts" || res.Changes[1].Op != "delete" {
			t.Errorf("changes %+v", res.Changes)
		}
		// The moved file's lines count as seen: edit it at once by its new tag.
		if _, err := runTool(env, "edit", map[string]string{"input": "¶lib/new name.ts#" + edit.Tag(b) + "\ndelete 2"}); err != nil {
			t.Fatalf("edit after move: %v", err)
		}
	})
	t.Run("MV onto an existing file is refused and nothing changes", func(t *testing.T) {
		env := newTestEnv(t)
		writeRootFile(t, env, "a.txt", "a\n")
		writeRootFile(t, env, "b.txt", "b\n")
		writeRootFile(t, env, "c.txt", "c\n")
		ta, tc := readAndTag(t, env, "a.txt"), readAndTag(t, env, "c.txt")
		_, err := runTool(env, "edit", map[string]string{"input": "¶c.txt#" + tc + "\nreplace 1:\n+C\n¶a.txt#" + ta + "\nMV b.txt"})
		var ae *Error
		if !errors.As(err, &ae) || !strings.Contains(ae.Message, "MV b.txt: a file already exists there, and a move never overwrites") {
			t.Fatalf("err %v", err)
		}
		for rel, want := range map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"} {
			if got, _ := os.ReadFile(filepath.Join(env.WS.Root(), rel)); string(got) != want {
				t.Errorf("%s = %q", rel, got)
			}
		}
	})
	t.Run("MV onto another section's file is refused", func(t *testing.T) {
		env := newTestEnv(t)
		writeRootFile(t, env, "a.txt", "a\n")
		writeRootFile(t, env, "b.txt", "b\n")
		ta, tb := readAndTag(t, env, "a.txt"), readAndTag(t, env, "b.txt")
		_, err := runTool(env, "edit", map[string]string{"input": "¶b.txt#" + tb + "\nREM\n¶a.txt#" + ta + "\nMV b.txt"})
		if err == nil || !strings.Contains(err.Error(), "the destination is the file of another section") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("REM with a stale tag is refused", func(t *testing.T) {
		env := newTestEnv(t)
		writeRootFile(t, env, "a.txt", "a\n")
		tag := readAndTag(t, env, "a.txt")
		writeRootFile(t, env, "a.txt", "changed\n")
		_, err := runTool(env, "edit", map[string]string{"input": "¶a.txt#" + tag + "\nREM"})
		if KindOf(err) != KindStale || !exists(env, "a.txt") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("a failed section keeps REM from deleting", func(t *testing.T) {
		env := newTestEnv(t)
		writeRootFile(t, env, "a.txt", "a\n")
		writeRootFile(t, env, "b.txt", "b\n")
		ta := readAndTag(t, env, "a.txt")
		_, err := runTool(env, "edit", map[string]string{"input": "¶a.txt#" + ta + "\nREM\n¶b.txt#FFFF\nreplace 1:\n+x"})
		if err == nil || !exists(env, "a.txt") {
			t.Fatalf("err %v, a.txt exists %v", err, exists(env, "a.txt"))
		}
	})
}

func TestEditHeadersArgument(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.txt", "a\n")
	tag := readAndTag(t, env, "a.txt")
	res, err := runTool(env, "edit", map[string]any{"input": "¶a.txt#" + tag + "\nSWAP 1:\n+b", "headers": "bracket"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[a.txt#" + edit.Tag([]byte("b\n")) + "]"; !strings.HasPrefix(res.Text, want) {
		t.Fatalf("text %q, want prefix %q", res.Text, want)
	}
	if _, err := runTool(env, "edit", map[string]any{"input": "¶a.txt#" + tag + "\nSWAP 1:\n+b", "headers": "square"}); KindOf(err) != KindUsage {
		t.Fatalf("bad headers value: %v", err)
	}
}

// TestSeenLinesRefusalAndRetry: a hunk on lines a summary elided is
// refused with those lines and the tag; the immediate retry succeeds.
func TestSeenLinesRefusalAndRetry(t *testing.T) {
	env := newTestEnv(t)
	var b strings.Builder
	b.WriteString("package p\n\n")
	for i := 0; i < 30; i++ {
		b.WriteString("func f" + string(rune('A'+i%26)) + strings.Repeat("x", i/26) + "() int {\n\tx := 1\n\tx++\n\tx++\n\treturn x\n}\n\n")
	}
	content := b.String()
	writeRootFile(t, env, "big.go", content)
	r, err := runTool(env, "read", map[string]string{"path": "big.go"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Details.(*readDetails).Summary == nil {
		t.Fatalf("expected a summary:\n%s", r.Text)
	}
	tag := r.Details.(*readDetails).Tag
	// Line 5 (`x++` inside the first body) is elided by the summary.
	in := "¶big.go#" + tag + "\nreplace 5..5:\n+\tx += 2"
	_, err = runTool(env, "edit", map[string]string{"input": in})
	if err == nil || !strings.Contains(err.Error(), "no read of #"+tag+" showed you line 5") || !strings.Contains(err.Error(), "*5:\tx++") {
		t.Fatalf("err %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(env.WS.Root(), "big.go")); string(got) != content {
		t.Fatal("refused edit changed the file")
	}
	if _, err := runTool(env, "edit", map[string]string{"input": in}); err != nil {
		t.Fatalf("retry: %v", err)
	}
	// With the setting off, unseen lines are accepted.
	env2 := newTestEnv(t)
	env2.Edit.AllowUnseen = true
	writeRootFile(t, env2, "big.go", content)
	if _, err := runTool(env2, "read", map[string]string{"path": "big.go"}); err != nil {
		t.Fatal(err)
	}
	if _, err := runTool(env2, "edit", map[string]string{"input": in}); err != nil {
		t.Fatalf("setting off: %v", err)
	}
}

// TestSearchRecordsSeenLines: search's rows count as seen; others do not.
func TestSearchRecordsSeenLines(t *testing.T) {
	env := newTestEnv(t)
	var b strings.Builder
	for i := 1; i <= 40; i++ {
		if i == 20 {
			b.WriteString("needle\n")
			continue
		}
		b.WriteString("line\n")
	}
	writeRootFile(t, env, "s.txt", b.String())
	if _, err := runTool(env, "search", map[string]any{"pattern": "needle", "paths": "s.txt"}); err != nil {
		t.Fatal(err)
	}
	tag := edit.Tag([]byte(b.String()))
	if _, err := runTool(env, "edit", map[string]string{"input": "¶s.txt#" + tag + "\nreplace 5:\n+pin"}); KindOf(err) != KindUnseen || !strings.Contains(err.Error(), "showed you line 5") {
		t.Fatalf("edit on a line search did not show: %v", err)
	}
	if _, err := runTool(env, "edit", map[string]string{"input": "¶s.txt#" + tag + "\nreplace 20:\n+pin"}); err != nil {
		t.Fatalf("edit on a searched line: %v", err)
	}
}

// TestMarkdownSectionOps: block ops on a heading take its whole section.
func TestMarkdownSectionOps(t *testing.T) {
	doc := "# Plan\n\n## Step one\n\nDo A.\n\n### Detail\n\nA1.\n\n## Step two\n\nDo B.\n"
	tests := []struct{ ops, want string }{
		{"DEL.BLK 3", "# Plan\n\n\n## Step two\n\nDo B.\n"},
		{"SWAP.BLK 11:\n+## Step two\n+\n+Do C.", "# Plan\n\n## Step one\n\nDo A.\n\n### Detail\n\nA1.\n\n## Step two\n\nDo C.\n"},
		{"INS.BLK.POST 3:\n+\n+## Step one and a half\n+\n+Do A2.", "# Plan\n\n## Step one\n\nDo A.\n\n### Detail\n\nA1.\n\n## Step one and a half\n\nDo A2.\n\n## Step two\n\nDo B.\n"},
	}
	for _, tt := range tests {
		env := newTestEnv(t)
		writeRootFile(t, env, "PLAN.md", doc)
		tag := readAndTag(t, env, "PLAN.md")
		res, err := runTool(env, "edit", map[string]string{"input": "¶PLAN.md#" + tag + "\n" + tt.ops})
		if err != nil {
			t.Fatalf("%q: %v", tt.ops, err)
		}
		if got, _ := os.ReadFile(filepath.Join(env.WS.Root(), "PLAN.md")); string(got) != tt.want {
			t.Errorf("%q:\n%s\nwant\n%s\nresponse %s", tt.ops, got, tt.want, res.Text)
		}
	}
}
