package hub

import (
	"bufio"
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
	"github.com/hashls/hashls/workspace"
)

// testRoot returns a root and a state directory short enough for a socket
// path.
func testRoot(t *testing.T) (root, state string) {
	t.Helper()
	base, err := os.MkdirTemp("", "hub")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	root, state = filepath.Join(base, "r"), filepath.Join(base, "s")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, state
}

// runsDirectly forwards a call that no hub may take: it must run directly,
// and not as a retry, with nothing to log (no hub was there).
func runsDirectly(t *testing.T, state, root, why string) {
	t.Helper()
	ran := false
	_, via, err := Forward(context.Background(), state, root, Request{ID: NewCallID(), Tool: "read"}, func(_ context.Context, fb Fallback) (*agent.Result, error) {
		ran = fb == Fallback{}
		return &agent.Result{}, nil
	})
	if err != nil || via || !ran {
		t.Fatalf("%s: err %v, via a hub %v, ran directly (not as a retry, nothing to log) %v", why, err, via, ran)
	}
}

func noDirect(t *testing.T) Direct {
	return func(context.Context, Fallback) (*agent.Result, error) {
		t.Error("the call ran directly although a hub answered")
		return nil, errors.New("direct")
	}
}

// TestForwardToHub: a call reaches the hub's runner with its id, tool,
// arguments and transport, and its result (details included) comes back.
func TestForwardToHub(t *testing.T) {
	root, state := testRoot(t)
	got := make(chan Request, 1)
	h, err := Listen(state, root, func(ctx context.Context, req Request) (*agent.Result, error) {
		got <- req
		return &agent.Result{Text: "ran " + req.Tool, Details: map[string]any{"n": 1}, Changes: []agent.Change{{Path: "a", Op: "update", AuditID: 3}}}, nil
	}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	checkPrivate(t, h)
	if _, err := Listen(state, root, nil, nil); !errors.Is(err, ErrBusy) {
		t.Fatalf("second hub: %v, want ErrBusy", err)
	}
	res, via, err := Forward(context.Background(), state, root, Request{ID: "c1", Tool: "read", Args: json.RawMessage(`{"path":"a"}`), Transport: "cli"}, noDirect(t))
	if err != nil || !via {
		t.Fatalf("Forward: %v (via hub %v)", err, via)
	}
	d, _ := json.Marshal(res.Details)
	if res.Text != "ran read" || string(d) != `{"n":1}` || len(res.Changes) != 1 || res.Changes[0].AuditID != 3 {
		t.Fatalf("result %+v details %s", res, d)
	}
	req := <-got
	if req.ID != "c1" || req.Tool != "read" || string(req.Args) != `{"path":"a"}` || req.Transport != "cli" {
		t.Fatalf("request %+v", req)
	}
	// A text-only caller gets the text and the warnings alone.
	h.run = func(context.Context, Request) (*agent.Result, error) {
		return &agent.Result{Text: "ran", Details: map[string]any{"n": 1}, Changes: []agent.Change{{Path: "a"}}, Shown: []agent.Shown{{Path: "a"}}, Warnings: []string{"w"}}, nil
	}
	res, _, err = Forward(context.Background(), state, root, Request{ID: "c3", Tool: "edit", TextOnly: true}, noDirect(t))
	if err != nil || res.Text != "ran" || res.Details != nil || res.Changes != nil || res.Shown != nil || len(res.Warnings) != 1 {
		t.Fatalf("text-only result %+v, %v", res, err)
	}
	// A tool error keeps its kind and suggested action.
	h2err := &agent.Error{Kind: agent.KindStale, Message: "moved", SuggestedAction: "read again"}
	h.run = func(context.Context, Request) (*agent.Result, error) { return nil, h2err }
	_, _, err = Forward(context.Background(), state, root, Request{ID: "c2", Tool: "edit"}, noDirect(t))
	var ae *agent.Error
	if !errors.As(err, &ae) || ae.Kind != agent.KindStale || ae.SuggestedAction != "read again" {
		t.Fatalf("error %v", err)
	}
	// Closing removes the endpoint: the next call runs directly.
	h.Close()
	if left := leftover(h.ep); left != "" {
		t.Fatalf("after Close: %s", left)
	}
	runsDirectly(t, state, root, "without a hub")
}

// TestStaleEndpoint: what a dead hub leaves (on Unix its socket file, on
// Windows only its lock file) is cleared by a caller (which runs the call
// directly) and by the next hub.
func TestStaleEndpoint(t *testing.T) {
	root, state := testRoot(t)
	ep, err := endpointOf(state, root)
	if err != nil {
		t.Fatal(err)
	}
	deadHub(t, ep)
	runsDirectly(t, state, root, "dead hub")
	if left := leftover(ep); left != "" {
		t.Fatalf("the caller left the dead hub's endpoint: %s", left)
	}
	deadHub(t, ep)
	h, err := Listen(state, root, func(context.Context, Request) (*agent.Result, error) { return &agent.Result{Text: "ok"}, nil }, t.Logf)
	if err != nil {
		t.Fatalf("Listen over a dead hub's endpoint: %v", err)
	}
	defer h.Close()
	if res, via, err := Forward(context.Background(), state, root, Request{ID: "y", Tool: "read"}, noDirect(t)); err != nil || !via || res.Text != "ok" {
		t.Fatalf("after the new hub: %v %v %+v", err, via, res)
	}
}

// TestRefusedBeforeAck: a hub that refuses a request (another protocol
// version) never runs it: the caller runs it directly, not as a retry, and
// is told why (to log it).
func TestRefusedBeforeAck(t *testing.T) {
	root, state := testRoot(t)
	ep, err := endpointOf(state, root)
	if err != nil {
		t.Fatal(err)
	}
	_ = workspace.MkdirHub(ep.lock)
	ln, err := ep.listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		_, _ = bufio.NewReader(c).ReadString('\n')
		c.Write([]byte(`{"refused":"protocol 2 only"}` + "\n"))
		c.Close()
	}()
	var fb Fallback
	if _, _, err := Forward(context.Background(), state, root, Request{ID: "z", Tool: "edit"}, func(_ context.Context, f Fallback) (*agent.Result, error) {
		fb = f
		return &agent.Result{}, nil
	}); err != nil || fb.Retry || !strings.Contains(fb.Why, "the hub refused the call: protocol 2 only") {
		t.Fatalf("refused call: err %v, fallback %+v", err, fb)
	}
}

