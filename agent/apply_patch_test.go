package agent

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/internal/testsys"
	"github.com/hashls/hashls/workspace"
)

// applyPatchCase is one line of testdata/conformance/apply_patch/cases.jsonl
// (format: that directory's README.md).
type applyPatchCase struct {
	Name            string            `json:"name"`
	Group           string            `json:"group"`
	UpstreamMode    string            `json:"upstream_mode"`
	Before          map[string]string `json:"before"`
	Patch           string            `json:"patch"`
	Expect          applyPatchExpect  `json:"expect"`
	ExpectAtomic    *applyPatchExpect `json:"expect_atomic"`
	UpstreamPartial bool              `json:"upstream_partial"`
	ModesAgree      *bool             `json:"model_modes_agree"`
	OtherMode       *struct {
		Mode string `json:"mode"`
		applyPatchExpect
	} `json:"model_other_mode_result"`
	Stdout *string `json:"upstream_stdout"`
}

type applyPatchExpect struct {
	After map[string]string `json:"after"`
	Error string            `json:"error"`
}

func loadApplyPatchCases(t testing.TB) []applyPatchCase {
	return loadJSONL[applyPatchCase](t, "../testdata/conformance/apply_patch/cases.jsonl")
}

// treeOf returns every regular file under root as rel → content.
func treeOf(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffTrees(t testing.TB, got, want map[string]string) {
	t.Helper()
	for p, w := range want {
		if g, ok := got[p]; !ok {
			t.Errorf("missing file %s (want %q)", p, w)
		} else if g != w {
			t.Errorf("%s = %q, want %q", p, g, w)
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("unexpected file %s = %q", p, g)
		}
	}
}

// TestApplyPatchConformance runs every corpus case through the tool. hashls
// is all-or-nothing and preserves line endings, so a case uses expect_atomic
// when upstream is partial, and a case asserted only in upstream's legacy
// normalize_lf mode, where the modes disagree, is checked against the
// corpus's preserve-mode result instead.
func TestApplyPatchConformance(t *testing.T) {
	cases := loadApplyPatchCases(t)
	if len(cases) != 42 {
		t.Fatalf("loaded %d cases, want 42", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			env := newTestEnv(t)
			root := env.WS.Root()
			for p, v := range c.Before {
				writeRootFile(t, env, p, v)
			}
			want := c.Expect
			if c.UpstreamPartial {
				if c.ExpectAtomic == nil {
					t.Fatal("partial case without expect_atomic")
				}
				want = *c.ExpectAtomic
			}
			if c.UpstreamMode == "normalize_lf" && c.ModesAgree != nil && !*c.ModesAgree {
				if c.OtherMode == nil || c.OtherMode.Mode != "preserve_line_endings" {
					t.Fatal("mode-dependent case without a preserve-mode result")
				}
				want = c.OtherMode.applyPatchExpect
			}
			patch := strings.ReplaceAll(c.Patch, "{{ROOT}}", root)
			res, err := runTool(env, "apply_patch", map[string]any{"input": patch})
			wantErr := strings.ReplaceAll(want.Error, "{{ROOT}}/", "")
			switch {
			case wantErr != "" && err == nil:
				t.Errorf("succeeded with %q, want error containing %q", res.Text, wantErr)
			case wantErr != "" && !strings.Contains(err.Error(), wantErr):
				t.Errorf("error %q, want it to contain %q", err, wantErr)
			case wantErr == "" && err != nil:
				t.Errorf("error: %v", err)
			}
			diffTrees(t, treeOf(t, root), want.After)
			if err == nil && c.Stdout != nil && wantErr == "" {
				// Upstream's summary lines ("A path", "M path", "D path")
				// appear as "X rel-path: ..." lines.
				for _, l := range strings.Split(strings.TrimSpace(*c.Stdout), "\n")[1:] {
					l = strings.ReplaceAll(l, "{{ROOT}}/", "")
					if !strings.Contains("\n"+res.Text, "\n"+l+":") {
						t.Errorf("summary lacks %q:\n%s", l, res.Text)
					}
				}
			}
		})
	}
}

