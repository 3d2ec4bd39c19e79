package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashls/hashls/workspace"
)

// runAs runs tool name over env with the attribution who.
func runAs(t *testing.T, env *Env, who workspace.Attribution, name string, args any) (*Result, error) {
	t.Helper()
	return runAsGap(t, env, 0, who, name, args)
}

// runAsGap is runAs with the quiet gap that ends a turn (0: the default).
func runAsGap(t *testing.T, env *Env, gap time.Duration, who workspace.Attribution, name string, args any) (*Result, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	ts := New(Deps{WS: env.WS, Resolver: env.Resolver, TurnGap: gap})
	return ts.Run(context.Background(), name, raw, Call{Transport: "mcp", Who: who})
}

// TestTurnsBySession: a session's changes share a turn while they come
// within the quiet gap, a change after the gap starts a new turn, a group
// id the caller passes is the turn, and the attribution is on every audit
// row.
func TestTurnsBySession(t *testing.T) {
	env := newTestEnv(t)
	who := workspace.Attribution{Agent: "claude-code", Session: "s1"}
	write := func(w workspace.Attribution, path, content string) workspace.AuditEntry {
		t.Helper()
		res, err := runAsGap(t, env, 300*time.Millisecond, w, "write", map[string]string{"path": path, "content": content})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := env.WS.Store().AuditRows(workspace.AuditQuery{ID: res.Changes[0].AuditID})
		if err != nil || len(rows) != 1 {
			t.Fatal(rows, err)
		}
		return rows[0]
	}
	a := write(who, "a.txt", "1\n")
	b := write(who, "b.txt", "1\n")
	if a.Turn == "" || a.Turn != b.Turn || a.Agent != "claude-code" || a.Session != "s1" || a.Transport != "mcp" {
		t.Fatalf("two changes within the gap: %+v / %+v", a, b)
	}
	other := write(workspace.Attribution{Agent: "codex", Session: "s2"}, "c.txt", "1\n")
	if other.Turn == a.Turn {
		t.Fatalf("another session joined the turn: %+v", other)
	}
	time.Sleep(400 * time.Millisecond)
	c := write(who, "a.txt", "2\n")
	if c.Turn == a.Turn || c.Turn == "" {
		t.Fatalf("a change after the gap kept the turn: %q", c.Turn)
	}
	g := write(workspace.Attribution{Agent: "claude-code", Session: "s1", Turn: "my-group"}, "a.txt", "3\n")
	if g.Turn != "my-group" {
		t.Fatalf("caller's group id: %q", g.Turn)
	}
	person := write(workspace.Attribution{}, "a.txt", "4\n")
	if person.Turn != "" || person.Agent != "" {
		t.Fatalf("the person's change: %+v", person)
	}
	if got := CleanAttribution(workspace.Attribution{Agent: "  " + strings.Repeat("é", 100) + " "}).Agent; len(got) > maxNameLen || !strings.HasPrefix(got, "éé") || !json.Valid([]byte(`"`+got+`"`)) {
		t.Fatalf("clipped agent name %q", got)
	}
}

// TestRevertTurn: a two-file turn is undone in one change; a file the
// person changed since is named (as changed outside the audit log) and
// left alone unless force; a created file is deleted.
func TestRevertTurn(t *testing.T) {
	env := newTestEnv(t)
	root := env.WS.Root()
	writeRootFile(t, env, "a.txt", "a0\n")
	writeRootFile(t, env, "b.txt", "b0\n")
	who := workspace.Attribution{Agent: "claude-code", Session: "s1", Turn: "T1"}
	for _, w := range []map[string]string{{"path": "a.txt", "content": "a1\n"}, {"path": "b.txt", "content": "b1\n"}, {"path": "new.txt", "content": "n\n"}, {"path": "a.txt", "content": "a2\n"}} {
		if _, err := runAs(t, env, who, "write", w); err != nil {
			t.Fatal(err)
		}
	}
	// The person edits b.txt outside hashls.
	if err := os.WriteFile(filepath.Join(root, "b.txt"), []byte("b-person\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := mustRunTool(t, env, "revert", map[string]any{"turn": "T1"})
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return "(absent)"
		}
		return string(b)
	}
	if read("a.txt") != "a0\n" || read("b.txt") != "b-person\n" || read("new.txt") != "(absent)" {
		t.Fatalf("after revert turn: a=%q b=%q new=%q\n%s", read("a.txt"), read("b.txt"), read("new.txt"), res.Text)
	}
	if !strings.Contains(res.Text, "Left alone: b.txt: it was edited outside hashls since") || len(res.Changes) != 2 {
		t.Fatalf("revert turn result:\n%s\n%+v", res.Text, res.Changes)
	}
	// One change: its audit rows are the person's, noted as the turn's revert.
	rows, _ := env.WS.Store().AuditLog(2)
	for _, r := range rows {
		if r.Tool != "revert" || r.Note != "revert of turn T1" || r.Turn != "" || r.Agent != "" {
			t.Fatalf("revert row: %+v", r)
		}
	}
	// Again: a.txt and new.txt are as before the turn, b.txt changed since.
	_, err := runTool(env, "revert", map[string]any{"turn": "T1"})
	if KindOf(err) != KindStale || !strings.Contains(err.Error(), "b.txt") {
		t.Fatalf("second revert: %v", err)
	}
	mustRunTool(t, env, "revert", map[string]any{"turn": "T1", "force": true})
	if read("b.txt") != "b0\n" {
		t.Fatalf("forced: b=%q", read("b.txt"))
	}
	if _, err := runTool(env, "revert", map[string]any{"turn": "T1"}); KindOf(err) != KindNoChange {
		t.Fatalf("nothing left to revert: %v", err)
	}
	if _, err := runTool(env, "revert", map[string]any{"turn": "nope"}); KindOf(err) != KindNotFound {
		t.Fatalf("unknown turn: %v", err)
	}
	if _, err := runTool(env, "revert", map[string]any{"turn": "T1", "id": 1}); KindOf(err) != KindUsage {
		t.Fatalf("id and turn: %v", err)
	}
}

// TestRevertNamesLaterChanges: a refused revert names the audited changes
// made since, and says so when the file was changed outside hashls.
func TestRevertNamesLaterChanges(t *testing.T) {
	env := newTestEnv(t)
	first, err := runAs(t, env, workspace.Attribution{Agent: "claude-code", Session: "s"}, "write", map[string]string{"path": "a.txt", "content": "1\n"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runAs(t, env, workspace.Attribution{Agent: "codex", Session: "x"}, "write", map[string]string{"path": "a.txt", "content": "2\n"}); err != nil {
		t.Fatal(err)
	}
	_, err = runTool(env, "revert", map[string]any{"id": first.Changes[0].AuditID})
	if KindOf(err) != KindStale || !strings.Contains(err.Error(), "write by codex via mcp") || strings.Contains(err.Error(), "outside hashls") {
		t.Fatalf("revert under an audited change: %v", err)
	}
	if err := os.WriteFile(filepath.Join(env.WS.Root(), "a.txt"), []byte("typed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = runTool(env, "revert", map[string]any{"id": first.Changes[0].AuditID})
	if !strings.Contains(err.Error(), "then edited outside hashls") {
		t.Fatalf("revert under an audited and an outside change: %v", err)
	}
}
