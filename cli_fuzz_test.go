package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCLIArgs fuzzes the command line (flags, subcommands, tool names,
// JSON arguments, '-' with stdin) against a temp root: nothing may panic
// (run reports a recovered panic as an internal error), the exit code is
// 0, 1 or 2, and a usage error (2) says what to do on stderr, or as a JSON
// error object with --json. `serve` and --root are left out: serve would
// read the test's own stdin, and the root stays the temp directory.
func FuzzCLIArgs(f *testing.F) {
	for _, s := range []string{
		"tool\x00read\x00{\"path\":\"a.txt\"}",
		"--json\x00tool\x00read\x00{\"path\":\"a.txt:2-\"}",
		"tool\x00edit\x00-",
		"tool\x00--list",
		"tool\x00write\x00--schema",
		"tool\x00write\x00{\"path\":\"n.txt\",\"content\":\"x\"}",
		"tool\x00search\x00{\"pattern\":\"a\",\"paths\":[\".\"]}",
		"version", "help", "--json", "tool\x00nope\x00{}", "tool\x00read\x00{", "--json\x00tool\x00read\x00[]",
	} {
		f.Add(s, "{\"input\":\"¶a.txt#0000\\nreplace 1..1:\\n+x\"}")
	}
	root := f.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\nb\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Setenv("HASHLS_STATE_DIR", f.TempDir())
	f.Fuzz(func(t *testing.T, line, stdin string) {
		args := []string{"--root", root}
		jsonOut := false
		for _, a := range strings.Split(line, "\x00") {
			if a == "serve" || strings.HasPrefix(strings.TrimLeft(a, "-"), "root") {
				return
			}
			jsonOut = jsonOut || a == "--json" || a == "-json"
			args = append(args, a)
		}
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(stdin), &out, &errb)
		if strings.Contains(errb.String(), "internal error") || strings.Contains(out.String(), `"internal"`) {
			t.Fatalf("%q: internal error: %s%s", args, errb.String(), out.String())
		}
		switch code {
		case exitOK, exitTool:
		case exitUsage:
			if jsonOut {
				if !strings.Contains(out.String(), `"kind":"invalid_argument"`) && errb.Len() == 0 {
					t.Fatalf("%q: usage error without a JSON error or a message: %q", args, out.String())
				}
			} else if errb.Len() == 0 {
				t.Fatalf("%q: usage error without a message", args)
			}
		default:
			t.Fatalf("%q: exit code %d", args, code)
		}
	})
}
