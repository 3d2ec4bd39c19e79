package lsp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// capsWithRename is fullCaps plus workspaceEdit.resourceOperations.
func capsWithRename(ops ...string) map[string]any {
	b, _ := json.Marshal(fullCaps)
	var caps map[string]any
	_ = json.Unmarshal(b, &caps)
	caps["workspace"].(map[string]any)["workspaceEdit"].(map[string]any)["resourceOperations"] = ops
	return caps
}

// TestMoveFileOpenBufferOverLSP moves a file the editor has open with
// unsaved text. A client that applies rename operations gets one: it moves
// the file on disk and its buffer follows (unsaved text kept, reopened
// under the new name), and the tools read the buffer there. Without the
// capability the buffer's text is written to the destination, the source
// deleted, and the result tells the user to close the old buffer. A client
// that refuses the rename leaves everything as it was.
func TestMoveFileOpenBufferOverLSP(t *testing.T) {
	const disk, buffer = "port = 1\n", "port = 1 // unsaved\n"
	for _, tc := range []struct {
		name     string
		caps     map[string]any
		refuse   bool
		kind     string            // the error kind; "" for success
		renames  int               // RenameFile operations the client got
		files    map[string]string // disk after ("" absent)
		openAt   string            // where the client's buffer is after
		note     string            // in the result's text
		overlay  bool              // the destination is reported as the editor's
		readDest string            // read_file of the destination after ("" skip)
	}{
		{name: "client renames", caps: capsWithRename("create", "rename", "delete"), renames: 1,
			files: map[string]string{"a.txt": "", "sub/b.txt": disk}, openAt: "sub/b.txt",
			note: "the editor moved its open buffer of a.txt", overlay: true, readDest: buffer},
		{name: "no rename capability", caps: fullCaps,
			files: map[string]string{"a.txt": "", "sub/b.txt": buffer}, openAt: "a.txt",
			note: "close the old buffer without saving and open sub/b.txt", readDest: buffer},
		{name: "resourceOperations without rename", caps: capsWithRename("create", "delete"),
			files: map[string]string{"a.txt": "", "sub/b.txt": buffer}, openAt: "a.txt",
			note: "close the old buffer without saving", readDest: buffer},
		{name: "client refuses", caps: capsWithRename("rename"), refuse: true, kind: agent.KindStale, renames: 0,
			files: map[string]string{"a.txt": disk, "sub/b.txt": "", "sub": ""}, openAt: "a.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClient(t, testOptions())
			c.initialize(map[string]any{"capabilities": tc.caps})
			u := c.open("a.txt", disk, buffer)
			c.mu.Lock()
			c.refuseEdits = tc.refuse
			c.mu.Unlock()
			var res struct {
				Text    string `json:"text"`
				Details struct {
					Overlay bool `json:"overlay"`
				} `json:"details"`
			}
			err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.move_file",
				"arguments": []any{map[string]any{"source": "a.txt", "destination": "sub/b.txt"}}}, &res)
			if tc.kind != "" {
				if k := errorKind(t, rpcError(t, err, jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed))); k != tc.kind {
					t.Fatalf("error kind %s, want %s", k, tc.kind)
				}
			} else if err != nil {
				t.Fatalf("hashls.move_file: %v", err)
			}
			c.mu.Lock()
			renames := len(c.renames)
			_, openAt := c.docs[string(pathToURI(filepath.Join(c.root, filepath.FromSlash(tc.openAt))))]
			c.mu.Unlock()
			if renames != tc.renames || !openAt {
				t.Fatalf("client: %d renames, buffer open at %s: %v; want %d renames", renames, tc.openAt, openAt, tc.renames)
			}
			if tc.openAt == "a.txt" && c.clientText(u) != buffer {
				t.Fatalf("client buffer %q", c.clientText(u))
			}
			for rel, want := range tc.files {
				b, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
				_, lerr := os.Lstat(filepath.Join(c.root, filepath.FromSlash(rel)))
				if (want == "" && lerr == nil) || (want != "" && string(b) != want) {
					t.Fatalf("%s on disk = %q (%v), want %q", rel, b, err, want)
				}
			}
			if tc.kind != "" {
				return
			}
			if !strings.Contains(res.Text, tc.note) || res.Details.Overlay != tc.overlay {
				t.Fatalf("result %q (overlay %v) lacks %q (overlay %v)", res.Text, res.Details.Overlay, tc.note, tc.overlay)
			}
			var rd struct {
				Details struct {
					Content string `json:"content"`
					Overlay bool   `json:"overlay"`
				} `json:"details"`
			}
			c.barrier()
			if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.read_file", "arguments": []any{map[string]any{"path": "sub/b.txt"}}}, &rd); err != nil {
				t.Fatalf("read_file after the move: %v", err)
			}
			if rd.Details.Content != tc.readDest || rd.Details.Overlay != tc.overlay {
				t.Fatalf("read_file sub/b.txt: %+v, want %q (overlay %v)", rd.Details, tc.readDest, tc.overlay)
			}
		})
	}
}