// TestApplyPatchResultText checks the result: ¶PATH#TAG per written file,
// summary lines, trash and audit ids, a diff per file.
func TestApplyPatchResultText(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "delete.txt", "obsolete\n")
	writeRootFile(t, env, "modify.txt", "line1\nline2\n")
	writeRootFile(t, env, "old/name.txt", "old content\n")
	res, err := runTool(env, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n*** Update File: modify.txt\n@@\n-line2\n+changed\n*** Update File: old/name.txt\n*** Move to: renamed/name.txt\n@@\n-old content\n+new content\n*** End Patch\n"})
	if err != nil {
		t.Fatal(err)
	}
	newTag := edit.Tag([]byte("created\n"))
	modTag := edit.Tag([]byte("line1\nchanged\n"))
	for _, want := range []string{
		"Success. Applied the patch: 1 added, 2 modified, 1 deleted.",
		"¶nested/new.txt#" + newTag + "\nA nested/new.txt: new file; 1 line",
		"¶modify.txt#" + modTag + "\nM modify.txt: +1 -1 lines; old content in trash #",
		"M renamed/name.txt: moved from old/name.txt; +1 -1 lines; old content in trash #",
		"D delete.txt: deleted; old content in trash #",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, res.Text)
		}
	}
	d := res.Details.(*applyPatchDetails)
	if len(d.Files) != 4 {
		t.Fatalf("files = %+v", d.Files)
	}
	for _, f := range d.Files {
		if len(f.AuditIDs) == 0 {
			t.Errorf("%s: no audit id", f.Path)
		}
		if f.Diff == "" {
			t.Errorf("%s: no diff", f.Path)
		}
		if f.Op != "delete" && f.SHA256 == "" {
			t.Errorf("%s: no sha256", f.Path)
		}
	}
	if !strings.Contains(d.Diff, "+++ b/modify.txt") || !strings.Contains(d.Diff, "-line2\n+changed") {
		t.Errorf("diff:\n%s", d.Diff)
	}
	log, err := env.WS.Store().AuditLog(10)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 5 { // add, delete, modify, move (dest + source)
		t.Errorf("audit rows = %d, want 5: %+v", len(log), log)
	}
	// The new tag is usable by edit right away.
	if _, err := runTool(env, "edit", map[string]string{"input": "¶modify.txt#" + modTag + "\nreplace 1..1:\n+LINE1"}); err != nil {
		t.Errorf("edit with the returned tag: %v", err)
	}
}

func TestApplyPatchToolErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before map[string]string
		patch  string
		kind   string
		msg    string
	}{
		{"bad header", nil, "*** Begin Patch\n*** Frobnicate File: a\n*** End Patch", KindInput, "is not a valid hunk header"},
		{"missing end", map[string]string{"a.txt": "x\n"}, "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n", KindInput, "The last line of the patch must be '*** End Patch'"},
		{"missing begin", nil, "*** Add File: a\n+x\n*** End Patch", KindInput, "The first line of the patch must be '*** Begin Patch'"},
		{"context not found", map[string]string{"a.txt": "x\n"}, "*** Begin Patch\n*** Update File: a.txt\n@@\n-nope\n+y\n*** End Patch", KindEdit, "Failed to find expected lines in a.txt:\nnope"},
		{"header context not found", map[string]string{"a.txt": "x\n"}, "*** Begin Patch\n*** Update File: a.txt\n@@ func missing()\n-x\n+y\n*** End Patch", KindEdit, "Failed to find context 'func missing()' in a.txt"},
		{"ambiguous", map[string]string{"a.txt": "x\ny\nx\n"}, "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+z\n*** End Patch", KindEdit, "match at line 1 and again at line 3"},
		{"delete missing", nil, "*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch", KindNotFound, "Failed to delete file nope.txt"},
		{"delete directory", map[string]string{"dir/f.txt": "x\n"}, "*** Begin Patch\n*** Delete File: dir\n*** End Patch", KindIO, "Failed to delete file dir: it is a directory"},
		{"update missing", nil, "*** Begin Patch\n*** Update File: nope.txt\n@@\n-a\n+b\n*** End Patch", KindNotFound, "Failed to read file to update nope.txt"},
		{"escape add", nil, "*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch", KindOutside, "outside the workspace root"},
		{"escape move", map[string]string{"a.txt": "x\n"}, "*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../../b.txt\n@@\n-x\n+y\n*** End Patch", KindOutside, "outside the workspace root"},
		{"escape absolute", nil, "*** Begin Patch\n*** Delete File: " + testsys.OutsidePath() + "\n*** End Patch", KindOutside, "outside the workspace root"},
		{"duplicate", map[string]string{"a.txt": "x\n"}, "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** Delete File: ./a.txt\n*** End Patch", KindInput, "multiple operations target the same file a.txt"},
		{"move onto other op", map[string]string{"a.txt": "x\n", "b.txt": "b\n"}, "*** Begin Patch\n*** Delete File: b.txt\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-x\n+y\n*** End Patch", KindInput, "multiple operations target"},
		{"binary", map[string]string{"bin.dat": "\x00\x01\x02x\n"}, "*** Begin Patch\n*** Update File: bin.dat\n@@\n-x\n+y\n*** End Patch", KindBinary, "binary"},
		{"empty patch", nil, "*** Begin Patch\n*** End Patch", KindInput, "No files were modified."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t)
			for p, v := range tc.before {
				writeRootFile(t, env, p, v)
			}
			before := treeOf(t, env.WS.Root())
			_, err := runTool(env, "apply_patch", map[string]any{"input": tc.patch})
			if err == nil {
				t.Fatal("no error")
			}
			e := err.(*Error)
			if e.Kind != tc.kind || !strings.Contains(e.Message, tc.msg) {
				t.Errorf("error %s %q, want %s containing %q", e.Kind, e.Message, tc.kind, tc.msg)
			}
			diffTrees(t, treeOf(t, env.WS.Root()), before)
		})
	}
}

