package workspace

import (
	"testing"
	"time"
)

// TestAuditAttribution: a schema-8 store migrates (its rows keep no
// attribution), new rows record agent, session and turn, AuditByTurn lists
// a turn's rows, LastTurn a session's newest turn, and AuditAfter what
// changed a path after a row.
func TestAuditAttribution(t *testing.T) {
	script := schemaV1 + schemaV2 + schemaV3 + schemaV4 + schemaV5 + schemaV6 + schemaV7 + schemaV8 + `PRAGMA user_version = 8;
		INSERT INTO audit(tool, path, sha_before, sha_after, time, note, transport, call) VALUES ('edit', 'a.go', 'x', 'y', 1, '', 'cli', 'c0');`
	s := openOldStore(t, script)
	old, err := s.AuditRows(AuditQuery{ID: 1})
	if err != nil || len(old) != 1 || old[0].Agent != "" || old[0].Turn != "" || old[0].Call != "c0" {
		t.Fatalf("the schema-8 row after migration: %+v, %v", old, err)
	}
	now := time.Now()
	rows := []AuditEntry{
		{Tool: "edit", Path: "a.go", Transport: "mcp", Agent: "claude-code", Session: "s1", Turn: "t1", Time: now.Add(-3 * time.Minute)},
		{Tool: "edit", Path: "b.go", Transport: "mcp", Agent: "claude-code", Session: "s1", Turn: "t1", Time: now.Add(-2 * time.Minute)},
		{Tool: "edit", Path: "a.go", Transport: "lsp"},
		{Tool: "write", Path: "c.go", Transport: "mcp", Agent: "codex", Session: "s2", Turn: "t2", Time: now},
	}
	for _, r := range rows {
		if _, err := s.Audit(r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.AuditByTurn("t1")
	if err != nil || len(got) != 2 || got[0].Path != "a.go" || got[1].Path != "b.go" || got[1].Agent != "claude-code" || got[1].Session != "s1" {
		t.Fatalf("AuditByTurn(t1) = %+v, %v", got, err)
	}
	if got, err := s.AuditByTurn(""); err != nil || len(got) != 0 {
		t.Fatalf("AuditByTurn(\"\") = %+v, %v", got, err)
	}
	turn, at, ok, err := s.LastTurn("s1")
	if err != nil || !ok || turn != "t1" || !at.Equal(time.Unix(0, now.Add(-2*time.Minute).UnixNano())) {
		t.Fatalf("LastTurn(s1) = %q %v %v %v", turn, at, ok, err)
	}
	if _, _, ok, err := s.LastTurn("none"); ok || err != nil {
		t.Fatalf("LastTurn(none) = %v, %v", ok, err)
	}
	after, err := s.AuditAfter("a.go", 2, 10)
	if err != nil || len(after) != 1 || after[0].Transport != "lsp" {
		t.Fatalf("AuditAfter(a.go, 2) = %+v, %v", after, err)
	}
}
