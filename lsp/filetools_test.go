package lsp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashls/hashls/agent"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// TestFileToolsOverLSP runs the file tools as hashls.<name> commands: they
// read the open buffer, their edits go to the editor, and their errors carry
// the kind and the suggested action.
func TestFileToolsOverLSP(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	disk, buffer := "port = 1\n", "port = 1 // unsaved\n"
	u := c.open("f.txt", disk, buffer)
	var res struct {
		Details struct {
			Content string `json:"content"`
			SHA256  string `json:"sha256"`
			Overlay bool   `json:"overlay"`
		} `json:"details"`
	}
	if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.read_file", "arguments": []any{map[string]any{"path": "f.txt"}}}, &res); err != nil {
		t.Fatalf("hashls.read_file: %v", err)
	}
	sum := sha256.Sum256([]byte(buffer))
	if res.Details.Content != buffer || res.Details.SHA256 != hex.EncodeToString(sum[:]) || !res.Details.Overlay {
		t.Fatalf("read_file did not read the buffer: %+v", res.Details)
	}
	edit := map[string]any{"path": "f.txt", "expectedSha256": res.Details.SHA256, "edits": []any{map[string]any{"oldText": "port = 1", "newText": "port = 2"}}}
	if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.edit_file", "arguments": []any{edit}}, nil); err != nil {
		t.Fatalf("hashls.edit_file: %v", err)
	}
	if got := c.clientText(u); got != "port = 2 // unsaved\n" {
		t.Fatalf("client buffer %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(c.root, "f.txt")); string(b) != disk {
		t.Fatalf("disk was written: %q", b)
	}
	// The same sha256 again is stale; create_file over the open file exists.
	for _, tc := range []struct {
		command string
		args    map[string]any
		kind    string
	}{
		{"hashls.edit_file", edit, agent.KindStale},
		{"hashls.create_file", map[string]any{"path": "f.txt", "content": "x"}, agent.KindAlreadyExists},
	} {
		err := c.call("workspace/executeCommand", map[string]any{"command": tc.command, "arguments": []any{tc.args}}, nil)
		e := rpcError(t, err, jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed))
		var data struct {
			Kind            string `json:"kind"`
			SuggestedAction string `json:"suggestedAction"`
		}
		if err := json.Unmarshal(e.Data, &data); err != nil || data.Kind != tc.kind || data.SuggestedAction == "" {
			t.Fatalf("%s: error data %s, want kind %s and a suggested action", tc.command, e.Data, tc.kind)
		}
	}
}
