package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// auditIDOf returns the audit id of a result's only change.
func auditIDOf(t *testing.T, res *Result) int64 {
	t.Helper()
	if len(res.Changes) != 1 || res.Changes[0].AuditID == 0 {
		t.Fatalf("want one audited change, got %+v", res.Changes)
	}
	return res.Changes[0].AuditID
}

func TestAuditRowAndRevert(t *testing.T) {
	env := newTestEnv(t)
	file := filepath.Join(env.WS.Root(), "a.txt")
	created := auditIDOf(t, mustRunTool(t, env, "write", map[string]string{"path": "a.txt", "content": "one\n"}))
	changed := auditIDOf(t, mustRunTool(t, env, "write", map[string]string{"path": "a.txt", "content": "two\n"}))

	// One row: before, after and their diff.
	res := mustRunTool(t, env, "audit", map[string]any{"id": changed})
	d := res.Details.(map[string]any)
	if d["before"] != "one\n" || d["after"] != "two\n" || !strings.Contains(d["diff"].(string), "-one\n+two\n") {
		t.Fatalf("audit row details: %#v", d)
	}
	if !strings.Contains(res.Text, `{"id": `) {
		t.Fatalf("audit row text names no revert:\n%s", res.Text)
	}
	// A creation has no before side, and its diff adds every line.
	d = mustRunTool(t, env, "audit", map[string]any{"id": created}).Details.(map[string]any)
	if _, ok := d["before"]; ok || d["after"] != "one\n" || !strings.Contains(d["diff"].(string), "+one\n") {
		t.Fatalf("creation row details: %#v", d)
	}

	// Paging: since and before select the rows either side of an id.
	if e := mustRunTool(t, env, "audit", map[string]any{"since": created}).Details.(map[string]any)["entries"].([]auditItem); len(e) != 1 || e[0].ID != changed {
		t.Fatalf("since %d: %+v", created, e)
	}
	if e := mustRunTool(t, env, "audit", map[string]any{"before": changed}).Details.(map[string]any)["entries"].([]auditItem); len(e) != 1 || e[0].ID != created {
		t.Fatalf("before %d: %+v", changed, e)
	}

	// Revert the change: the file holds its old content, through the
	// commit path (audited as revert, the replaced content in the trash).
	res = mustRunTool(t, env, "revert", map[string]any{"id": changed})
	if got, _ := os.ReadFile(file); string(got) != "one\n" {
		t.Fatalf("after revert: %q", got)
	}
	if res.Changes[0].AuditID == 0 || len(res.Changes[0].TrashIDs) != 1 {
		t.Fatalf("revert change: %+v", res.Changes[0])
	}
	if log, _ := env.WS.Store().AuditLog(1); log[0].Tool != "revert" {
		t.Fatalf("newest audit row: %+v", log[0])
	}

	// A second revert of the same row is refused as stale: the file no
	// longer holds what that change left.
	_, err := runTool(env, "revert", map[string]any{"id": changed})
	if KindOf(err) != KindStale || !strings.Contains(err.Error(), "changed after audit") {
		t.Fatalf("second revert: %v (%s)", err, KindOf(err))
	}
	if got, _ := os.ReadFile(file); string(got) != "one\n" {
		t.Fatalf("refused revert changed the file: %q", got)
	}

	// Reverting the creation deletes the file, once the later change is
	// undone (the file holds what the creation left).
	mustRunTool(t, env, "revert", map[string]any{"id": created})
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("revert of a creation left the file: %v", err)
	}
}

func TestRevertErrors(t *testing.T) {
	env := newTestEnv(t)
	for _, tc := range []struct {
		args any
		kind string
	}{
		{map[string]any{"id": 0}, KindUsage},
		{map[string]any{"id": 1.5}, KindUsage},
		{map[string]any{"id": 99}, KindNotFound},
		{map[string]any{"id": 1, "extra": true}, KindUsage},
	} {
		if _, err := runTool(env, "revert", tc.args); KindOf(err) != tc.kind {
			t.Errorf("revert %v: %v (%s), want %s", tc.args, err, KindOf(err), tc.kind)
		}
	}
	for _, tc := range []struct {
		args any
		kind string
	}{
		{map[string]any{"id": 99}, KindNotFound},
		{map[string]any{"id": 1, "limit": 5}, KindUsage},
		{map[string]any{"before": -1}, KindUsage},
	} {
		if _, err := runTool(env, "audit", tc.args); KindOf(err) != tc.kind {
			t.Errorf("audit %v: %v (%s), want %s", tc.args, err, KindOf(err), tc.kind)
		}
	}
}
