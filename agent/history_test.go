package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolsReadHistoryKeptAsDeltas: every tool that reads an old version
// works on a history the store keeps as deltas (workspace, schema 8): the
// audit tool's before and after of the first of several edits, revert of
// the last, restore of the first trash entry, and an edit against a stale
// tag, which the engine recovers from the tagged version's content.
func TestToolsReadHistoryKeptAsDeltas(t *testing.T) {
	env := newTestEnv(t)
	file := filepath.Join(env.WS.Root(), "big.txt")
	version := func(n int) string {
		var b strings.Builder
		for i := 1; i <= 2000; i++ {
			if i%100 == 1 {
				fmt.Fprintf(&b, "line %d of version %d\n", i, n)
			} else {
				fmt.Fprintf(&b, "line %d stays as it was\n", i)
			}
		}
		return b.String()
	}
	if err := os.WriteFile(file, []byte(version(0)), 0o644); err != nil {
		t.Fatal(err)
	}
	shown := make([]string, 20)
	for i := range shown {
		shown[i] = fmt.Sprintf("%d-%d", i*100+1, i*100+1)
	}
	rd := mustRunTool(t, env, "read", map[string]string{"path": "big.txt:" + strings.Join(shown, ",") + ",50-50"})
	tag := rd.Details.(*readDetails).Tag
	var audits, trash []int64
	var tags []string
	for n := 1; n <= 4; n++ {
		var in strings.Builder
		fmt.Fprintf(&in, "¶big.txt#%s\n", tag)
		for i := 0; i < 20; i++ {
			fmt.Fprintf(&in, "replace %d..%d:\n+line %d of version %d\n", i*100+1, i*100+1, i*100+1, n)
		}
		res := mustRunTool(t, env, "edit", map[string]string{"input": in.String()})
		audits = append(audits, auditIDOf(t, res))
		trash = append(trash, res.Changes[0].TrashIDs...)
		tag = res.Changes[0].NewTag
		tags = append(tags, tag)
	}
	c, err := env.WS.Store().VerifyContents(context.Background())
	if err != nil || len(c.Damaged) > 0 || c.Deltas < 4 {
		t.Fatalf("the history is not kept as deltas that rebuild: %+v %v", c, err)
	}
	// audit: the first edit's before and after.
	d := mustRunTool(t, env, "audit", map[string]any{"id": audits[0]}).Details.(map[string]any)
	if d["before"] != version(0) || d["after"] != version(1) || !strings.Contains(d["diff"].(string), "+line 1 of version 1") {
		t.Fatalf("audit of the first edit: before %v, after %v", d["before"] == version(0), d["after"] == version(1))
	}
	// An edit against the second edit's tag: the file changed since, and
	// the engine merges from the tagged version's content (a delta).
	in := fmt.Sprintf("¶big.txt#%s\nreplace 50..50:\n+line 50 changed against the first version\n", tags[1])
	if _, err := runTool(env, "edit", map[string]string{"input": in}); err != nil {
		t.Fatalf("edit against a stale tag: %v", err)
	}
	want := strings.Replace(version(4), "line 50 stays as it was\n", "line 50 changed against the first version\n", 1)
	if got, _ := os.ReadFile(file); string(got) != want {
		t.Fatal("the stale-tag edit did not land on the newest version")
	}
	// restore: the first trash entry is the first version.
	mustRunTool(t, env, "restore", map[string]any{"id": trash[0]})
	if got, _ := os.ReadFile(file); string(got) != version(0) {
		t.Fatal("restore of the first trash entry did not bring the first version back")
	}
	// revert of that restore brings back what it replaced.
	log, err := env.WS.Store().AuditLog(1)
	if err != nil {
		t.Fatal(err)
	}
	mustRunTool(t, env, "revert", map[string]any{"id": log[0].ID})
	if got, _ := os.ReadFile(file); string(got) != want {
		t.Fatal("revert of the restore did not bring back what it replaced")
	}
}
