package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashls/hashls/edit"
)

func TestTrashRestoreAudit(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.txt", "one\n")
	if _, err := runTool(env, "read", map[string]string{"path": "a.txt"}); err != nil {
		t.Fatal(err)
	}
	res, err := runTool(env, "edit", map[string]string{"input": "¶a.txt#" + edit.Tag([]byte("one\n")) + "\nreplace 1..1:\n+two"})
	if err != nil {
		t.Fatal(err)
	}
	first := res.Details.(*editDetails).PerFileResults[0].TrashID
	if _, err := runTool(env, "write", map[string]string{"path": "a.txt", "content": "three\n"}); err != nil {
		t.Fatal(err)
	}

	res, err = runTool(env, "trash", map[string]any{"path": "a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Details.(map[string]any)["entries"].([]trashItem)); n != 2 || !strings.Contains(res.Text, "a.txt") {
		t.Fatalf("trash list (%d entries):\n%s", n, res.Text)
	}

	res, err = runTool(env, "restore", map[string]any{"id": first})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(env.WS.Root(), "a.txt")); string(got) != "one\n" {
		t.Fatalf("restored content %q", got)
	}
	if !strings.HasPrefix(res.Text, "¶a.txt#"+edit.Tag([]byte("one\n"))+"\n") || !strings.Contains(res.Text, "previous content is trash #") {
		t.Fatalf("restore text:\n%s", res.Text)
	}
	// The restored tag is recorded: an edit with it applies.
	if _, err := runTool(env, "edit", map[string]string{"input": "¶a.txt#" + edit.Tag([]byte("one\n")) + "\ninsert tail:\n+end"}); err != nil {
		t.Fatalf("edit after restore: %v", err)
	}
	// Restore to another path, creating directories.
	if _, err := runTool(env, "restore", map[string]any{"id": first, "path": "copies/a.txt"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(env.WS.Root(), "copies", "a.txt")); string(got) != "one\n" {
		t.Fatalf("restored copy %q", got)
	}

	res, err = runTool(env, "audit", map[string]any{"limit": 10})
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, it := range res.Details.(map[string]any)["entries"].([]auditItem) {
		tools = append(tools, it.Tool)
	}
	if got := strings.Join(tools, ","); got != "restore,edit,restore,write,edit" {
		t.Fatalf("audit tools newest first = %s\n%s", got, res.Text)
	}
	if !strings.Contains(res.Text, "(from trash #") {
		t.Fatalf("audit text lacks the restore note:\n%s", res.Text)
	}

	for _, tc := range []struct {
		tool string
		args map[string]any
		kind string
	}{
		{"restore", map[string]any{"id": 9999}, KindNotFound},
		{"restore", map[string]any{"id": 1.5}, KindUsage},
		{"restore", map[string]any{"id": first, "path": "../out.txt"}, KindOutside},
		{"trash", map[string]any{"limit": 0}, KindUsage},
		{"audit", map[string]any{"limit": 500}, KindUsage},
	} {
		_, err := runTool(env, tc.tool, tc.args)
		var ae *Error
		if !errors.As(err, &ae) || ae.Kind != tc.kind {
			t.Errorf("%s %v: %v, want kind %s", tc.tool, tc.args, err, tc.kind)
		}
	}
}

// A row whose database is gone is not written as a file: the error gives
// the insert to make once the database is back.
func TestRestoreSQLiteRowDatabaseGone(t *testing.T) {
	env := newTestEnv(t)
	key := filepath.Join(env.WS.Root(), "data.db") + ":users:3"
	id, err := env.WS.Store().Trash(key, []byte(`{"id":3,"name":"Ada"}`), "sqlite delete")
	if err != nil {
		t.Fatal(err)
	}
	_, err = runTool(env, "restore", map[string]any{"id": id})
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindNotFound || !strings.Contains(ae.Message, `path "data.db:users"`) || !strings.Contains(ae.Message, `"name":"Ada"`) {
		t.Fatalf("restore of a row: %v", err)
	}
	if _, err := os.Stat(filepath.Join(env.WS.Root(), "data.db:users:3")); !os.IsNotExist(err) {
		t.Fatalf("a stray file was written: %v", err)
	}
}
