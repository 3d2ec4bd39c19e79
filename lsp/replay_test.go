package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/hub"
	"github.com/hashls/hashls/internal/replaytest"
)

// hubPlayer runs edits as a CLI or MCP process does when the root's hub
// runs and the file is open in the editor: the calls are forwarded to the
// hub, the file is the editor's buffer (its unsaved text is what the tag
// and the edit see), and the edit reaches the buffer through
// workspace/applyEdit, never the disk.
type hubPlayer struct {
	c     *testClient
	state string
	docs  map[string]string // rel -> URI
	disk  map[string]string // rel -> what the disk holds
}

func (p *hubPlayer) forward(tool string, args any) (*agent.Result, error) {
	raw, _ := json.Marshal(args)
	noDirect := func(context.Context, hub.Fallback) (*agent.Result, error) {
		return nil, errors.New("the call ran directly although the hub runs")
	}
	res, via, err := hub.Forward(context.Background(), p.state, p.c.root, hub.Request{ID: hub.NewCallID(), Tool: tool, Args: raw, Transport: "cli"}, noDirect)
	if err == nil && !via {
		err = errors.New("the call was not forwarded to the hub")
	}
	return res, err
}

func (p *hubPlayer) Read(rel, content string) (string, error) {
	if _, ok := p.docs[rel]; !ok {
		// On disk an older text; the editor holds content, unsaved.
		p.disk[rel] = "// on disk\n"
		p.docs[rel] = p.c.open(rel, p.disk[rel], content)
		p.c.barrier()
	} else if err := p.Change(rel, content); err != nil {
		return "", err
	}
	res, err := p.forward("read", map[string]string{"path": rel})
	if err != nil {
		return "", err
	}
	if len(res.Shown) != 1 {
		return "", errors.New("the read showed no snapshot")
	}
	return res.Shown[0].Tag, nil
}

// Change replaces the buffer's whole text, as the user typing would.
func (p *hubPlayer) Change(rel, content string) error {
	u := p.docs[rel]
	p.c.change(u, protocol.Range{End: protocol.Position{Line: 1 << 20}}, content)
	p.c.barrier()
	return nil
}

func (p *hubPlayer) Edit(input string) error {
	_, err := p.forward("edit", map[string]string{"input": input})
	return err
}

func (p *hubPlayer) Content(rel string) (string, error) {
	if b, err := os.ReadFile(filepath.Join(p.c.root, filepath.FromSlash(rel))); err != nil || string(b) != p.disk[rel] {
		return "", errors.New("the disk was written although the file is open in the editor")
	}
	return p.c.clientText(p.docs[rel]), nil
}

// TestMergeReplayHub plays real concurrent edits of the merge-replay
// corpus (20 spread over it, and five made to conflict) through the hub
// with the file open in the editor, whose unsaved text is the other
// side's change: fresh edits land in the buffer byte for byte, stale ones
// as git's merge or refused with the buffer untouched.
func TestMergeReplayHub(t *testing.T) {
	cs, err := replaytest.LoadAll("../testdata/conformance/merge-replay")
	if err != nil {
		t.Fatal(err)
	}
	c, state := hubClientInit(t, map[string]any{"initializationOptions": map[string]any{"seenLines": false}})
	p := &hubPlayer{c: c, state: state, docs: map[string]string{}, disk: map[string]string{}}
	replaytest.Run(t, p, replaytest.Sample(cs, 20))
}