func TestApplyPatchSHA256Gate(t *testing.T) {
	const a, b = "alpha\n", "beta\n"
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n-alpha\n+ALPHA\n*** Add File: new.txt\n+n\n*** Delete File: b.txt\n*** End Patch"
	for _, tc := range []struct {
		name     string
		expected map[string]string
		kind     string // "" = success
		msg      string
	}{
		{"all match", map[string]string{"a.txt": sha256Hex([]byte(a)), "./b.txt": sha256Hex([]byte(b)), "new.txt": ""}, "", ""},
		{"upper-case hex", map[string]string{"a.txt": strings.ToUpper(sha256Hex([]byte(a)))}, "", ""},
		{"absent from map skips the check", map[string]string{"b.txt": sha256Hex([]byte(b))}, "", ""},
		{"nil map", nil, "", ""},
		{"mismatch", map[string]string{"a.txt": sha256Hex([]byte("old\n"))}, KindStale, "Re-read the file to obtain the current sha256 and re-apply your edit."},
		{"mismatch on delete", map[string]string{"b.txt": sha256Hex([]byte("old\n"))}, KindStale, "Stale file: b.txt changed since it was read"},
		{"sentinel on existing file", map[string]string{"a.txt": ""}, KindStale, "a.txt exists, but expectedSha256ByPath gave \"\""},
		{"hash for missing add target", map[string]string{"new.txt": sha256Hex([]byte("n\n"))}, KindStale, "new.txt does not exist"},
		{"not a sha256", map[string]string{"a.txt": "abc"}, KindUsage, "is not a sha256"},
		{"path not in patch", map[string]string{"c.txt": ""}, KindUsage, "which the patch does not touch"},
		{"path outside", map[string]string{"../x": ""}, KindOutside, "outside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t)
			writeRootFile(t, env, "a.txt", a)
			writeRootFile(t, env, "b.txt", b)
			args := map[string]any{"input": patch}
			if tc.expected != nil {
				args["expectedSha256ByPath"] = tc.expected
			}
			_, err := runTool(env, "apply_patch", args)
			got := treeOf(t, env.WS.Root())
			if tc.kind == "" {
				if err != nil {
					t.Fatal(err)
				}
				diffTrees(t, got, map[string]string{"a.txt": "ALPHA\n", "new.txt": "n\n"})
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			e := err.(*Error)
			if e.Kind != tc.kind || !strings.Contains(e.Message, tc.msg) {
				t.Errorf("error %s %q, want %s containing %q", e.Kind, e.Message, tc.kind, tc.msg)
			}
			diffTrees(t, got, map[string]string{"a.txt": a, "b.txt": b})
		})
	}
	// The sentinel on an Add over an existing file refuses the overwrite;
	// the file's real sha256 allows it.
	env := newTestEnv(t)
	writeRootFile(t, env, "dup.txt", "old\n")
	add := "*** Begin Patch\n*** Add File: dup.txt\n+new\n*** End Patch"
	if _, err := runTool(env, "apply_patch", map[string]any{"input": add, "expectedSha256ByPath": map[string]string{"dup.txt": ""}}); err == nil || err.(*Error).Kind != KindStale {
		t.Fatalf("sentinel over an existing file: %v", err)
	}
	res, err := runTool(env, "apply_patch", map[string]any{"input": add, "expectedSha256ByPath": map[string]string{"dup.txt": sha256Hex([]byte("old\n"))}})
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`\nA dup.txt: replaced an existing file; \+1 -1 lines; old content in trash #\d+`).MatchString(res.Text) {
		t.Errorf("text:\n%s", res.Text)
	}
	diffTrees(t, treeOf(t, env.WS.Root()), map[string]string{"dup.txt": "new\n"})
}

func TestApplyPatchLineEndingsAndBOM(t *testing.T) {
	const bom = "\xEF\xBB\xBF"
	for _, tc := range []struct {
		name, before, patch, after string
	}{
		{"crlf update", "a\r\nb\r\nc\r\n", "@@\n a\n-b\n+B\n+B2\n c", "a\r\nB\r\nB2\r\nc\r\n"},
		{"crlf in the patch text", "a\r\nb\r\n", "@@\r\n-a\r\n+A\r\n b", "A\r\nb\r\n"},
		{"bom lf", bom + "a\nb\n", "@@\n-a\n+A", bom + "A\nb\n"},
		{"bom crlf first line", bom + "a\r\nb\r\n", "@@\n-a\n+A\n b", bom + "A\r\nb\r\n"},
		{"lone cr", "a\rb\r", "@@\n a\n+x", "a\rx\rb\r"},
		{"crlf without final newline", "a\r\nb", "@@\n-b\n+B", "a\r\nB\r\n"},
		{"crlf append", "a\r\n", "@@\n+z", "a\r\nz\r\n"},
		{"crlf end of file", "a\r\nb\r\n", "@@\n-b\n+B\n*** End of File", "a\r\nB\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t)
			writeRootFile(t, env, "f.txt", tc.before)
			if _, err := runTool(env, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: f.txt\n" + tc.patch + "\n*** End Patch"}); err != nil {
				t.Fatal(err)
			}
			diffTrees(t, treeOf(t, env.WS.Root()), map[string]string{"f.txt": tc.after})
		})
	}
	// Add over an existing CRLF/BOM file keeps both; a new file is LF.
	env := newTestEnv(t)
	writeRootFile(t, env, "w.txt", bom+"old\r\n")
	if _, err := runTool(env, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: w.txt\n+one\n+two\n*** Add File: n.txt\n+one\n*** End Patch"}); err != nil {
		t.Fatal(err)
	}
	diffTrees(t, treeOf(t, env.WS.Root()), map[string]string{"w.txt": bom + "one\r\ntwo\r\n", "n.txt": "one\n"})
	// A move keeps the source's endings.
	writeRootFile(t, env, "m.txt", "x\r\ny\r\n")
	if _, err := runTool(env, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: m.txt\n*** Move to: sub/m2.txt\n@@\n x\n-y\n+Y\n*** End Patch"}); err != nil {
		t.Fatal(err)
	}
	if got := treeOf(t, env.WS.Root())["sub/m2.txt"]; got != "x\r\nY\r\n" {
		t.Errorf("moved = %q", got)
	}
}