// TestManyHunkEditOfOpenDocument: a 50-hunk edit of an open document
// reaches the editor as one versioned workspace/applyEdit holding one text
// edit per changed region, not one edit spanning the first to the last
// change; applying them gives the edited text, and the disk is untouched.
func TestManyHunkEditOfOpenDocument(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	var lines []string
	for i := 1; i <= 1000; i++ {
		lines = append(lines, fmt.Sprintf("line %d of the document", i))
	}
	disk := strings.Join(lines, "\n") + "\n"
	buffer := "// unsaved\n" + disk // the buffer differs from the disk
	u := c.open("big.txt", disk, buffer)
	var read struct {
		Details map[string]any `json:"details"`
	}
	if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.read", "arguments": []any{map[string]any{"path": "big.txt"}}}, &read); err != nil {
		t.Fatal(err)
	}
	tag, _ := read.Details["tag"].(string)
	var input strings.Builder
	input.WriteString("¶big.txt#" + tag + "\n")
	want := strings.Split(buffer, "\n")
	for h := 0; h < 50; h++ {
		n := 10 + h*19 // 1-based buffer line
		fmt.Fprintf(&input, "replace %d..%d:\n+changed %d\n", n, n, h)
		want[n-1] = fmt.Sprintf("changed %d", h)
	}
	if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.edit", "arguments": []any{map[string]any{"input": input.String()}}}, nil); err != nil {
		t.Fatalf("hashls.edit: %v", err)
	}
	if got := c.clientText(u); got != strings.Join(want, "\n") {
		t.Fatalf("client buffer differs from the expected text")
	}
	if b, _ := os.ReadFile(filepath.Join(c.root, "big.txt")); string(b) != disk {
		t.Fatalf("disk was written")
	}
	c.mu.Lock()
	last := c.applyEdits[len(c.applyEdits)-1]
	c.mu.Unlock()
	var p struct {
		Edit struct {
			DocumentChanges []struct {
				TextDocument struct {
					Version *int32 `json:"version"`
				} `json:"textDocument"`
				Edits []json.RawMessage `json:"edits"`
			} `json:"documentChanges"`
		} `json:"edit"`
	}
	if err := json.Unmarshal(last, &p); err != nil || len(p.Edit.DocumentChanges) != 1 {
		t.Fatalf("applyEdit %s: %v", last, err)
	}
	dc := p.Edit.DocumentChanges[0]
	if dc.TextDocument.Version == nil || *dc.TextDocument.Version != 1 {
		t.Fatalf("applyEdit not versioned: %s", last)
	}
	if len(dc.Edits) != 50 {
		t.Fatalf("applyEdit holds %d text edits, want 50 (one per hunk)", len(dc.Edits))
	}
}
