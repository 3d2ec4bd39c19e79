//go:build unix

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hashls/hashls/internal/hubtest"
)

// TestCLIHubFallbackLogged: when the root's hub refuses a forwarded call,
// `hashls tool` runs it itself, prints its result on stdout and says so on
// stderr.
func TestCLIHubFallbackLogged(t *testing.T) {
	root, state := hubtest.RefusingHub(t, "protocol 9 only")
	t.Setenv("HASHLS_STATE_DIR", state)
	var out, errb bytes.Buffer
	code := run([]string{"--root", root, "tool", "read", `{"path":"a.txt"}`}, strings.NewReader(""), &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "1:on disk") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "did not run read (the hub refused the call: protocol 9 only)") || strings.Contains(out.String(), "hub") {
		t.Errorf("stderr %q, stdout %q: want the fallback on stderr only", errb.String(), out.String())
	}
}
