package workspace

import (
	"context"
	"testing"
)

// TestAuditFeedAndCall: a commit's audit rows carry its call id
// (AuditByCall finds them), and a feed started before returns them once,
// also when another connection (another process) wrote them.
func TestAuditFeedAndCall(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	if _, err := s.Audit(AuditEntry{Tool: "old", Path: "x"}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	f, err := s.NewAuditFeed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if rows, err := f.Next(ctx, 10); err != nil || len(rows) != 0 {
		t.Fatalf("fresh feed: %v %v", rows, err)
	}
	other := openTestStore(t, dir) // another process's connections
	for i, e := range []AuditEntry{{Tool: "edit", Path: "a", Call: "c1", Transport: "cli"}, {Tool: "edit", Path: "b", Call: "c1", Transport: "cli"}, {Tool: "write", Path: "c"}} {
		if _, err := other.Audit(e); err != nil {
			t.Fatalf("audit %d: %v", i, err)
		}
	}
	rows, err := f.Next(ctx, 2)
	if err != nil || len(rows) != 2 || rows[0].Path != "a" || rows[1].Call != "c1" || rows[0].Transport != "cli" {
		t.Fatalf("first batch: %+v %v", rows, err)
	}
	rows, err = f.Next(ctx, 2)
	if err != nil || len(rows) != 1 || rows[0].Path != "c" {
		t.Fatalf("second batch: %+v %v", rows, err)
	}
	if rows, err := f.Next(ctx, 2); err != nil || len(rows) != 0 {
		t.Fatalf("nothing new: %+v %v", rows, err)
	}
	got, err := s.AuditByCall("c1")
	if err != nil || len(got) != 2 || got[0].Path != "a" || got[1].Path != "b" {
		t.Fatalf("AuditByCall: %+v %v", got, err)
	}
	if got, err := s.AuditByCall("nope"); err != nil || len(got) != 0 {
		t.Fatalf("AuditByCall of an unknown call: %+v %v", got, err)
	}
}
