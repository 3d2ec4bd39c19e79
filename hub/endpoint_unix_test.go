//go:build !windows

package hub

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashls/hashls/workspace"
)

// checkPrivate: the socket is the owner's only.
func checkPrivate(t *testing.T, h *Server) {
	t.Helper()
	if fi, err := os.Stat(h.Addr()); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Fatalf("socket %v, %v: want owner-only", fi, err)
	}
}

// deadHub leaves what a killed hub leaves: its socket file, nobody
// listening.
func deadHub(t *testing.T, ep endpoint) {
	t.Helper()
	if err := workspace.MkdirHub(ep.lock); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", ep.sock)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
}

// leftover says what of a hub is still there ("" when nothing).
func leftover(ep endpoint) string {
	if _, err := os.Stat(ep.sock); !errors.Is(err, os.ErrNotExist) {
		return fmt.Sprintf("socket file %s (stat: %v)", ep.sock, err)
	}
	return ""
}

// TestLongSocketPath: a state directory too deep for a socket address
// means no hub: Listen says why and what to do, and calls run directly.
func TestLongSocketPath(t *testing.T) {
	root, state := testRoot(t)
	state = filepath.Join(state, strings.Repeat("d", maxSocketPath))
	if _, err := Listen(state, root, nil, nil); err == nil || !strings.Contains(err.Error(), "HASHLS_STATE_DIR to a shorter directory") {
		t.Fatalf("Listen: %v", err)
	}
	runsDirectly(t, state, root, "a socket path too long")
}
