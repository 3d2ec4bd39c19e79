package main

import (
	"bytes"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// Exit 1 for what a tool refuses in its input (naming the argument and
// the shape it needs), exit 2 only for misuse of the command line.
func TestCLIExitCodes(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HASHLS_STATE_DIR", t.TempDir())
	db, err := sql.Open("sqlite", filepath.Join(root, "d.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL)`, `INSERT INTO t VALUES (1, 'a')`} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"tool", "write", `{"path":"d.db:t","content":"{id: 1, name: 'b'}"}`}, 1, "UNIQUE constraint failed: t.id"},
		{[]string{"tool", "write", `{"path":"d.db:t","content":"{id: 2}"}`}, 1, "fix the values in the content"},
		{[]string{"tool", "write", `{"path":"d.db:t:9","content":"{name: 'z'}"}`}, 1, "no row updated"},
		{[]string{"tool", "read", `{"path":"d.db:t","limit":"x"}`}, 1, `unknown argument "limit"`},
		{[]string{"tool", "search", `{"pattern":"(?P<","paths":"."}`}, 1, `argument "pattern" is a Go RE2 regex`},
		{[]string{"tool", "search", `{"pattern":"a","paths":".","i":"yes"}`}, 1, `argument "i" must be true or false, not a string "yes"`},
		{[]string{"tool", "read", `{"path":"d.db?q=WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c"}`}, 0, ""},
		{[]string{"tool", "read", `{"path":`}, 2, "not valid JSON"},
		{[]string{"tool", "read", `"d.db"`}, 2, "one JSON object"},
		{[]string{"tool", "nope", `{}`}, 2, "unknown tool"},
		{[]string{"--bogus-flag"}, 2, ""},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(append([]string{"--root", root}, c.args...), strings.NewReader(""), &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.stderr) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", c.args, code, errb.String(), c.code, c.stderr)
		}
		if hint := strings.Contains(errb.String(), "hashls help"); hint != (c.code == 2) {
			t.Errorf("%q: the 'hashls help' hint is for exit 2 only: %q", c.args, errb.String())
		}
	}
}

// TestHelpEveryCommand: --help (and -h) on every command prints its usage
// on stdout and exits 0, wherever it stands on the line.
func TestHelpEveryCommand(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"help"}, {"help", "--help"},
		{"tool", "--help"}, {"tool", "read", "--help"}, {"tool", "-h"},
		{"serve", "--help"}, {"mcp", "--help"}, {"mcp", "--http", "127.0.0.1:1", "--help"}, {"mcp", "-h"},
		{"doctor", "--help"}, {"version", "--help"}, {"--root", "/nonexistent", "mcp", "--help"},
	} {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errb)
		if code != exitOK || !strings.Contains(out.String(), "Usage") || errb.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
		}
	}
	var out, errb bytes.Buffer
	run([]string{"tool", "edit", "--help"}, strings.NewReader(""), &out, &errb)
	if !strings.Contains(out.String(), "replace N..M:") || !strings.Contains(out.String(), `"input"`) {
		t.Errorf("tool edit --help lacks the guide or the schema: %s", out.String())
	}
}
