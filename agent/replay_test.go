package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/internal/replaytest"
)

// cliPlayer runs edits through the tools as the CLI does: files on disk,
// the store, the tree-sitter resolver and parse proof; seen lines off, as
// the merge-replay corpus is played.
type cliPlayer struct {
	t   testing.TB
	env *Env
}

func (p cliPlayer) Read(rel, content string) (string, error) {
	writeRootFile(p.t, p.env, rel, content)
	if _, err := runTool(p.env, "read", map[string]string{"path": rel}); err != nil {
		return "", err
	}
	return edit.Tag([]byte(content)), nil
}

func (p cliPlayer) Change(rel, content string) error {
	writeRootFile(p.t, p.env, rel, content)
	return nil
}

func (p cliPlayer) Edit(input string) error {
	_, err := runTool(p.env, "edit", map[string]string{"input": input})
	return err
}

func (p cliPlayer) Content(rel string) (string, error) {
	b, err := os.ReadFile(filepath.Join(p.env.WS.Root(), filepath.FromSlash(rel)))
	return string(b), err
}

// TestMergeReplayCLI plays real concurrent edits of the merge-replay
// corpus through the edit tool as the CLI runs it: every fresh edit lands
// byte for byte, every stale one as git's merge or refused with the file
// untouched. -short plays 20 cases spread over the corpus (and five that
// conflict), else all.
func TestMergeReplayCLI(t *testing.T) {
	cs, err := replaytest.LoadAll("../testdata/conformance/merge-replay")
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		cs = replaytest.Sample(cs, 20)
	}
	env := newTestEnv(t)
	env.Edit.AllowUnseen = true
	replaytest.Run(t, cliPlayer{t, env}, cs)
}
