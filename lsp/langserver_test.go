package lsp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/internal/lsptest"
	"github.com/hashls/hashls/langserver"
)

// TestAfterEditFromSettings: under `hashls serve`, diagnostics after edits
// and format-on-write default to the editor's settings (initializationOptions,
// then workspace/didChangeConfiguration, section hashls); a call's own
// arguments still override them. The language server is the deterministic
// fake of internal/lsptest: an error on every line holding "ERROR", and
// formatting that removes trailing blanks.
func TestAfterEditFromSettings(t *testing.T) {
	bin := lsptest.FakeServer(t)
	pool := langserver.NewPool(langserver.Options{Logf: t.Logf, Servers: map[string]langserver.Server{"fake": {Command: []string{bin}, FileTypes: []string{".fk"}}}})
	t.Cleanup(pool.Close)
	c := newTestClient(t, Options{Tools: agent.Deps{LangServers: pool}})
	if err := os.WriteFile(filepath.Join(c.root, "a.fk"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.initialize(map[string]any{"initializationOptions": map[string]any{"hashls": map[string]any{"diagnosticsMs": 20000}}})

	run := func(tool string, args map[string]any) *agent.Result {
		t.Helper()
		var res agent.Result
		if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls." + tool, "arguments": []any{args}}, &res); err != nil {
			t.Fatalf("hashls.%s: %v", tool, err)
		}
		return &res
	}
	edit := func(line int, text string, extra map[string]any) *agent.Result {
		t.Helper()
		rd := run("read", map[string]any{"path": "a.fk"})
		anchor := strings.SplitN(rd.Text, "\n", 2)[0]
		args := map[string]any{"input": anchor + "\nreplace " + strconv.Itoa(line) + ".." + strconv.Itoa(line) + ":\n" + text + "\n"}
		for k, v := range extra {
			args[k] = v
		}
		return run("edit", args)
	}

	// From initializationOptions: the edit reports the error it made.
	res := edit(2, "two ERROR", nil)
	if res.Diagnostics == nil || len(res.Diagnostics.Touched) != 1 || res.Diagnostics.Touched[0].Line != 2 || !strings.Contains(res.Text, "On the lines you changed:\na.fk:2:") {
		t.Fatalf("with diagnosticsMs from initializationOptions: %+v\n%s", res.Diagnostics, res.Text)
	}
	// A call's argument overrides the setting.
	if res = edit(3, "three ERROR", map[string]any{"diagnostics": 0}); res.Diagnostics != nil {
		t.Fatalf("diagnostics: 0 in the call still reported %+v", res.Diagnostics)
	}

	// didChangeConfiguration turns them off and format-on-write on.
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"hashls": map[string]any{"diagnosticsMs": 0, "formatOnWrite": true}}})
	c.barrier()
	res = edit(1, "ERROR one   ", nil)
	if res.Diagnostics != nil {
		t.Fatalf("diagnostics after they were turned off: %+v", res.Diagnostics)
	}
	if b, _ := os.ReadFile(filepath.Join(c.root, "a.fk")); string(b) != "ERROR one\ntwo ERROR\nthree ERROR\n" {
		t.Fatalf("format on write from the settings: %q", b)
	}
	if !strings.Contains(res.Text, "a.fk was reformatted by the language server") {
		t.Fatalf("no warning about the format:\n%s", res.Text)
	}
	// A call's arguments override both.
	res = edit(1, "fixed   ", map[string]any{"diagnostics": 20000, "format": false})
	if b, _ := os.ReadFile(filepath.Join(c.root, "a.fk")); !strings.HasPrefix(string(b), "fixed   \n") {
		t.Fatalf("format: false in the call still formatted: %q", b)
	}
	if res.Diagnostics == nil || len(res.Diagnostics.Touched) != 0 || len(res.Diagnostics.Elsewhere) != 0 || !strings.Contains(res.Text, "Diagnostics: no new problems") {
		t.Fatalf("diagnostics after the fix: %+v\n%s", res.Diagnostics, res.Text)
	}
	if err := c.call("shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
}
