package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteExpectedSha256(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.txt", "v1\n")
	res, err := runTool(env, "read", map[string]string{"path": "a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	sum := res.Details.(*readDetails).SHA256
	writeRootFile(t, env, "a.txt", "v2 (someone else)\n")
	var ae *Error
	_, err = runTool(env, "write", map[string]any{"path": "a.txt", "content": "mine\n", "expectedSha256": sum})
	if !errors.As(err, &ae) || ae.Kind != KindStale || !strings.Contains(ae.Message, "Re-read the file to obtain the current sha256") {
		t.Fatalf("stale write: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(env.WS.Root(), "a.txt")); string(got) != "v2 (someone else)\n" {
		t.Fatalf("stale write changed the file: %q", got)
	}
	if _, err := runTool(env, "write", map[string]any{"path": "a.txt", "content": "x", "expectedSha256": ""}); !errors.As(err, &ae) || ae.Kind != KindStale {
		t.Fatalf("create over an existing file: %v", err)
	}
	if _, err := runTool(env, "write", map[string]any{"path": "new.txt", "content": "x", "expectedSha256": ""}); err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := runTool(env, "write", map[string]any{"path": "a.txt", "content": "mine\n", "expectedSha256": sha256Hex([]byte("v2 (someone else)\n"))}); err != nil {
		t.Fatalf("write with the current sha256: %v", err)
	}
}
