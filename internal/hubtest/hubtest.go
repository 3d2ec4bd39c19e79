//go:build unix

package hubtest

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashls/hashls/workspace"
)

// RefusingHub makes a root holding a.txt ("on disk\n") and a state
// directory, both under a short temporary directory (a socket path is
// bounded), and listens on the root's hub socket as a hub that refuses
// every call with reason (as one of another protocol would). Everything
// is removed when the test ends.
func RefusingHub(t testing.TB, reason string) (root, state string) {
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
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sock, err := workspace.HubSocket(state, root)
	if err != nil {
		t.Fatal(err)
	}
	if err := workspace.MkdirHub(sock); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	refusal, _ := json.Marshal(map[string]string{"refused": reason})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = bufio.NewReader(c).ReadString('\n')
			c.Write(append(refusal, '\n'))
			c.Close()
		}
	}()
	return root, state
}
