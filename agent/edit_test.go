package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashls/hashls/edit"
)

// TestNoopLoopGuard: the third identical no-op payload in a row on one file
// is an error; a real change resets the count.
func TestNoopLoopGuard(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.txt", "aaa\nbbb\nccc\n")
	tag := edit.Tag([]byte("aaa\nbbb\nccc\n"))
	noop := map[string]string{"input": "¶a.txt#" + tag + "\nreplace 2..2:\n+bbb"}
	for i := 1; i <= 2; i++ {
		res, err := runTool(env, "edit", noop)
		if err != nil || !strings.Contains(res.Text, "produced no change") {
			t.Fatalf("no-op %d: %v %+v", i, err, res)
		}
	}
	_, err := runTool(env, "edit", noop)
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindNoChange || !strings.HasPrefix(ae.Message, "STOP. Edits to a.txt have been a byte-identical no-op 3 times in a row") {
		t.Fatalf("third no-op: %v", err)
	}
	// A different payload starts a new count.
	other := map[string]string{"input": "¶a.txt#" + tag + "\nreplace 1..1:\n+aaa"}
	if res, err := runTool(env, "edit", other); err != nil || !strings.Contains(res.Text, "produced no change") {
		t.Fatalf("different no-op: %v", err)
	}
}

// TestEditMultiFileAllOrNothing: when one section fails, no file changes.
func TestEditMultiFileAllOrNothing(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.txt", "a\n")
	writeRootFile(t, env, "b.txt", "b\n")
	input := "¶a.txt#" + edit.Tag([]byte("a\n")) + "\nreplace 1..1:\n+A\n¶b.txt#" + edit.Tag([]byte("b\n")) + "\nreplace 5..5:\n+B"
	if _, err := runTool(env, "edit", map[string]string{"input": input}); err == nil {
		t.Fatal("edit with an out-of-range second section succeeded")
	}
	for name, want := range map[string]string{"a.txt": "a\n", "b.txt": "b\n"} {
		if got, _ := os.ReadFile(filepath.Join(env.WS.Root(), name)); string(got) != want {
			t.Errorf("%s = %q after a failed multi-file edit", name, got)
		}
	}
	// Two spellings of one file are refused.
	input = "¶a.txt#" + edit.Tag([]byte("a\n")) + "\nreplace 1..1:\n+A\n¶./a.txt#" + edit.Tag([]byte("a\n")) + "\ninsert tail:\n+x"
	_, err := runTool(env, "edit", map[string]string{"input": input})
	if err == nil || !strings.Contains(err.Error(), "Multiple hashline sections resolve to the same file (a.txt and ./a.txt)") {
		t.Fatalf("same file twice: %v", err)
	}
}

// TestEditAuditAndTrash: an edit appends an audit row with both hashes and
// keeps the old content in the trash.
func TestEditAuditAndTrash(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.txt", "old\n")
	res, err := runTool(env, "edit", map[string]string{"input": "¶a.txt#" + edit.Tag([]byte("old\n")) + "\nreplace 1..1:\n+new"})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Details.(*editDetails)
	if len(d.PerFileResults) != 1 || d.PerFileResults[0].AuditID == 0 || d.PerFileResults[0].TrashID == 0 {
		t.Fatalf("details = %+v", d)
	}
	if !strings.Contains(d.Diff, "-old\n+new\n") {
		t.Errorf("diff = %q", d.Diff)
	}
	log, err := env.WS.Store().AuditLog(10)
	if err != nil || len(log) != 1 || log[0].Tool != "edit" || log[0].Path != "a.txt" ||
		log[0].SHA256Before != sha256Hex([]byte("old\n")) || log[0].SHA256After != sha256Hex([]byte("new\n")) {
		t.Fatalf("audit log = %+v, %v", log, err)
	}
	_, content, err := env.WS.Store().TrashGet(d.PerFileResults[0].TrashID)
	if err != nil || string(content) != "old\n" {
		t.Fatalf("trash = %q, %v", content, err)
	}
}
