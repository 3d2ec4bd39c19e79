package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/hub"
	"github.com/hashls/hashls/workspace"
)

// hubClient starts a server that is its root's hub and waits for the hub's
// socket.
func hubClient(t *testing.T) (*testClient, string) {
	t.Helper()
	return hubClientInit(t, nil)
}

// hubClientInit is hubClient with extra initialize params.
func hubClientInit(t *testing.T, extra map[string]any) (*testClient, string) {
	t.Helper()
	opts := testOptions()
	opts.Hub = true
	c := newTestClient(t, opts)
	c.initialize(extra)
	ws := c.srv.workspace()
	if ws == nil {
		t.Fatal("no workspace")
	}
	sock, err := workspace.HubSocket(ws.StateDirPath(), c.root)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no hub socket at %s", sock)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return c, ws.StateDirPath()
}

func activityOf(p json.RawMessage) Activity {
	var a Activity
	_ = json.Unmarshal(p, &a)
	return a
}

// TestHubForwardedCalls: a call forwarded through the hub reads the open
// buffer (unsaved text) and its edit lands in the buffer through
// workspace/applyEdit, not on disk; it is audited with the caller's
// transport and reported as forwarded activity.
func TestHubForwardedCalls(t *testing.T) {
	c, state := hubClient(t)
	disk := "package a\n\nvar x = 1\n"
	buffer := "package a\n\n// unsaved\nvar x = 1\n"
	u := c.open("a.go", disk, buffer)
	c.barrier()
	noDirect := func(context.Context, hub.Fallback) (*agent.Result, error) {
		t.Error("the call ran directly although the hub runs")
		return nil, errors.New("direct")
	}
	rd, via, err := hub.Forward(context.Background(), state, c.root, hub.Request{ID: hub.NewCallID(), Tool: "read", Args: json.RawMessage(`{"path":"a.go"}`), Transport: "cli"}, noDirect)
	if err != nil || !via {
		t.Fatalf("forwarded read: %v (via hub %v)", err, via)
	}
	if !strings.Contains(rd.Text, "// unsaved") || len(rd.Shown) != 1 {
		t.Fatalf("the forwarded read did not see the buffer: %q", rd.Text)
	}
	id := hub.NewCallID()
	input := fmt.Sprintf("¶a.go#%s\nreplace 4..4:\n+var x = 2\n", rd.Shown[0].Tag)
	args, _ := json.Marshal(map[string]string{"input": input})
	res, via, err := hub.Forward(context.Background(), state, c.root, hub.Request{ID: id, Tool: "edit", Args: args, Transport: "cli"}, noDirect)
	if err != nil || !via {
		t.Fatalf("forwarded edit: %v", err)
	}
	want := "package a\n\n// unsaved\nvar x = 2\n"
	if got := c.clientText(u); got != want {
		t.Fatalf("buffer %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(c.root, "a.go")); string(b) != disk {
		t.Fatalf("disk was written: %q", b)
	}
	if len(res.Changes) != 1 || !res.Changes[0].Overlay {
		t.Fatalf("changes %+v", res.Changes)
	}
	rows, err := c.srv.workspace().Store().AuditByCall(id)
	if err != nil || len(rows) != 1 || rows[0].Transport != "cli" {
		t.Fatalf("audit rows %+v, %v", rows, err)
	}
	c.waitNote(MethodActivity, func(p json.RawMessage) bool {
		a := activityOf(p)
		return a.Tool == "edit" && a.Forwarded && a.Transport == "cli" && a.CallID == id && !a.External && a.Time != ""
	})
	// The server's own run is reported once: the audit feed skips it.
	time.Sleep(600 * time.Millisecond)
	for _, p := range c.notesOf(MethodActivity) {
		if a := activityOf(p); a.External {
			t.Fatalf("the server's own run came back as external activity: %s", p)
		}
	}
}

// TestActivityFromOtherProcess: a change another process writes to the
// store shows as one external hashls/activity entry, with its transport,
// audit ids, path and time.
func TestActivityFromOtherProcess(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	ws := c.srv.workspace()
	if err := os.WriteFile(filepath.Join(c.root, "b.txt"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Another process: its own workspace and store connections.
	other, err := workspace.Open(c.root, workspace.Options{StateDir: ws.StateDirPath()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ts := agent.New(agent.Deps{WS: other})
	res, err := ts.Run(context.Background(), "write", json.RawMessage(`{"path":"c.txt","content":"new\n"}`), agent.Call{Transport: "mcp", ID: "other-1"})
	if err != nil {
		t.Fatal(err)
	}
	p := c.waitNote(MethodActivity, func(p json.RawMessage) bool { return activityOf(p).External })
	a := activityOf(p)
	if a.Tool != "write" || a.Transport != "mcp" || a.CallID != "other-1" || len(a.Paths) != 1 || a.Paths[0] != "c.txt" ||
		len(a.AuditIDs) != 1 || a.AuditIDs[0] != res.Changes[0].AuditID || a.Outcome != "ok" {
		t.Fatalf("activity %s", p)
	}
	if _, err := time.Parse(time.RFC3339Nano, a.Time); err != nil {
		t.Fatalf("time %q: %v", a.Time, err)
	}
}

// TestExternalActivityGrouping: rows of one call are one entry; rows
// without a call id are one entry each; the server's own calls are skipped.
func TestExternalActivityGrouping(t *testing.T) {
	rows := []workspace.AuditEntry{
		{ID: 1, Tool: "apply_patch", Path: "a", Call: "x", Transport: "cli"},
		{ID: 2, Tool: "apply_patch", Path: "b", Call: "x", Transport: "cli"},
		{ID: 3, Tool: "edit", Path: "c", Call: "mine", Transport: "lsp"},
		{ID: 4, Tool: "edit", Path: "d", Transport: "recovery"},
		{ID: 5, Tool: "edit", Path: "e", Transport: "recovery"},
	}
	got := externalActivity(rows, func(id string) bool { return id == "mine" })
	if len(got) != 3 || len(got[0].AuditIDs) != 2 || strings.Join(got[0].Paths, ",") != "a,b" || got[1].AuditIDs[0] != 4 || got[2].AuditIDs[0] != 5 {
		t.Fatalf("%+v", got)
	}
}

// TestHubCLI drives the built hashls binary as a separate process against
// a server that is the root's hub: `hashls tool read` sees the unsaved
// buffer, `hashls tool edit` lands in the buffer (not on disk), and with
// --no-hub the edit goes to the disk directly and reaches the editor as
// external activity.
func TestHubCLI(t *testing.T) {
	bin, args := serverBinary(t)
	if len(args) == 0 {
		t.Skip("the root command is not built")
	}
	c, state := hubClient(t)
	disk := "alpha\nbeta\n"
	u := c.open("n.txt", disk, "alpha\nbeta\nunsaved\n")
	c.barrier()
	run := func(argv ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--root", c.root}, argv...)...)
		cmd.Env = append(os.Environ(), "HASHLS_STATE_DIR="+state, "HASHLS_NO_HUB=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("hashls %v: %v\n%s", argv, err, out)
		}
		return string(out)
	}
	out := run("--json", "tool", "read", `{"path":"n.txt"}`)
	var rd struct {
		Text  string        `json:"text"`
		Shown []agent.Shown `json:"shown"`
	}
	if err := json.Unmarshal([]byte(out), &rd); err != nil || !strings.Contains(rd.Text, "unsaved") || len(rd.Shown) != 1 {
		t.Fatalf("CLI read through the hub: %v\n%s", err, out)
	}
	edit, _ := json.Marshal(map[string]string{"input": fmt.Sprintf("¶n.txt#%s\nreplace 2..2:\n+BETA\n", rd.Shown[0].Tag)})
	run("tool", "edit", string(edit))
	if got := c.clientText(u); got != "alpha\nBETA\nunsaved\n" {
		t.Fatalf("buffer after the CLI edit: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(c.root, "n.txt")); string(b) != disk {
		t.Fatalf("the CLI edit wrote the disk: %q", b)
	}
	c.waitNote(MethodActivity, func(p json.RawMessage) bool {
		a := activityOf(p)
		return a.Tool == "edit" && a.Forwarded && a.Transport == "cli"
	})

	// --no-hub: the CLI works on the disk itself; the editor hears of it.
	out = run("--json", "--no-hub", "tool", "read", `{"path":"n.txt"}`)
	if err := json.Unmarshal([]byte(out), &rd); err != nil || strings.Contains(rd.Text, "unsaved") {
		t.Fatalf("--no-hub read saw the buffer: %v\n%s", err, out)
	}
	edit, _ = json.Marshal(map[string]string{"input": fmt.Sprintf("¶n.txt#%s\nreplace 1..1:\n+ALPHA\n", rd.Shown[0].Tag)})
	run("--no-hub", "tool", "edit", string(edit))
	if b, _ := os.ReadFile(filepath.Join(c.root, "n.txt")); string(b) != "ALPHA\nbeta\n" {
		t.Fatalf("--no-hub edit: disk %q", b)
	}
	if got := c.clientText(u); got != "alpha\nBETA\nunsaved\n" {
		t.Fatalf("--no-hub edit changed the buffer: %q", got)
	}
	c.waitNote(MethodActivity, func(p json.RawMessage) bool {
		a := activityOf(p)
		return a.External && a.Tool == "edit" && a.Transport == "cli" && len(a.Paths) == 1 && a.Paths[0] == "n.txt"
	})
}

// TestHubHintsFollowTheCaller: a call forwarded through the hub renders
// its hints for the caller's toolsets (hub.Request.Toolsets), not the
// editor's: a REM from a caller without the history set does not point
// at restore.
func TestHubHintsFollowTheCaller(t *testing.T) {
	c, state := hubClient(t)
	noDirect := func(context.Context, hub.Fallback) (*agent.Result, error) {
		t.Error("the call ran directly although the hub runs")
		return nil, errors.New("direct")
	}
	for i, sets := range []string{"hashline", "hashline,history", ""} {
		name := fmt.Sprintf("gone%d.txt", i)
		if err := os.WriteFile(filepath.Join(c.root, name), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		forward := func(tool string, args any) *agent.Result {
			t.Helper()
			raw, _ := json.Marshal(args)
			res, via, err := hub.Forward(context.Background(), state, c.root, hub.Request{ID: hub.NewCallID(), Tool: tool, Args: raw, Transport: "mcp", Toolsets: sets}, noDirect)
			if err != nil || !via {
				t.Fatalf("%s: %v (via hub %v)", tool, err, via)
			}
			return res
		}
		rd := forward("read", map[string]string{"path": name})
		res := forward("edit", map[string]string{"input": fmt.Sprintf("¶%s#%s\nREM", name, rd.Shown[0].Tag)})
		if got, want := strings.Contains(res.Text, "restore"), sets != "hashline"; got != want {
			t.Errorf("toolsets %q: the REM result names restore %v, want %v:\n%s", sets, got, want, res.Text)
		}
	}
}
