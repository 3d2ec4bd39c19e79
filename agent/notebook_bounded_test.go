package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A notebook with a 24 MiB output: read shows its cell text, says what it
// elided, and never holds the output (it allocates a few MB); a write of
// one cell keeps the output's bytes.
func TestNotebookBigOutput(t *testing.T) {
	env := newTestEnv(t)
	out := strings.Repeat("x", 24<<20)
	nb := `{"cells": [{"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [{"name": "stdout", "output_type": "stream", "text": ["` + out + `"]}], "source": ["print(1)"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}` + "\n"
	out = ""
	writeRootFile(t, env, "big.ipynb", nb)
	nb = ""
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := runTool(env, "read", map[string]any{"path": "big.ipynb"})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("the read allocated %d bytes", got)
	}
	if !strings.Contains(res.Text, "\n1:# %% [code] cell:0 (1 output elided, 24.0 MiB)\n2:print(1)\n") {
		t.Fatalf("read:\n%s", res.Text)
	}
	if d := res.Details.(*readDetails); len(d.SHA256) != 64 || d.Kind != "notebook" {
		t.Errorf("details %+v", d)
	}
	if _, err := runTool(env, "write", map[string]any{"path": "big.ipynb", "content": "# %% [code] cell:0\nprint(2)\n"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(env.WS.Root(), "big.ipynb"))
	if err != nil || !bytes.Contains(b, []byte(`"source": ["print(2)"]`)) || !bytes.Contains(b, []byte(`"text": ["`+strings.Repeat("x", 1<<10))) || len(b) < 24<<20 {
		t.Errorf("after the write: %d bytes, %v", len(b), err)
	}
}
