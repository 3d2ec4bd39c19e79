package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/internal/replaytest"
)

// mcpPlayer runs edits through an MCP client session: files on disk, tool
// calls over the protocol.
type mcpPlayer struct {
	t    *testing.T
	s    *session
	root string
}

func (p mcpPlayer) write(rel, content string) error {
	full := filepath.Join(p.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return os.WriteFile(full, []byte(content), 0o644)
}

func (p mcpPlayer) Read(rel, content string) (string, error) {
	if err := p.write(rel, content); err != nil {
		return "", err
	}
	if res := p.s.call(p.t, "read", map[string]any{"path": rel}); res.IsError {
		return "", errors.New(text(p.t, res))
	}
	return edit.Tag([]byte(content)), nil
}

func (p mcpPlayer) Change(rel, content string) error { return p.write(rel, content) }

func (p mcpPlayer) Edit(input string) error {
	if res := p.s.call(p.t, "edit", map[string]any{"input": input}); res.IsError {
		return errors.New(text(p.t, res))
	}
	return nil
}

func (p mcpPlayer) Content(rel string) (string, error) {
	b, err := os.ReadFile(filepath.Join(p.root, filepath.FromSlash(rel)))
	return string(b), err
}

// TestMergeReplayMCP plays real concurrent edits of the merge-replay
// corpus (20 spread over it, and five made to conflict) through the MCP
// server's edit tool: fresh edits land byte for byte, stale ones as git's
// merge or refused.
func TestMergeReplayMCP(t *testing.T) {
	cs, err := replaytest.LoadAll("../testdata/conformance/merge-replay")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	s := connect(t, Options{Root: root, NoHub: true, Tools: agent.Deps{Edit: agent.EditSettings{AllowUnseen: true}}}, nil)
	replaytest.Run(t, mcpPlayer{t, s, root}, replaytest.Sample(cs, 20))
}
