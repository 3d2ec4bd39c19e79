package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hashls/hashls/edit"
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

// Every mutating tool refuses changes under .git, .hg and .svn unless the
// call passes allowVcs, and then changes nothing.
func TestVCSRefusedInEveryTool(t *testing.T) {
	const hook = "#!/bin/sh\necho hi\n"
	for _, tc := range []struct {
		tool string
		args func(env *Env) map[string]any
	}{
		{"write", func(*Env) map[string]any { return map[string]any{"path": ".git/hooks/pre-commit", "content": "x\n"} }},
		{"create_file", func(*Env) map[string]any { return map[string]any{"path": ".hg/hgrc", "content": "x\n"} }},
		{"write_file", func(*Env) map[string]any {
			return map[string]any{"path": ".git/hooks/pre-commit", "content": "x\n", "expectedSha256": sha256Hex([]byte(hook))}
		}},
		{"edit", func(*Env) map[string]any {
			return map[string]any{"input": "¶.git/hooks/pre-commit#" + edit.Tag([]byte(hook)) + "\nreplace 2..2:\n+rm -rf ~\n"}
		}},
		{"edit_file", func(*Env) map[string]any {
			return map[string]any{"path": ".git/hooks/pre-commit", "expectedSha256": sha256Hex([]byte(hook)), "edits": []map[string]any{{"oldText": "echo hi", "newText": "echo bye"}}}
		}},
		{"apply_patch", func(*Env) map[string]any {
			return map[string]any{"input": "*** Begin Patch\n*** Update File: .git/hooks/pre-commit\n@@\n-echo hi\n+echo bye\n*** End Patch"}
		}},
		{"delete_file", func(*Env) map[string]any { return map[string]any{"path": ".git/hooks/pre-commit"} }},
		{"move_file", func(*Env) map[string]any {
			return map[string]any{"source": ".git/hooks/pre-commit", "destination": "hook.sh"}
		}},
		{"restore", func(env *Env) map[string]any {
			res, err := runTool(env, "write", map[string]any{"path": "notes.txt", "content": "new\n"})
			if err != nil || len(res.Changes) != 1 || len(res.Changes[0].TrashIDs) != 1 {
				t.Fatalf("setup write: %v", err)
			}
			return map[string]any{"id": res.Changes[0].TrashIDs[0], "path": ".svn/entries"}
		}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			env := newTestEnv(t)
			writeRootFile(t, env, ".git/hooks/pre-commit", hook)
			writeRootFile(t, env, "notes.txt", "old\n")
			if _, err := runTool(env, "read", map[string]any{"path": ".git/hooks/pre-commit"}); err != nil {
				t.Fatal(err)
			}
			args := tc.args(env)
			_, err := runTool(env, tc.tool, args)
			if KindOf(err) != KindPermission || !strings.Contains(fmt.Sprint(err), "allowVcs") {
				t.Fatalf("%s: %v (kind %s), want permission_denied naming allowVcs", tc.tool, err, KindOf(err))
			}
			if got, _ := os.ReadFile(filepath.Join(env.WS.Root(), ".git/hooks/pre-commit")); string(got) != hook {
				t.Fatalf("the hook changed: %q", got)
			}
			for _, p := range []string{".hg", ".svn", "hook.sh"} {
				if _, err := os.Stat(filepath.Join(env.WS.Root(), p)); err == nil {
					t.Fatalf("%s was created", p)
				}
			}
			args["allowVcs"] = true
			if _, err := runTool(env, tc.tool, args); err != nil {
				t.Fatalf("%s with allowVcs: %v", tc.tool, err)
			}
		})
	}
}

// TestWriteFacesAgree: write, write_file and create_file are one core
// (writeFile): the generated-file guard, the #! mode, the line style and
// the gate's kinds are the same through every face.
func TestWriteFacesAgree(t *testing.T) {
	gen := "// Code generated by stringer; DO NOT EDIT.\n\npackage x\n"
	for _, face := range []struct {
		tool string
		args func(path, content string, sum *string) map[string]any
	}{
		{"write", func(p, c string, sum *string) map[string]any {
			a := map[string]any{"path": p, "content": c}
			if sum != nil {
				a["expectedSha256"] = *sum
			}
			return a
		}},
		{"write_file", func(p, c string, sum *string) map[string]any {
			a := map[string]any{"path": p, "content": c, "expectedSha256": ""}
			if sum != nil {
				a["expectedSha256"] = *sum
			}
			return a
		}},
	} {
		t.Run(face.tool, func(t *testing.T) {
			env := newTestEnv(t)
			writeRootFile(t, env, "gen.go", gen)
			writeRootFile(t, env, "crlf.txt", "a\r\nb\r\n")
			sum := sha256Hex([]byte(gen))
			_, err := runTool(env, face.tool, face.args("gen.go", "package x\n", &sum))
			if KindOf(err) != KindPermission || !strings.Contains(err.Error(), "looks generated") {
				t.Errorf("over a generated file: %v", err)
			}
			a := face.args("gen.go", "package x\n", &sum)
			a["allowGenerated"] = true
			if _, err := runTool(env, face.tool, a); err != nil {
				t.Errorf("allowGenerated: %v", err)
			}
			res, err := runTool(env, face.tool, face.args("run.sh", "#!/bin/sh\necho hi\n", nil))
			if err != nil {
				t.Fatal(err)
			}
			if st, err := os.Stat(filepath.Join(env.WS.Root(), "run.sh")); err == nil && runtime.GOOS != "windows" && st.Mode().Perm() != 0o755 {
				t.Errorf("a new #! file has mode %v", st.Mode().Perm())
			}
			// Windows keeps no mode bits: a #! file is not made executable there.
			if runtime.GOOS != "windows" && !strings.Contains(res.Text, "made executable") {
				t.Errorf("the result does not say the file was made executable: %s", res.Text)
			}
			crlf := sha256Hex([]byte("a\r\nb\r\n"))
			if _, err := runTool(env, face.tool, face.args("crlf.txt", "x\ny\n", &crlf)); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(env.WS.Root(), "crlf.txt")); string(b) != "x\r\ny\r\n" {
				t.Errorf("line style not kept: %q", b)
			}
			empty := ""
			if _, err := runTool(env, face.tool, face.args("crlf.txt", "z\n", &empty)); KindOf(err) != KindStale {
				t.Errorf(`expectedSha256 "" over a file: %v, want %s`, err, KindStale)
			}
		})
	}
	env := newTestEnv(t)
	if res, err := runTool(env, "create_file", map[string]any{"path": "new.sh", "content": "#!/bin/sh\n"}); err != nil || (runtime.GOOS != "windows" && !strings.Contains(res.Text, "made executable")) {
		t.Errorf("create_file of a #! file: %v %v", res, err)
	}
	if _, err := runTool(env, "create_file", map[string]any{"path": "new.sh", "content": "x"}); KindOf(err) != KindAlreadyExists {
		t.Errorf("create_file over a file: %v", err)
	}
}
