package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/hub"
	"github.com/hashls/hashls/workspace"
)

func reviewOfNote(p json.RawMessage) ReviewFile {
	var r ReviewFile
	_ = json.Unmarshal(p, &r)
	return r
}

// command runs a server command and decodes its result into res.
func (c *testClient) command(name string, arg any, res any) error {
	return c.call("workspace/executeCommand", map[string]any{"command": name, "arguments": []any{arg}}, res)
}

// forward runs a tool through the hub as an agent would.
func forward(t *testing.T, c *testClient, state string, who workspace.Attribution, tool string, args any) *agent.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	noDirect := func(context.Context, hub.Fallback) (*agent.Result, error) { return nil, errors.New("ran directly") }
	res, via, err := hub.Forward(context.Background(), state, c.root, hub.Request{ID: hub.NewCallID(), Tool: tool, Args: raw, Transport: "mcp", Who: who}, noDirect)
	if err != nil || !via {
		t.Fatalf("forwarded %s: %v (via hub %v)", tool, err, via)
	}
	return res
}

// TestReviewAgentChanges: an agent's 3-hunk edit of an open document is up
// for review (hashls/review: three hunks with its name and turn); the
// person types elsewhere (the hunks move), keeps one, undoes one (the
// buffer gets the old lines back, audited as the person's review) and
// keeps the rest; a 2-file turn to closed files is up for review too and
// "undo the turn" (revert {turn}) restores both and clears their review.
func TestReviewAgentChanges(t *testing.T) {
	c, state := hubClient(t)
	text := "package a\n\nfunc a() {}\n\nfunc b() {}\n\nfunc c() {}\n\nfunc d() {}\n"
	u := c.open("a.go", text, text)
	c.barrier()
	who := workspace.Attribution{Agent: "claude-code", Session: "s1", Turn: "T1"}
	rd := forward(t, c, state, who, "read", map[string]string{"path": "a.go"})
	edit := fmt.Sprintf("¶a.go#%s\nreplace 3:\n+func a() { println(1) }\nreplace 7:\n+func c() { println(3) }\ninsert after 9:\n+\n+func e() {}\n", rd.Shown[0].Tag)
	forward(t, c, state, who, "edit", map[string]string{"input": edit})
	want := "package a\n\nfunc a() { println(1) }\n\nfunc b() {}\n\nfunc c() { println(3) }\n\nfunc d() {}\n\nfunc e() {}\n"
	if got := c.clientText(u); got != want {
		t.Fatalf("buffer %q", got)
	}
	n := reviewOfNote(c.waitNote(MethodReview, func(p json.RawMessage) bool { return len(reviewOfNote(p).Hunks) == 3 }))
	if n.Path != "a.go" || n.Total != 3 || n.Version == nil || string(n.URI) != u {
		t.Fatalf("review note %+v", n)
	}
	h := n.Hunks
	if h[0].Line != 2 || h[0].Added != 1 || h[0].Removed != "func a() {}\n" || h[1].Line != 6 || h[2].Line != 9 || h[2].Added != 2 || h[2].RemovedLines != 0 ||
		h[0].Agents[0] != "claude-code" || h[0].Turns[0] != "T1" || h[0].Tools[0] != "edit" {
		t.Fatalf("hunks %+v", h)
	}
	// The activity names the agent and the turn.
	c.waitNote(MethodActivity, func(p json.RawMessage) bool {
		a := activityOf(p)
		return a.Tool == "edit" && a.Agent == "claude-code" && a.Turn == "T1" && !a.ReadOnly
	})
	c.waitNote(MethodActivity, func(p json.RawMessage) bool { a := activityOf(p); return a.Tool == "read" && a.ReadOnly })

	// The person adds a line at the top: the hunks move down.
	c.change(u, lspRange(1, 0, 1, 0), "// typed\n")
	moved := reviewOfNote(c.waitNote(MethodReview, func(p json.RawMessage) bool {
		r := reviewOfNote(p)
		return len(r.Hunks) == 3 && r.Hunks[0].Line == 3
	}))
	// Keep the first hunk, undo the second.
	var kr reviewResult
	if err := c.command(cmdReview, map[string]any{"action": "keep", "uri": u, "hunk": moved.Hunks[0].ID}, &kr); err != nil || kr.Kept != 1 || kr.Total != 2 {
		t.Fatalf("keep: %+v %v", kr, err)
	}
	var ur reviewResult
	if err := c.command(cmdReview, map[string]any{"action": "undo", "uri": u, "hunk": moved.Hunks[1].ID}, &ur); err != nil || ur.Total != 1 || len(ur.Changes) != 1 {
		t.Fatalf("undo: %+v %v", ur, err)
	}
	wantAfterUndo := "package a\n// typed\n\nfunc a() { println(1) }\n\nfunc b() {}\n\nfunc c() {}\n\nfunc d() {}\n\nfunc e() {}\n"
	if got := c.clientText(u); got != wantAfterUndo {
		t.Fatalf("after undo %q", got)
	}
	rows, _ := c.srv.workspace().Store().AuditLog(1)
	if rows[0].Tool != "review" || rows[0].Transport != "lsp" || rows[0].Agent != "" || rows[0].Turn != "" || !strings.Contains(rows[0].Note, "claude-code") {
		t.Fatalf("undo audit row %+v", rows[0])
	}
	c.waitNote(MethodReview, func(p json.RawMessage) bool {
		r := reviewOfNote(p)
		return r.Path == "a.go" && len(r.Hunks) == 1 && r.Hunks[0].Line == 10
	})
	// A hunk already gone is an error that says so.
	if err := c.command(cmdReview, map[string]any{"action": "keep", "uri": u, "hunk": moved.Hunks[1].ID}, nil); err == nil || !strings.Contains(err.Error(), "no longer under review") {
		t.Fatalf("keep of an undone hunk: %v", err)
	}
	if err := c.command(cmdReview, map[string]any{"action": "keep", "uri": u}, &kr); err != nil || kr.Kept != 1 || kr.Total != 0 {
		t.Fatalf("keep the rest: %+v %v", kr, err)
	}
	c.waitNote(MethodReview, func(p json.RawMessage) bool {
		r := reviewOfNote(p)
		return r.Path == "a.go" && len(r.Hunks) == 0 && r.Total == 0
	})

	// A turn of two closed files.
	for _, f := range []string{"x.txt", "y.txt"} {
		if err := os.WriteFile(filepath.Join(c.root, f), []byte("one\ntwo\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t2 := workspace.Attribution{Agent: "claude-code", Session: "s1", Turn: "T2"}
	forward(t, c, state, t2, "write", map[string]string{"path": "x.txt", "content": "one\nTWO\n"})
	forward(t, c, state, t2, "write", map[string]string{"path": "y.txt", "content": "ONE\ntwo\nthree\n"})
	var list reviewResult
	for i := 0; i < 200 && list.Total != 3; i++ {
		c.barrier()
		if err := c.command(cmdReview, map[string]any{"action": "list"}, &list); err != nil {
			t.Fatal(err)
		}
	}
	if len(list.Files) != 2 || list.Files[0].Path != "x.txt" || list.Files[0].Version != nil || len(list.Files[1].Hunks) != 2 || list.Files[1].Hunks[0].Turns[0] != "T2" {
		t.Fatalf("review of the closed files: %+v", list)
	}
	var rv map[string]any
	if err := c.command("hashls.revert", map[string]any{"turn": "T2"}, &rv); err != nil {
		t.Fatalf("revert turn: %v", err)
	}
	for _, f := range []string{"x.txt", "y.txt"} {
		if b, _ := os.ReadFile(filepath.Join(c.root, f)); string(b) != "one\ntwo\n" {
			t.Fatalf("%s after the turn's revert: %q", f, b)
		}
	}
	c.waitNote(MethodReview, func(p json.RawMessage) bool {
		r := reviewOfNote(p)
		return r.Path == "y.txt" && len(r.Hunks) == 0 && r.Total == 0
	})
}

// TestPersonNotRefusedForUnseenLines: the person's edit from the editor
// lands on lines no read displayed; an agent's through the hub is refused.
func TestPersonNotRefusedForUnseenLines(t *testing.T) {
	c, state := hubClient(t)
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	u := c.open("big.txt", b.String(), b.String())
	c.barrier()
	var rd struct {
		Shown []agent.Shown `json:"shown"`
	}
	if err := c.command("hashls.read", map[string]any{"path": "big.txt:1-1"}, &rd); err != nil {
		t.Fatal(err)
	}
	input := fmt.Sprintf("¶big.txt#%s\nreplace 2900:\n+typed by the person\n", rd.Shown[0].Tag)
	agentRes := func() error {
		raw, _ := json.Marshal(map[string]string{"input": input})
		_, _, err := hub.Forward(context.Background(), state, c.root, hub.Request{ID: hub.NewCallID(), Tool: "edit", Args: raw, Transport: "mcp"}, nil)
		return err
	}
	if err := agentRes(); err == nil || agent.AsError(err).Kind != agent.KindUnseen {
		t.Fatalf("an agent's edit of unseen lines: %v; want it refused as %s", err, agent.KindUnseen)
	}
	if err := c.command("hashls.edit", map[string]any{"input": input}, nil); err != nil {
		t.Fatalf("the person's edit was refused: %v", err)
	}
	if !strings.Contains(c.clientText(u), "\ntyped by the person\n") {
		t.Fatal("the person's edit did not land")
	}
}

// TestReviewOfFileOpenedAtOnce: a document opened while a run's review of
// its (then closed) file still waits in the queue keeps the run's hunk:
// the open waits for the review (reviewQueue.wait), which the queue holds
// back here until after the open was sent.
func TestReviewOfFileOpenedAtOnce(t *testing.T) {
	c, state := hubClient(t)
	if err := os.WriteFile(filepath.Join(c.root, "z.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	c.srv.reviews.add(func() { <-release })
	who := workspace.Attribution{Agent: "claude-code", Session: "s1", Turn: "T1"}
	forward(t, c, state, who, "write", map[string]string{"path": "z.txt", "content": "one\nTWO\n"})
	go func() {
		time.Sleep(200 * time.Millisecond) // the open is sent, and handled unless it waits
		close(release)
	}()
	u := c.open("z.txt", "one\nTWO\n", "one\nTWO\n")
	c.waitNote(MethodReview, func(p json.RawMessage) bool {
		r := reviewOfNote(p)
		return string(r.URI) == u && len(r.Hunks) == 1 && r.Hunks[0].Removed == "two\n"
	})
}
