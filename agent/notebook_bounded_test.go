package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/hashls/hashls/treesitter"
	"github.com/hashls/hashls/workspace"
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

// boundedChildEnv names the root of TestNotebookWriteBoundedChild's
// notebook; set, the child runs.
const boundedChildEnv = "HASHLS_NOTEBOOK_BOUNDED_CHILD"

// Writing one cell of a notebook with a 48 MiB output, and editing one,
// holds neither the old notebook nor the new one, in Go or in SQLite
// (whose heap the Go statistics do not see): a process of its own (the
// child) measures the peak of its resident memory (VmHWM) during each,
// which holding the output once would raise by 48 MiB (the write raised it
// by 5 times that, the edit by 4 times). The old notebook is in the trash,
// in pieces, and restores exactly; so does one an edit removes.
func TestNotebookWriteBounded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is Linux's")
	}
	const output = 48 << 20
	root, state := t.TempDir(), t.TempDir()
	path := filepath.Join(root, "big.ipynb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	w := io.MultiWriter(f, h)
	io.WriteString(w, `{"cells":[{"cell_type":"code","execution_count":1,"id":"a1","metadata":{},"outputs":[{"name":"stdout","output_type":"stream","text":["`)
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for range output >> 20 {
		w.Write(chunk)
	}
	io.WriteString(w, `"]}],"source":["print(1)\n","x = 2"]},{"cell_type":"markdown","id":"b2","metadata":{},"source":["# Title"]}],"metadata":{},"nbformat":4,"nbformat_minor":5}`+"\n")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	oldSum := hex.EncodeToString(h.Sum(nil))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestNotebookWriteBoundedChild$", "-test.v")
	cmd.Env = append(os.Environ(), boundedChildEnv+"="+root, "HASHLS_STATE_DIR="+state)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	ms := regexp.MustCompile(`(\w+): rss (\d+) kB, peak (\d+) kB`).FindAllSubmatch(out, -1)
	if len(ms) != 2 {
		t.Fatalf("child said:\n%s", out)
	}
	for _, m := range ms {
		rss, peak := atoi(string(m[2])), atoi(string(m[3]))
		t.Logf("%s of one cell of a notebook with a %d MiB output: resident %d MiB before it, %d MiB at most during it", m[1], output>>20, rss>>10, peak>>10)
		if peak-rss > output>>10/2 {
			t.Errorf("%s raised the resident memory by %d MiB: it held the notebook", m[1], (peak-rss)>>10)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(b, []byte(`"source":["print(3)\n","x = 2"]`)) || !bytes.Contains(b, []byte(`"text":["`+string(chunk[:1<<10]))) || len(b) < output {
		t.Fatalf("after the write and the edit: %d bytes, %v", len(b), err)
	}
	// The old notebook comes back from the trash, byte for byte.
	ws, err := workspace.Open(root, workspace.Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	env := &Env{WS: ws, Resolver: &treesitter.Resolver{}}
	list, err := ws.Store().TrashList("", 0)
	if err != nil || len(list) != 2 {
		t.Fatalf("trash: %+v, %v", list, err)
	}
	if _, err := runTool(env, "restore", map[string]any{"id": list[1].ID}); err != nil {
		t.Fatal(err)
	}
	p, err := ws.Resolve("big.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := ws.FileSHA256(p); err != nil || hex.EncodeToString(sum[:]) != oldSum {
		t.Fatalf("restored: %x, %v; want %s", sum, err, oldSum)
	}
	// An edit that removes it keeps it in the trash too.
	rd, err := runTool(env, "read", map[string]any{"path": "big.ipynb"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runTool(env, "edit", map[string]any{"input": strings.SplitN(rd.Text, "\n", 2)[0] + "\nREM\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("after REM: %v", err)
	}
	if list, _ = ws.Store().TrashList("", 1); len(list) != 1 || list[0].Size != int64(len(b))+int64(len("print(1)\n"))-int64(len("print(3)\n")) {
		t.Fatalf("the removed notebook's trash entry: %+v (the file had %d bytes)", list, len(b))
	}
}

// TestNotebookWriteBoundedChild reads big.ipynb under boundedChildEnv's
// root and writes one cell, printing its resident memory before the write
// and at most during it.
func TestNotebookWriteBoundedChild(t *testing.T) {
	root := os.Getenv(boundedChildEnv)
	if root == "" {
		t.Skip("TestNotebookWriteBounded's child process")
	}
	ws, err := workspace.Open(root, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	env := &Env{WS: ws, Resolver: &treesitter.Resolver{}}
	if _, err := runTool(env, "read", map[string]any{"path": "big.ipynb"}); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	debug.FreeOSMemory()
	// "5" resets the peak to the current resident size.
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak resident size: %v", err)
	}
	rss := procStatusKB(t, "VmRSS")
	if _, err := runTool(env, "write", map[string]any{"path": "big.ipynb", "content": "# %% [code] cell:0\nprint(2)\nx = 2\n# %% [markdown] cell:1\n# Title\n"}); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("write: rss %d kB, peak %d kB\n", rss, procStatusKB(t, "VmHWM"))
	rd, err := runTool(env, "read", map[string]any{"path": "big.ipynb"})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	debug.FreeOSMemory()
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	rss = procStatusKB(t, "VmRSS")
	if _, err := runTool(env, "edit", map[string]any{"input": strings.SplitN(rd.Text, "\n", 2)[0] + "\nreplace 2..2:\n+print(3)\n"}); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("edit: rss %d kB, peak %d kB\n", rss, procStatusKB(t, "VmHWM"))
}

// procStatusKB is the field of /proc/self/status, in kB.
func procStatusKB(t *testing.T, field string) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + field + `:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no %s in /proc/self/status", field)
	}
	return atoi(string(m[1]))
}