// The helper hub process: TestHelperHub runs as a hub when HUB_HELPER is
// set; it applies each call for real through the agent tools, prints
// "applied" and then hangs (HUB_HELPER=after) or hangs before running
// (HUB_HELPER=before), so that the test can kill it mid-call.
func TestHelperHub(t *testing.T) {
	mode := os.Getenv("HUB_HELPER")
	if mode == "" {
		t.Skip("helper process")
	}
	root, state := os.Getenv("HUB_ROOT"), os.Getenv("HUB_STATE")
	ws, err := workspace.Open(root, workspace.Options{StateDir: state})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	ts := agent.New(agent.Deps{WS: ws})
	h, err := Listen(state, root, func(ctx context.Context, req Request) (*agent.Result, error) {
		if mode == "before" {
			fmt.Println("accepted")
			select {}
		}
		res, err := ts.Run(ctx, req.Tool, req.Args, agent.Call{Transport: req.Transport, ID: req.ID})
		fmt.Println("applied", err)
		for res != nil || err != nil {
			time.Sleep(time.Hour) // killed here
		}
		return res, err
	}, func(string, ...any) {})
	if err != nil {
		fmt.Println("listen:", err)
		os.Exit(3)
	}
	fmt.Println("listening", h.Addr())
	select {}
}

// helperWait bounds each wait for the helper hub process (its start, a
// line it prints) and for the caller after the kill: generous, because a
// process start under wine on a loaded CI machine takes seconds.
const helperWait = 90 * time.Second

// TestHubKilledMidCall kills a hub process after it accepted a call (before
// and after applying it): the caller's retry applies the edit exactly once.
func TestHubKilledMidCall(t *testing.T) {
	for _, mode := range []string{"before", "after"} {
		t.Run(mode, func(t *testing.T) {
			root, state := testRoot(t)
			file := filepath.Join(root, "a.txt")
			if err := os.WriteFile(file, []byte("one\ntwo\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHub$")
			cmd.Env = append(os.Environ(), "HUB_HELPER="+mode, "HUB_ROOT="+root, "HUB_STATE="+state)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			lines := make(chan string, 8)
			go func() {
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			wait := func(prefix string) {
				t.Helper()
				select {
				case l := <-lines:
					if !strings.HasPrefix(l, prefix) {
						t.Fatalf("helper said %q, want %s…", l, prefix)
					}
				case <-time.After(helperWait):
					t.Fatalf("helper did not say %s", prefix)
				}
			}
			wait("listening")

			ws, err := workspace.Open(root, workspace.Options{StateDir: state})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			ts := agent.New(agent.Deps{WS: ws})
			// An edit that would apply twice if run twice: insert at the
			// tail (a stale tag's recovery would place it again).
			rd, err := ts.Run(context.Background(), "read", json.RawMessage(`{"path":"a.txt"}`), agent.Call{Transport: "cli"})
			if err != nil {
				t.Fatal(err)
			}
			tag := rd.Shown[0].Tag
			args := json.RawMessage(fmt.Sprintf(`{"input":"¶a.txt#%s\ninsert tail:\n+three\n"}`, tag))

			type outcome struct {
				res *agent.Result
				err error
			}
			done := make(chan outcome, 1)
			retried := make(chan bool, 1)
			go func() {
				res, _, err := Forward(context.Background(), state, root, Request{ID: "call-1", Tool: "edit", Args: args, Transport: "cli"},
					func(ctx context.Context, fb Fallback) (*agent.Result, error) {
						retried <- fb.Retry && fb.Why != ""
						return ts.Run(ctx, "edit", args, agent.Call{Transport: "cli", ID: "call-1", Retry: fb.Retry})
					})
				done <- outcome{res, err}
			}()
			if mode == "before" {
				wait("accepted")
			} else {
				wait("applied <nil>")
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			var o outcome
			select {
			case o = <-done:
			case <-time.After(helperWait):
				t.Fatal("the caller did not finish after the hub died")
			}
			if o.err != nil {
				t.Fatalf("caller: %v", o.err)
			}
			if r := <-retried; !r {
				t.Fatal("the caller ran the call directly without the retry flag")
			}
			b, _ := os.ReadFile(file)
			if string(b) != "one\ntwo\nthree\n" {
				t.Fatalf("file %q: the edit was not applied exactly once", b)
			}
			rows, err := ws.Store().AuditByCall("call-1")
			if err != nil || len(rows) != 1 {
				t.Fatalf("audit rows of the call: %v %v", rows, err)
			}
			already, _ := json.Marshal(o.res.Details)
			if mode == "after" != strings.Contains(string(already), `"alreadyApplied":true`) {
				t.Fatalf("%s: result details %s", mode, already)
			}
		})
	}
}
