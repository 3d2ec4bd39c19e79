//go:build windows

package hub

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/workspace"
)

// checkPrivate: the pipe is owned by this user, and its DACL (protected
// from inheritance) lets in only this user and SYSTEM.
func checkPrivate(t *testing.T, h *Server) {
	t.Helper()
	c, err := h.ep.dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pc := c.(*pipeConn)
	sd, err := windows.GetSecurityInfo(windows.Handle(pc.Fd()), windows.SE_KERNEL_OBJECT, windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	if owner, _, err := sd.Owner(); err != nil || !owner.Equals(h.ep.user) {
		t.Fatalf("pipe owner %v (%v), want %v", owner, err, h.ep.user)
	}
	if ctl, _, err := sd.Control(); err != nil || ctl&windows.SE_DACL_PROTECTED == 0 {
		t.Fatalf("DACL not protected: control %#x (%v); %s", ctl, err, sd)
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		t.Fatalf("no DACL (%v): anyone may open the pipe; %s", err, sd)
	}
	system, err := windows.CreateWellKnownSid(windows.WinLocalSystemSid)
	if err != nil {
		t.Fatal(err)
	}
	for i := range uint32(dacl.AceCount) {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			t.Fatal(err)
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || !(sid.Equals(h.ep.user) || sid.Equals(system)) {
			t.Errorf("ACE %d (type %d) lets in %v; want only %v and SYSTEM", i, ace.Header.AceType, sid, h.ep.user)
		}
	}
}

// deadHub leaves what a killed hub leaves on Windows: its lock file, not
// held (the pipe went away with the process).
func deadHub(t *testing.T, ep endpoint) {
	t.Helper()
	if err := workspace.MkdirHub(ep.lock); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ep.lock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// leftover says what of a hub is still there ("" when nothing): its pipe.
func leftover(ep endpoint) string {
	name, _ := windows.UTF16PtrFromString(ep.pipe)
	h, err := windows.CreateFile(name, windows.GENERIC_READ, 0, nil, windows.OPEN_EXISTING, 0, 0)
	if errors.Is(err, windows.ERROR_FILE_NOT_FOUND) {
		return ""
	}
	if err == nil {
		windows.CloseHandle(h)
	}
	return "pipe " + ep.pipe + " still there (" + errText(err) + ")"
}

func errText(err error) string {
	if err == nil {
		return "opened"
	}
	return err.Error()
}

// TestPipeNames: one pipe per user, state directory and root; the state
// directory's case does not matter (NTFS).
func TestPipeNames(t *testing.T) {
	root, state := testRoot(t)
	a, err := endpointOf(state, root)
	if err != nil {
		t.Fatal(err)
	}
	path, err := workspace.HubSocket(state, root)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a.pipe, `\\.\pipe\hashls-`) || a.lock != path+".lock" {
		t.Fatalf("endpoint %+v, want the lock %s.lock", a, path)
	}
	b, _ := endpointOf(state+"2", root)
	c, _ := endpointOf(strings.ToUpper(state), root)
	other := filepath.Join(filepath.Dir(root), "o")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	d, _ := endpointOf(state, other)
	if a.pipe == b.pipe || a.pipe != c.pipe || a.pipe == d.pipe {
		t.Fatalf("pipes: %s (state2 %s, STATE %s, other root %s)", a.pipe, b.pipe, c.pipe, d.pipe)
	}
}

// TestSquattedPipe: a pipe of the hub's name made by a process that does
// not hold the hub lock (another program, first) is not shared: Listen
// fails with the reason (not ErrBusy), and succeeds once it is gone.
func TestSquattedPipe(t *testing.T) {
	root, state := testRoot(t)
	ep, err := endpointOf(state, root)
	if err != nil {
		t.Fatal(err)
	}
	squat, err := ep.listen()
	if err != nil {
		t.Fatal(err)
	}
	defer squat.Close()
	if h, err := squat.(*pipeListener).instance(true); err == nil {
		windows.CloseHandle(h)
		t.Skip("this Windows does not enforce FILE_FLAG_FIRST_PIPE_INSTANCE (wine 8.0 does not)")
	}
	run := func(context.Context, Request) (*agent.Result, error) { return &agent.Result{Text: "ok"}, nil }
	if h, err := Listen(state, root, run, t.Logf); err == nil || errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "exists already") {
		if h != nil {
			h.Close()
		}
		t.Fatalf("Listen over a squatted pipe: %v", err)
	}
	squat.Close()
	h, err := Listen(state, root, run, t.Logf)
	if err != nil {
		t.Fatalf("Listen once the pipe is gone: %v", err)
	}
	h.Close()
}
