package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteExpectedSha256(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.txt", "v1\n")
	res, err := runTool(env, "read", map[string]string{"path": "a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	sum := res.Details.(*readDetails).SHA256
	writeRootFile(t, env, "a.txt", "v2 (someone else)\n")
	var ae *Error
	_, err = runTool(env, "write", map[string]any{"path": "a.txt", "content": "mine\n", "expectedSha256": sum})
	if !errors.As(err, &ae) || ae.Kind != KindStale || !strings.Contains(ae.Message, "Re-read the file to obtain the current sha256") {
		t.Fatalf("stale write: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(env.WS.Root(), "a.txt")); string(got) != "v2 (someone else)\n" {
		t.Fatalf("stale write changed the file: %q", got)
	}
	if _, err := runTool(env, "write", map[string]any{"path": "a.txt", "content": "x", "expectedSha256": ""}); !errors.As(err, &ae) || ae.Kind != KindStale {
		t.Fatalf("create over an existing file: %v", err)
	}
	if _, err := runTool(env, "write", map[string]any{"path": "new.txt", "content": "x", "expectedSha256": ""}); err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := runTool(env, "write", map[string]any{"path": "a.txt", "content": "mine\n", "expectedSha256": sha256Hex([]byte("v2 (someone else)\n"))}); err != nil {
		t.Fatalf("write with the current sha256: %v", err)
	}
}

// TestWriteBugs covers the write bugs of the commit-path issue: each case
// failed on the code before it.
func TestWriteBugs(t *testing.T) {
	type check func(t *testing.T, env *Env, res *Result, err error)
	content := func(rel, want string) check {
		return func(t *testing.T, env *Env, res *Result, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("write: %v", err)
			}
			if got, err := os.ReadFile(filepath.Join(env.WS.Root(), rel)); err != nil || string(got) != want {
				t.Fatalf("%s = %q, %v; want %q", rel, got, err, want)
			}
		}
	}
	refused := func(kind string, absent ...string) check {
		return func(t *testing.T, env *Env, res *Result, err error) {
			t.Helper()
			var ae *Error
			if !errors.As(err, &ae) || ae.Kind != kind {
				t.Fatalf("err = %v, want kind %s", err, kind)
			}
			for _, a := range absent {
				if _, err := os.Lstat(filepath.Join(env.WS.Root(), a)); err == nil {
					t.Fatalf("%s was created by a refused write", a)
				}
			}
		}
	}
	and := func(cs ...check) check {
		return func(t *testing.T, env *Env, res *Result, err error) {
			t.Helper()
			for _, c := range cs {
				c(t, env, res, err)
			}
		}
	}
	textHas := func(s string) check {
		return func(t *testing.T, env *Env, res *Result, err error) {
			t.Helper()
			if res == nil || !strings.Contains(res.Text, s) {
				t.Fatalf("text lacks %q: %+v", s, res)
			}
		}
	}
	tests := []struct {
		name  string
		setup map[string]string
		args  map[string]any
		check check
	}{
		{"yaml numbers are content", nil, map[string]any{"path": "codes.yaml", "content": "200: OK\n404: Not Found\n"},
			and(content("codes.yaml", "200: OK\n404: Not Found\n"), textHas("Warning: every line starts with N:"))},
		{"port mapping", nil, map[string]any{"path": "ports.txt", "content": "8080:80\n"}, content("ports.txt", "8080:80\n")},
		{"agenda", nil, map[string]any{"path": "day.txt", "content": "9:00 standup\n"}, content("day.txt", "9:00 standup\n")},
		{"pasted read output with its header", nil, map[string]any{"path": "r.txt", "content": "¶r.txt#ABCD\n1:alpha\n2:beta\n"},
			and(content("r.txt", "alpha\nbeta\n"), textHas("removed the pasted read header"))},
		{"bracket header", nil, map[string]any{"path": "r2.txt", "content": "[r2.txt#ABCD]\n1:alpha\n"}, content("r2.txt", "alpha\n")},
		{"tilde is the home directory, confined", nil, map[string]any{"path": "~/notes.txt", "content": "x"}, refused(KindOutside, "~")},
		{"conflict URL", nil, map[string]any{"path": "conflict://1", "content": "x"}, refused(KindUsage, "conflict:")},
		{"https URL", nil, map[string]any{"path": "https://host/a.txt", "content": "x"}, refused(KindUsage, "https:")},
		{"trailing slash", nil, map[string]any{"path": "newdir/", "content": "x"}, refused(KindUsage, "newdir")},
		{"CRLF kept for \\n content", map[string]string{"w.txt": "a\r\nb\r\n"}, map[string]any{"path": "w.txt", "content": "x\ny\n"},
			and(content("w.txt", "x\r\ny\r\n"), textHas("kept the file's CRLF line endings"))},
		{"CRLF content written as given", map[string]string{"w.txt": "a\nb\n"}, map[string]any{"path": "w.txt", "content": "x\r\ny\n"}, content("w.txt", "x\r\ny\n")},
		{"BOM kept", map[string]string{"b.txt": "\ufeffa\n"}, map[string]any{"path": "b.txt", "content": "b\n"},
			and(content("b.txt", "\ufeffb\n"), textHas("its UTF-8 BOM"))},
		{"git config refused", map[string]string{".git/config": "[core]\n"}, map[string]any{"path": ".git/config", "content": "[core]\n\tfsmonitor = evil\n"},
			and(refused(KindPermission), func(t *testing.T, env *Env, _ *Result, _ error) {
				if got, _ := os.ReadFile(filepath.Join(env.WS.Root(), ".git/config")); string(got) != "[core]\n" {
					t.Fatalf(".git/config changed: %q", got)
				}
			})},
		{"git hook refused", nil, map[string]any{"path": "sub/.git/hooks/pre-commit", "content": "#!/bin/sh\n"}, refused(KindPermission, "sub/.git")},
		{"git config with the override", map[string]string{".git/config": "[core]\n"}, map[string]any{"path": ".git/config", "content": "[user]\n", "allowVcs": true}, content(".git/config", "[user]\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			env := newTestEnv(t)
			for rel, c := range tt.setup {
				writeRootFile(t, env, rel, c)
			}
			res, err := runTool(env, "write", tt.args)
			tt.check(t, env, res, err)
			if err == nil {
				// Every mutating result names the new sha256 and tag.
				if len(res.Changes) != 1 || res.Changes[0].NewSHA256 == "" || res.Changes[0].NewTag == "" || res.Details.(*writeDetails).SHA256 != res.Changes[0].NewSHA256 {
					t.Fatalf("changes %+v details %+v", res.Changes, res.Details)
				}
			}
			if _, err := os.Stat(filepath.Join(home, "notes.txt")); err == nil {
				t.Fatal("a write reached the home directory outside the root")
			}
		})
	}
}

// TestEditResultCarriesSHA256 checks the typed change of an edit.
func TestEditResultCarriesSHA256(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.txt", "a\nb\n")
	rd, err := runTool(env, "read", map[string]string{"path": "a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	tag := rd.Details.(*readDetails).Tag
	res, err := runTool(env, "edit", map[string]string{"input": "¶a.txt#" + tag + "\nreplace 2..2:\n+B"})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Changes
	if len(c) != 1 || c[0].OldTag != tag || c[0].NewSHA256 != sha256Hex([]byte("a\nB\n")) || c[0].AuditID == 0 || len(c[0].TrashIDs) != 1 || c[0].Diff == "" {
		t.Fatalf("changes = %+v", c)
	}
	if got := res.Details.(*editDetails).PerFileResults[0].SHA256; got != c[0].NewSHA256 {
		t.Fatalf("details sha256 %q", got)
	}
}