// TestApplyPatchAllOrNothing: a failure in a later section (in memory, or in
// the commit phase) leaves every file as it was.
func TestApplyPatchAllOrNothing(t *testing.T) {
	before := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"}
	setup := func(t *testing.T) *Env {
		env := newTestEnv(t)
		for p, v := range before {
			writeRootFile(t, env, p, v)
		}
		return env
	}
	t.Run("apply failure", func(t *testing.T) {
		env := setup(t)
		_, err := runTool(env, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: new.txt\n+n\n*** Delete File: a.txt\n*** Update File: b.txt\n@@\n-b\n+B\n*** Update File: c.txt\n@@\n-nope\n+C\n*** End Patch"})
		if err == nil {
			t.Fatal("no error")
		}
		diffTrees(t, treeOf(t, env.WS.Root()), before)
		if log, _ := env.WS.Store().AuditLog(10); len(log) != 0 {
			t.Errorf("audit rows after a failed patch: %+v", log)
		}
	})
	t.Run("commit failure rolls back", func(t *testing.T) {
		// The last move's destination lies under a regular file: every check
		// passes, and creating its directory fails after the earlier
		// sections were written.
		env := setup(t)
		writeRootFile(t, env, "blocker", "not a directory\n")
		want := treeOf(t, env.WS.Root())
		_, err := runTool(env, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: new.txt\n+n\n*** Delete File: a.txt\n*** Update File: b.txt\n*** Move to: moved/b.txt\n@@\n-b\n+B\n*** Update File: c.txt\n*** Move to: blocker/c.txt\n@@\n-c\n+C\n*** End Patch"})
		if err == nil {
			t.Fatal("no error")
		}
		// Windows (and wine) may report the directory under a file as not
		// found rather than not a directory; the rollback is the point.
		if k := err.(*Error).Kind; k != KindIO && !(runtime.GOOS == "windows" && k == KindNotFound) || !strings.Contains(err.Error(), "blocker/c.txt") {
			t.Errorf("error %s %v", k, err)
		}
		diffTrees(t, treeOf(t, env.WS.Root()), want)
		for _, d := range []string{"moved"} {
			if _, err := os.Stat(filepath.Join(env.WS.Root(), d)); err == nil {
				t.Errorf("directory %s created by the failed patch is still there", d)
			}
		}
		// Nothing changed, so nothing is audited, and the journal is empty.
		if log, _ := env.WS.Store().AuditLog(20); len(log) != 0 {
			t.Errorf("audit rows after a rolled back patch: %+v", log)
		}
		if recs, err := env.WS.Recover(context.Background()); err != nil || len(recs) != 0 {
			t.Errorf("journal left after a rolled back patch: %+v %v", recs, err)
		}
		// The files are usable again.
		if _, err := runTool(env, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: b.txt\n@@\n-b\n+B\n*** End Patch"}); err != nil {
			t.Errorf("patch after rollback: %v", err)
		}
	})
}

func TestApplyPatchSymlinksAndModes(t *testing.T) {
	env := newTestEnv(t)
	root := env.WS.Root()
	writeRootFile(t, env, "target.txt", "t\n")
	if !testsys.SymlinksWork() {
		t.Skip(testsys.NoSymlinks)
	}
	if err := os.Symlink("target.txt", filepath.Join(root, "link.txt")); err != nil {
		t.Skip(err)
	}
	for _, patch := range []string{
		"*** Begin Patch\n*** Delete File: link.txt\n*** End Patch",
		"*** Begin Patch\n*** Update File: link.txt\n*** Move to: moved.txt\n@@\n-t\n+u\n*** End Patch",
	} {
		_, err := runTool(env, "apply_patch", map[string]any{"input": patch})
		if err == nil || !strings.Contains(err.Error(), "symbolic link to target.txt") {
			t.Errorf("%q: %v", patch, err)
		}
	}
	// Updating through a link edits its target, like edit and write.
	if _, err := runTool(env, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: link.txt\n@@\n-t\n+u\n*** End Patch"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "target.txt")); string(b) != "u\n" {
		t.Errorf("target = %q", b)
	}
	if st, err := os.Lstat(filepath.Join(root, "link.txt")); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link replaced: %v", err)
	}
	// A moved executable stays executable.
	writeRootFile(t, env, "run.sh", "echo a\n")
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := runTool(env, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: run.sh\n*** Move to: bin/run.sh\n@@\n-echo a\n+echo b\n*** End Patch"}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(root, "bin/run.sh")); err != nil || runtime.GOOS != "windows" && st.Mode().Perm() != 0o755 {
		t.Errorf("moved mode: %v %v", st.Mode(), err)
	}
}

// recordingEditor is a BufferEditor that records edits and applies them to
// the overlay, as an editor's didChange would.
type recordingEditor struct {
	ws interface {
		SetOverlay(workspace.Path, []byte, int32)
	}
	edits []string
}

func (r *recordingEditor) ApplyEdit(_ context.Context, p workspace.Path, version int32, old, new []byte, label string) error {
	r.edits = append(r.edits, p.Rel+": "+string(new))
	r.ws.SetOverlay(p, new, version+1)
	return nil
}

// TestApplyPatchOverlays: a file open in the editor is patched from its
// buffer text through the editor; deleting it removes the disk file and
// says the buffer is still open.
func TestApplyPatchOverlays(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "open.txt", "disk\n")
	writeRootFile(t, env, "gone.txt", "disk gone\n")
	ed := &recordingEditor{ws: env.WS}
	env.WS.SetBufferEditor(ed)
	for rel, text := range map[string]string{"open.txt": "buffer\n", "gone.txt": "buffer gone\n"} {
		p, err := env.WS.Resolve(rel)
		if err != nil {
			t.Fatal(err)
		}
		env.WS.SetOverlay(p, []byte(text), 1)
	}
	// The gate checks the buffer text (what read reports).
	res, err := runTool(env, "apply_patch", map[string]any{
		"input":                "*** Begin Patch\n*** Update File: open.txt\n@@\n-buffer\n+patched\n*** Delete File: gone.txt\n*** End Patch",
		"expectedSha256ByPath": map[string]string{"open.txt": sha256Hex([]byte("buffer\n"))},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ed.edits) != 1 || ed.edits[0] != "open.txt: patched\n" {
		t.Errorf("editor edits = %q", ed.edits)
	}
	if !regexp.MustCompile(`\nD gone.txt: deleted; old content in trash #\d+, #\d+; gone.txt is open in the editor`).MatchString(res.Text) {
		t.Errorf("text:\n%s", res.Text)
	}
	diffTrees(t, treeOf(t, env.WS.Root()), map[string]string{"open.txt": "disk\n"})
}

func TestApplyPatchUnchangedAndHeredoc(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.txt", "x\n")
	res, err := runTool(env, "apply_patch", map[string]any{"input": "<<'EOF'\n*** Begin Patch\n*** Update File: a.txt\n@@\n x\n*** End Patch\nEOF\n"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "¶a.txt#"+edit.Tag([]byte("x\n"))+"\nM a.txt: unchanged") {
		t.Errorf("text:\n%s", res.Text)
	}
	if log, _ := env.WS.Store().AuditLog(10); len(log) != 0 {
		t.Errorf("an unchanged file was audited: %+v", log)
	}
}
