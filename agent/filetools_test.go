package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/internal/testsys"
	"github.com/hashls/hashls/workspace"
)

// ftRead reads rel with read_file and returns its details.
func ftRead(t *testing.T, env *Env, rel string) *readFileDetails {
	t.Helper()
	res, err := runTool(env, "read_file", map[string]any{"path": rel})
	if err != nil {
		t.Fatalf("read_file %s: %v", rel, err)
	}
	return res.Details.(*readFileDetails)
}

// fileIs fails unless rel holds want ("" with absent: the file must not exist).
func fileIs(t *testing.T, env *Env, rel, want string, absent bool) {
	t.Helper()
	got, err := os.ReadFile(filepath.Join(env.WS.Root(), filepath.FromSlash(rel)))
	switch {
	case absent && err == nil:
		t.Fatalf("%s exists (%q); want it absent", rel, got)
	case absent:
	case err != nil:
		t.Fatalf("%s: %v", rel, err)
	case string(got) != want:
		t.Fatalf("%s = %q, want %q", rel, got, want)
	}
}

// wantKind fails unless err is an *Error of kind whose message holds
// every part, with a suggested action.
func wantKind(t *testing.T, err error, kind string, parts ...string) {
	t.Helper()
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != kind {
		t.Fatalf("err = %v, want kind %s", err, kind)
	}
	for _, p := range parts {
		if !strings.Contains(ae.Message, p) {
			t.Fatalf("message %q lacks %q", ae.Message, p)
		}
	}
	if ae.SuggestedAction == "" {
		t.Fatalf("error %q has no suggested action", ae.Message)
	}
}

func TestReadFile(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.txt", "one\ntwo\nthree\nfour\n")
	writeRootFile(t, env, "crlf.txt", "\xEF\xBB\xBFa\r\nb\r\n")
	writeRootFile(t, env, "bin.dat", "\x00\x01")
	writeRootFile(t, env, "dir/x.txt", "x")
	full := sha256Hex([]byte("one\ntwo\nthree\nfour\n"))
	for _, tc := range []struct {
		name    string
		args    map[string]any
		content string
		start   int
		end     int
		trunc   bool
		next    int
	}{
		{"whole", map[string]any{"path": "a.txt"}, "one\ntwo\nthree\nfour\n", 1, 4, false, 0},
		{"slice", map[string]any{"path": "a.txt", "startLine": 2, "endLine": 3}, "two\nthree\n", 2, 3, false, 0},
		{"open end", map[string]any{"path": "a.txt", "startLine": 4}, "four\n", 4, 4, false, 0},
		{"end past the end", map[string]any{"path": "a.txt", "endLine": 99}, "one\ntwo\nthree\nfour\n", 1, 4, false, 0},
		{"maxBytes at a line end", map[string]any{"path": "a.txt", "maxBytes": 9}, "one\ntwo\n", 1, 2, true, 3},
		{"maxBytes inside the first line", map[string]any{"path": "a.txt", "startLine": 3, "maxBytes": 2}, "th", 3, 3, true, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := runTool(env, "read_file", tc.args)
			if err != nil {
				t.Fatal(err)
			}
			d := res.Details.(*readFileDetails)
			if d.Content != tc.content || d.StartLine != tc.start || d.EndLine != tc.end || d.Truncated != tc.trunc || d.NextStartLine != tc.next {
				t.Fatalf("got %+v", d)
			}
			if d.SHA256 != full || d.TotalLines != 4 || d.Tag != edit.Tag([]byte("one\ntwo\nthree\nfour\n")) {
				t.Fatalf("sha256/totalLines/tag not of the whole file: %+v", d)
			}
		})
	}
	if d := ftRead(t, env, "crlf.txt"); d.Content != "a\r\nb\r\n" || !d.BOM || d.TotalLines != 2 || d.SHA256 != sha256Hex([]byte("\xEF\xBB\xBFa\r\nb\r\n")) {
		t.Fatalf("crlf+bom: %+v", d)
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		kind string
		msg  string
	}{
		{"missing", map[string]any{"path": "nope.txt"}, KindNotFound, "does not exist"},
		{"binary", map[string]any{"path": "bin.dat"}, KindBinary, "binary"},
		{"directory", map[string]any{"path": "dir"}, KindUsage, "is a directory"},
		{"outside", map[string]any{"path": "../x"}, KindOutside, ""},
		{"startLine 0", map[string]any{"path": "a.txt", "startLine": 0}, KindUsage, "startLine 0"},
		{"end before start", map[string]any{"path": "a.txt", "startLine": 3, "endLine": 2}, KindUsage, "before startLine"},
		{"past the end", map[string]any{"path": "a.txt", "startLine": 9}, KindUsage, "past the end"},
		{"maxBytes too big", map[string]any{"path": "a.txt", "maxBytes": 1 << 30}, KindUsage, "maxBytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runTool(env, "read_file", tc.args)
			wantKind(t, err, tc.kind, tc.msg)
		})
	}
}

func TestListDirectory(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, ".gitignore", "ignored/\n")
	writeRootFile(t, env, "a.txt", "12345")
	writeRootFile(t, env, "sub/b.txt", "b")
	writeRootFile(t, env, "sub/deep/c.txt", "c")
	writeRootFile(t, env, "ignored/x.txt", "x")
	paths := func(res *Result) string {
		var ps []string
		for _, e := range res.Details.(*listDirectoryDetails).Entries {
			ps = append(ps, e.Path+":"+e.Kind)
		}
		return strings.Join(ps, " ")
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"top level", map[string]any{}, ".gitignore:file a.txt:file sub:directory"},
		{"recursive", map[string]any{"recursive": true}, ".gitignore:file a.txt:file sub:directory sub/b.txt:file sub/deep:directory sub/deep/c.txt:file"},
		{"depth 2", map[string]any{"path": ".", "depth": 2}, ".gitignore:file a.txt:file sub:directory sub/b.txt:file sub/deep:directory"},
		{"subdirectory", map[string]any{"path": "sub", "recursive": true}, "sub/b.txt:file sub/deep:directory sub/deep/c.txt:file"},
		{"gitignore off", map[string]any{"gitignore": false}, ".gitignore:file a.txt:file ignored:directory sub:directory"},
		{"hidden off", map[string]any{"hidden": false}, "a.txt:file sub:directory"},
		{"capped", map[string]any{"recursive": true, "maxEntries": 2}, ".gitignore:file a.txt:file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := runTool(env, "list_directory", tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if got := paths(res); got != tc.want {
				t.Fatalf("entries %q, want %q", got, tc.want)
			}
		})
	}
	res, _ := runTool(env, "list_directory", map[string]any{"recursive": true, "maxEntries": 2})
	if d := res.Details.(*listDirectoryDetails); !d.Truncated || d.TotalEntries != 6 {
		t.Fatalf("cap: %+v", d)
	}
	res, _ = runTool(env, "list_directory", map[string]any{})
	if e := res.Details.(*listDirectoryDetails).Entries[1]; e.Size != 5 || e.ModTime.IsZero() {
		t.Fatalf("a.txt entry %+v: want size 5 and a modification time", e)
	}
	_, err := runTool(env, "list_directory", map[string]any{"path": "missing"})
	wantKind(t, err, KindNotFound)
	_, err = runTool(env, "list_directory", map[string]any{"path": "a.txt"})
	wantKind(t, err, KindUsage, "not a directory")
	_, err = runTool(env, "list_directory", map[string]any{"depth": 0})
	wantKind(t, err, KindUsage, "depth")
}

func TestSearchFilesAndGlob(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.go", "x := a.b(1)\n")
	writeRootFile(t, env, "sub/b.go", "axb(1)\n")
	writeRootFile(t, env, "sub/c.txt", "A.B(1)\n")
	files := func(res *Result) string {
		switch d := res.Details.(type) {
		case *searchFilesDetails:
			return d.Mode + ": " + strings.Join(d.Files, " ")
		case *globDetails:
			return d.Mode + ": " + strings.Join(d.Files, " ")
		}
		return "?"
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search_files", map[string]any{"pattern": "a.b("}, "text: a.go"}, // literal: '.' and '(' are not regex
		{"search_files", map[string]any{"pattern": "a.b\\(", "mode": "regex"}, "regex: a.go sub/b.go"},
		{"search_files", map[string]any{"pattern": "a.b(", "caseSensitive": false}, "text: a.go sub/c.txt"},
		{"search_files", map[string]any{"pattern": "(1)", "path": "sub", "include": "*.go"}, "text: sub/b.go"},
		{"search_files", map[string]any{"pattern": "**/*.go", "mode": "glob"}, "glob: a.go sub/b.go"},
		{"glob", map[string]any{"pattern": "*.go"}, "glob: a.go sub/b.go"},
		{"glob", map[string]any{"pattern": "*", "path": "sub"}, "glob: sub/b.go sub/c.txt"},
		{"glob", map[string]any{"pattern": "su*"}, "glob: sub/"}, // folders too
	} {
		t.Run(tc.tool+" "+tc.want, func(t *testing.T) {
			res, err := runTool(env, tc.tool, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			got := files(res)
			if d, ok := res.Details.(*globDetails); ok {
				sorted := slices.Sorted(slices.Values(d.Files))
				got = d.Mode + ": " + strings.Join(sorted, " ")
			}
			if got != tc.want {
				t.Fatalf("%s: got %q, want %q", tc.tool, got, tc.want)
			}
		})
	}
	_, err := runTool(env, "search_files", map[string]any{"pattern": "x", "mode": "fuzzy"})
	wantKind(t, err, KindUsage, "fuzzy")
	_, err = runTool(env, "search_files", map[string]any{"pattern": "x", "mode": "glob", "include": "*.go"})
	wantKind(t, err, KindUsage, "include")
}

func TestCreateAndWriteFile(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.txt", "old\n")
	writeRootFile(t, env, "crlf.txt", "x\r\ny\r\n")
	sum := sha256Hex([]byte("old\n"))
	for _, tc := range []struct {
		name    string
		tool    string
		args    map[string]any
		kind    string // "" = success
		msg     string
		file    string
		content string
	}{
		{"create", "create_file", map[string]any{"path": "new/dir/n.txt", "content": "n\n"}, "", "", "new/dir/n.txt", "n\n"},
		{"create over a file", "create_file", map[string]any{"path": "a.txt", "content": "x"}, KindAlreadyExists, "already exists", "a.txt", "old\n"},
		{"create over a directory", "create_file", map[string]any{"path": "new", "content": "x"}, KindAlreadyExists, "a directory", "", ""},
		{"create a directory path", "create_file", map[string]any{"path": "z/", "content": "x"}, KindUsage, "ends in '/'", "", ""},
		{"write without sha", "write_file", map[string]any{"path": "a.txt", "content": "x"}, KindUsage, "expectedSha256", "a.txt", "old\n"},
		{"write with a bad sha", "write_file", map[string]any{"path": "a.txt", "content": "x", "expectedSha256": "abc"}, KindUsage, "not a sha256", "a.txt", "old\n"},
		{"write stale", "write_file", map[string]any{"path": "a.txt", "content": "x", "expectedSha256": sha256Hex([]byte("other"))}, KindStale, "changed since it was read", "a.txt", "old\n"},
		{"write must-not-exist over a file", "write_file", map[string]any{"path": "a.txt", "content": "x", "expectedSha256": ""}, KindStale, "already exists", "a.txt", "old\n"},
		{"write a deleted file", "write_file", map[string]any{"path": "gone.txt", "content": "x", "expectedSha256": sum}, KindStale, "does not exist any more", "gone.txt", ""},
		{"write", "write_file", map[string]any{"path": "a.txt", "content": "new\n", "expectedSha256": sum}, "", "", "a.txt", "new\n"},
		{"write creates with \"\"", "write_file", map[string]any{"path": "b.txt", "content": "b", "expectedSha256": ""}, "", "", "b.txt", "b"},
		{"write keeps CRLF", "write_file", map[string]any{"path": "crlf.txt", "content": "p\nq\n", "expectedSha256": sha256Hex([]byte("x\r\ny\r\n"))}, "", "", "crlf.txt", "p\r\nq\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := runTool(env, tc.tool, tc.args)
			if tc.kind != "" {
				wantKind(t, err, tc.kind, tc.msg)
			} else if err != nil {
				t.Fatal(err)
			} else {
				d := res.Details.(*fileWriteDetails)
				got, _ := os.ReadFile(filepath.Join(env.WS.Root(), tc.file))
				if d.SHA256 != sha256Hex(got) || len(res.Changes) != 1 || res.Changes[0].NewSHA256 != d.SHA256 || res.Changes[0].AuditID == 0 {
					t.Fatalf("details %+v / changes %+v do not match the file %q", d, res.Changes, got)
				}
			}
			if tc.file != "" {
				fileIs(t, env, tc.file, tc.content, tc.content == "")
			}
		})
	}
}

func TestEditFile(t *testing.T) {
	const base = "alpha\n  beta\ngamma\nbeta\n"
	for _, tc := range []struct {
		name    string
		file    string // content before ("" = base)
		edits   []map[string]any
		sha     string // "" = the file's
		kind    string // "" = success
		msg     string
		want    string // content after a success
		replace []int
	}{
		{name: "one edit", edits: []map[string]any{{"oldText": "gamma", "newText": "GAMMA"}}, want: "alpha\n  beta\nGAMMA\nbeta\n", replace: []int{1}},
		{name: "in order", edits: []map[string]any{{"oldText": "alpha", "newText": "A"}, {"oldText": "A\n", "newText": "B\n"}}, want: "B\n  beta\ngamma\nbeta\n", replace: []int{1, 1}},
		{name: "replaceAll", edits: []map[string]any{{"oldText": "beta", "newText": "BETA", "replaceAll": true}}, want: "alpha\n  BETA\ngamma\nBETA\n", replace: []int{2}},
		{name: "two matches", edits: []map[string]any{{"oldText": "beta", "newText": "B"}}, kind: KindEdit, msg: "matches 2 places in f.txt (lines 2, 4)"},
		{name: "no match", edits: []map[string]any{{"oldText": "delta", "newText": "D"}}, kind: KindEdit, msg: "was not found"},
		{name: "near miss", edits: []map[string]any{{"oldText": "alpha\nbeta\ngam", "newText": "x"}}, kind: KindEdit, msg: "at lines 1-3, differs only in whitespace"},
		{name: "all or none", edits: []map[string]any{{"oldText": "alpha", "newText": "A"}, {"oldText": "nope", "newText": "x"}}, kind: KindEdit, msg: "edits[1].oldText was not found"},
		{name: "empty oldText", edits: []map[string]any{{"oldText": "", "newText": "x"}}, kind: KindUsage, msg: "oldText is empty"},
		{name: "same text", edits: []map[string]any{{"oldText": "gamma", "newText": "gamma"}}, kind: KindUsage, msg: "changes nothing"},
		{name: "unknown edit field", edits: []map[string]any{{"oldText": "gamma", "newText": "g", "regex": true}}, kind: KindUsage, msg: "regex"},
		{name: "stale", edits: []map[string]any{{"oldText": "gamma", "newText": "G"}}, sha: sha256Hex([]byte("other")), kind: KindStale, msg: "changed since it was read"},
		{name: "must-not-exist", edits: []map[string]any{{"oldText": "gamma", "newText": "G"}}, sha: "-", kind: KindUsage, msg: "must not exist"},
		{name: "CRLF with \\n", file: "\xEF\xBB\xBFa\r\nb\r\nc\r\n", edits: []map[string]any{{"oldText": "a\nb\n", "newText": "A\nB\n"}}, want: "\xEF\xBB\xBFA\r\nB\r\nc\r\n", replace: []int{1}},
		{name: "undo in two steps", edits: []map[string]any{{"oldText": "gamma", "newText": "x"}, {"oldText": "x", "newText": "gamma"}}, kind: KindNoChange, msg: "unchanged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t)
			before := tc.file
			if before == "" {
				before = base
			}
			writeRootFile(t, env, "f.txt", before)
			sha := sha256Hex([]byte(before))
			switch tc.sha {
			case "-":
				sha = ""
			case "":
			default:
				sha = tc.sha
			}
			res, err := runTool(env, "edit_file", map[string]any{"path": "f.txt", "expectedSha256": sha, "edits": tc.edits})
			if tc.kind != "" {
				wantKind(t, err, tc.kind, tc.msg)
				fileIs(t, env, "f.txt", before, false)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			fileIs(t, env, "f.txt", tc.want, false)
			d := res.Details.(*fileWriteDetails)
			if d.SHA256 != sha256Hex([]byte(tc.want)) || d.OldSHA256 != sha256Hex([]byte(before)) || !slices.Equal(d.Replacements, tc.replace) || len(d.TrashIDs) != 1 {
				t.Fatalf("details %+v", d)
			}
			if strings.Contains(before, "\r\n") && !strings.Contains(res.Text, "\\r\\n") {
				t.Fatalf("a CRLF match is not reported: %q", res.Text)
			}
		})
	}
}

func TestDeleteRestoreMove(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.txt", "A\n")
	writeRootFile(t, env, "b.txt", "B\n")
	if err := os.Chmod(filepath.Join(env.WS.Root(), "b.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := testsys.SymlinksWork()
	if links {
		if err := os.Symlink("a.txt", filepath.Join(env.WS.Root(), "link.txt")); err != nil {
			t.Fatal(err)
		}
	}

	// delete then restore_file by path, and by id
	_, err := runTool(env, "delete_file", map[string]any{"path": "a.txt", "expectedSha256": sha256Hex([]byte("other"))})
	wantKind(t, err, KindStale)
	if links { // else: testsys.NoSymlinks
		_, err = runTool(env, "delete_file", map[string]any{"path": "link.txt"})
		wantKind(t, err, KindUsage, "symbolic link")
	}
	res, err := runTool(env, "delete_file", map[string]any{"path": "a.txt", "expectedSha256": sha256Hex([]byte("A\n"))})
	if err != nil {
		t.Fatal(err)
	}
	fileIs(t, env, "a.txt", "", true)
	d := res.Details.(*fileWriteDetails)
	if d.Op != "delete" || len(d.TrashIDs) != 1 || res.Changes[0].Op != "delete" {
		t.Fatalf("delete details %+v", d)
	}
	trashID := d.TrashIDs[0]
	_, err = runTool(env, "delete_file", map[string]any{"path": "a.txt"})
	wantKind(t, err, KindNotFound)
	if _, err := runTool(env, "restore_file", map[string]any{"path": "a.txt"}); err != nil {
		t.Fatal(err)
	}
	fileIs(t, env, "a.txt", "A\n", false)

	// restore over changed content: refused without, or with a stale, expectedSha256
	writeRootFile(t, env, "a.txt", "changed\n")
	_, err = runTool(env, "restore_file", map[string]any{"id": trashID})
	wantKind(t, err, KindAlreadyExists, "needs expectedSha256")
	_, err = runTool(env, "restore_file", map[string]any{"id": trashID, "expectedSha256": sha256Hex([]byte("A\n"))})
	wantKind(t, err, KindStale)
	fileIs(t, env, "a.txt", "changed\n", false)
	res, err = runTool(env, "restore_file", map[string]any{"id": trashID, "expectedSha256": sha256Hex([]byte("changed\n"))})
	if err != nil {
		t.Fatal(err)
	}
	fileIs(t, env, "a.txt", "A\n", false)
	if d := res.Details.(*fileWriteDetails); len(d.TrashIDs) != 1 {
		t.Fatalf("the replaced content is not in the trash: %+v", d)
	}
	_, err = runTool(env, "restore_file", map[string]any{"path": "never.txt"})
	wantKind(t, err, KindNotFound, "holds nothing")
	_, err = runTool(env, "restore_file", map[string]any{})
	wantKind(t, err, KindUsage, "id or path")

	// move: never onto an existing file; keeps the mode; one commit
	_, err = runTool(env, "move_file", map[string]any{"source": "b.txt", "destination": "a.txt"})
	wantKind(t, err, KindAlreadyExists, "already exists")
	fileIs(t, env, "a.txt", "A\n", false)
	fileIs(t, env, "b.txt", "B\n", false)
	_, err = runTool(env, "move_file", map[string]any{"source": "missing.txt", "destination": "m.txt"})
	wantKind(t, err, KindNotFound)
	_, err = runTool(env, "move_file", map[string]any{"source": "b.txt", "destination": "b.txt"})
	wantKind(t, err, KindUsage, "same file")
	_, err = runTool(env, "move_file", map[string]any{"source": "b.txt", "destination": "c.txt", "expectedSha256": sha256Hex([]byte("x"))})
	wantKind(t, err, KindStale)
	res, err = runTool(env, "move_file", map[string]any{"source": "b.txt", "destination": "sub/c.txt", "expectedSha256": sha256Hex([]byte("B\n"))})
	if err != nil {
		t.Fatal(err)
	}
	fileIs(t, env, "b.txt", "", true)
	fileIs(t, env, "sub/c.txt", "B\n", false)
	if st, err := os.Stat(filepath.Join(env.WS.Root(), "sub/c.txt")); err != nil || runtime.GOOS != "windows" && st.Mode().Perm() != 0o755 {
		t.Fatalf("moved file mode: %v %v", st, err)
	}
	d = res.Details.(*fileWriteDetails)
	if d.Op != "move" || d.MovedFrom != "b.txt" || d.Path != "sub/c.txt" || len(res.Changes) != 2 || res.Changes[1].Op != "delete" || len(d.AuditIDs) != 2 {
		t.Fatalf("move details %+v changes %+v", d, res.Changes)
	}
}

// TestFileToolsCrossHashline checks that the two families share the store:
// a read_file proof is accepted by a hashline edit, and a hashline read's
// proofs by write_file (and its tag is refused once write_file changed the
// lines it edits).
func TestFileToolsCrossHashline(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.txt", "one\ntwo\nthree\n")
	rf := ftRead(t, env, "a.txt")
	if _, err := runTool(env, "edit", map[string]any{"input": "¶a.txt#" + rf.Tag + "\nreplace 2..2:\n+TWO"}); err != nil {
		t.Fatalf("hashline edit with read_file's tag: %v", err)
	}
	fileIs(t, env, "a.txt", "one\nTWO\nthree\n", false)
	// read_file's sha256 is stale now for the file tools too.
	_, err := runTool(env, "write_file", map[string]any{"path": "a.txt", "content": "x\n", "expectedSha256": rf.SHA256})
	wantKind(t, err, KindStale)

	res, err := runTool(env, "read", map[string]any{"path": "a.txt:1-3"})
	if err != nil {
		t.Fatal(err)
	}
	rd := res.Details.(*readDetails)
	if _, err := runTool(env, "write_file", map[string]any{"path": "a.txt", "content": "one\n2\nthree\n", "expectedSha256": rd.SHA256}); err != nil {
		t.Fatalf("write_file with read's sha256: %v", err)
	}
	_, err = runTool(env, "edit", map[string]any{"input": "¶a.txt#" + rd.Tag + "\nreplace 2..2:\n+again"})
	wantKind(t, err, KindStale)
	fileIs(t, env, "a.txt", "one\n2\nthree\n", false)

	// And edit_file takes the sha256 of the file as the hashline edit left it.
	res, err = runTool(env, "edit", map[string]any{"input": "¶a.txt#" + edit.Tag([]byte("one\n2\nthree\n")) + "\nreplace 1..1:\n+ONE"})
	if err != nil {
		t.Fatal(err)
	}
	sum := res.Details.(*editDetails).PerFileResults[0].SHA256
	if _, err := runTool(env, "edit_file", map[string]any{"path": "a.txt", "expectedSha256": sum, "edits": []map[string]any{{"oldText": "three", "newText": "3"}}}); err != nil {
		t.Fatalf("edit_file with the hashline edit's sha256: %v", err)
	}
	fileIs(t, env, "a.txt", "ONE\n2\n3\n", false)
}

// TestFileToolErrorJSON checks the error shape every transport prints.
func TestFileToolErrorJSON(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.txt", "a\n")
	_, err := runTool(env, "create_file", map[string]any{"path": "a.txt", "content": "x"})
	b, _ := json.Marshal(AsError(err))
	var got map[string]string
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got["kind"] != KindAlreadyExists || got["message"] == "" || got["suggestedAction"] == "" || len(got) != 3 {
		t.Fatalf("error JSON %s", b)
	}
	// A kind without a tool's own action gets the kind's default.
	if ae := AsError(errors.New("boom")); ae.SuggestedAction != SuggestedAction(KindIO) {
		t.Fatalf("default action %q", ae.SuggestedAction)
	}
}

// FuzzEditFile drives edit_file end to end (read_file gives the sha256,
// edit_file applies one edit): no input may panic, a refused edit leaves the
// file untouched, and after a success the file re-read has the sha256 the
// result reported and, without line-ending translation, is exactly the
// replacement.
func FuzzEditFile(f *testing.F) {
	f.Add("alpha\nbeta\n", "beta", "B", false)
	f.Add("x x x", "x", "y", true)
	f.Add("a\r\nb\r\n", "a\nb", "c\nd", false)
	f.Add("\xEF\xBB\xBFhead\n", "head", "", false)
	f.Add("  indented\n", "indented ", "z", false)
	f.Add("", "a", "b", false)
	env := newTestEnv(f)
	f.Fuzz(func(t *testing.T, content, oldText, newText string, replaceAll bool) {
		if workspace.IsBinary([]byte(content)) || !utf8.ValidString(oldText+newText) {
			return // binary files are refused; JSON carries only valid UTF-8
		}
		writeRootFile(t, env, "f.txt", content)
		rf := ftRead(t, env, "f.txt")
		res, err := runTool(env, "edit_file", map[string]any{"path": "f.txt", "expectedSha256": rf.SHA256,
			"edits": []map[string]any{{"oldText": oldText, "newText": newText, "replaceAll": replaceAll}}})
		got, rerr := os.ReadFile(filepath.Join(env.WS.Root(), "f.txt"))
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err != nil {
			var ae *Error
			if !errors.As(err, &ae) || ae.Kind == KindInternal || ae.SuggestedAction == "" {
				t.Fatalf("error %#v", err)
			}
			if string(got) != content {
				t.Fatalf("refused edit (%v) changed the file to %q", err, got)
			}
			return
		}
		// The reported sha256 is the file's (read_file refuses a file the
		// edit made binary, so the bytes are hashed here).
		if sum := sha256Hex(got); sum != res.Details.(*fileWriteDetails).SHA256 {
			t.Fatalf("file sha256 %s, result said %s", sum, res.Details.(*fileWriteDetails).SHA256)
		}
		if !workspace.IsBinary(got) {
			if d := ftRead(t, env, "f.txt"); d.SHA256 != res.Details.(*fileWriteDetails).SHA256 {
				t.Fatalf("re-read sha256 %s, result said %s", d.SHA256, res.Details.(*fileWriteDetails).SHA256)
			}
		}
		if !strings.Contains(res.Text, "\\r\\n") {
			body := strings.TrimPrefix(content, "\uFEFF")
			want := strings.Replace(body, oldText, newText, map[bool]int{true: -1, false: 1}[replaceAll])
			if string(got) != content[:len(content)-len(body)]+want {
				t.Fatalf("file %q, want %q", got, want)
			}
		}
	})
}

// TestSearchFilesMatches checks search_files' structured matches: one
// {path, line, text} per match row the text shows, under the same caps,
// with matchesTruncated when the list is not every matching line.
func TestSearchFilesMatches(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.go", "x := 1\nfoo(x)\n\tfoo()\n")
	writeRootFile(t, env, "b/c.txt", "no\nfoo bar\n")
	writeRootFile(t, env, "many/m.txt", strings.Repeat("foo\n", 25))
	long := strings.Repeat("y", 600) + "foo\n"
	for i := range 20 {
		writeRootFile(t, env, fmt.Sprintf("big/%02d.txt", i), strings.Repeat(long, 20))
	}
	// rows lists the match rows of the text as path:line:text.
	rows := func(text string) []string {
		var out []string
		path := ""
		for _, l := range strings.Split(text, "\n") {
			switch {
			case strings.HasPrefix(l, "¶"):
				path, _, _ = strings.Cut(strings.TrimPrefix(l, "¶"), "#")
			case strings.HasPrefix(l, "*"):
				n, rest, _ := strings.Cut(l[1:], ":")
				out = append(out, path+":"+n+":"+rest)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		args      map[string]any
		want      []string // "" = check only against the text
		count     int
		truncated bool
	}{
		{"text", map[string]any{"pattern": "foo", "path": ".", "include": "{a.go,b/*}"}, []string{"a.go:2:foo(x)", "a.go:3:\tfoo()", "b/c.txt:2:foo bar"}, 3, false},
		{"regex", map[string]any{"pattern": "^foo", "mode": "regex", "path": "a.go"}, []string{"a.go:2:foo(x)"}, 1, false},
		{"no match", map[string]any{"pattern": "zzz"}, []string{}, 0, false},
		{"a single file", map[string]any{"pattern": "foo", "path": "many/m.txt"}, nil, 25, false},
		{"lines per file, several files", map[string]any{"pattern": "foo", "path": ".", "include": "{many/*,a.go}"}, nil, 22, true},
		{"output bytes", map[string]any{"pattern": "foo", "path": "big"}, nil, -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := runTool(env, "search_files", tc.args)
			if err != nil {
				t.Fatal(err)
			}
			d := res.Details.(*searchFilesDetails)
			var got []string
			for _, m := range d.Matches {
				got = append(got, fmt.Sprintf("%s:%d:%s", m.Path, m.Line, m.Text))
			}
			if !slices.Equal(got, rows(res.Text)) {
				t.Fatalf("matches %q are not the rows shown %q", got, rows(res.Text))
			}
			if tc.want != nil && !slices.Equal(got, tc.want) {
				t.Fatalf("matches %q, want %q", got, tc.want)
			}
			if tc.count >= 0 && len(d.Matches) != tc.count {
				t.Fatalf("%d matches, want %d", len(d.Matches), tc.count)
			}
			if d.MatchesTruncated != tc.truncated {
				t.Fatalf("matchesTruncated %v, want %v (%d of %d; truncated %v)", d.MatchesTruncated, tc.truncated, len(d.Matches), d.TotalMatches, d.Truncated)
			}
			if tc.name == "output bytes" && (!d.Truncated || !d.Matches[0].Cut || len(d.Matches) >= 400) {
				t.Fatalf("output cap: truncated %v, %d matches, first cut %v", d.Truncated, len(d.Matches), d.Matches[0].Cut)
			}
		})
	}
	b, _ := json.Marshal(&searchFilesDetails{Mode: "text", searchDetails: &searchDetails{}, Matches: []searchMatch{{Path: "a", Line: 1, Text: "x"}}})
	if !strings.Contains(string(b), `"matches":[{"path":"a","line":1,"text":"x"}],"matchesTruncated":false`) {
		t.Fatalf("JSON %s", b)
	}
}

// TestOpenBuffersHiddenAndIgnored checks that the editor's unsaved buffers
// are listed, globbed and searched like files on disk: hidden and
// gitignore apply to them as to the disk's entries.
func TestOpenBuffersHiddenAndIgnored(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, ".gitignore", "ignored/\n*.log\n")
	writeRootFile(t, env, "a.txt", "needle\n")
	if err := os.Mkdir(filepath.Join(env.WS.Root(), "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"sub/new.txt", "ignored/new.txt", ".hidden.txt", "notes.log", "sub/.env/x.txt"} {
		p, err := env.WS.Resolve(rel)
		if err != nil {
			t.Fatal(err)
		}
		env.WS.SetOverlay(p, []byte("needle\n"), 1)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_directory", map[string]any{"recursive": true}, ".gitignore .hidden.txt a.txt sub/.env/x.txt sub/new.txt"},
		{"list_directory", map[string]any{"recursive": true, "hidden": false}, "a.txt sub/new.txt"},
		{"list_directory", map[string]any{"recursive": true, "gitignore": false}, ".gitignore .hidden.txt a.txt ignored/new.txt notes.log sub/.env/x.txt sub/new.txt"},
		{"list_directory", map[string]any{"path": "sub", "recursive": true, "hidden": false}, "sub/new.txt"},
		{"search_files", map[string]any{"pattern": "**/*.txt", "mode": "glob"}, ".hidden.txt a.txt sub/.env/x.txt sub/new.txt"},
		{"search_files", map[string]any{"pattern": "**/*.txt", "mode": "glob", "gitignore": false}, ".hidden.txt a.txt ignored/new.txt sub/.env/x.txt sub/new.txt"},
		{"glob", map[string]any{"pattern": "*", "hidden": false}, "a.txt sub/ sub/new.txt"},
		{"glob", map[string]any{"pattern": "*.log", "gitignore": false}, "notes.log"},
		{"search_files", map[string]any{"pattern": "needle"}, ".hidden.txt a.txt sub/.env/x.txt sub/new.txt"},
		{"search_files", map[string]any{"pattern": "needle", "gitignore": false}, ".hidden.txt a.txt ignored/new.txt notes.log sub/.env/x.txt sub/new.txt"},
		{"search_files", map[string]any{"pattern": "needle", "path": "ignored/new.txt"}, "ignored/new.txt"}, // named explicitly
	} {
		t.Run(fmt.Sprintf("%s %v", tc.tool, tc.args), func(t *testing.T) {
			res, err := runTool(env, tc.tool, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			switch d := res.Details.(type) {
			case *listDirectoryDetails:
				for _, e := range d.Entries {
					if e.Kind == "file" {
						got = append(got, e.Path)
					}
				}
			case *globDetails:
				got = d.Files
			case *searchFilesDetails:
				got = d.Files
			}
			slices.Sort(got)
			if s := strings.Join(got, " "); s != tc.want {
				t.Fatalf("got %q, want %q", s, tc.want)
			}
		})
	}
}

// TestDeleteMoveDirectory checks that delete_file and move_file act on one
// file: a directory is refused with invalid_argument (or already_exists as
// a move's destination) and a suggested action, and nothing changes.
func TestDeleteMoveDirectory(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "dir/x.txt", "x\n")
	writeRootFile(t, env, "a.txt", "a\n")
	for _, tc := range []struct {
		name   string
		tool   string
		args   map[string]any
		kind   string
		msg    string
		action string
	}{
		{"delete a directory", "delete_file", map[string]any{"path": "dir"}, KindUsage, "dir is a directory; delete_file acts on one file", `list_directory {"path": "dir", "recursive": true} and delete them one at a time`},
		{"delete a directory with a sha", "delete_file", map[string]any{"path": "dir", "expectedSha256": sha256Hex([]byte("x\n"))}, KindUsage, "is a directory", "list_directory"},
		{"delete dir/", "delete_file", map[string]any{"path": "dir/"}, KindUsage, "ends in '/'", ""},
		{"move a directory", "move_file", map[string]any{"source": "dir", "destination": "dir2"}, KindUsage, "dir is a directory; move_file acts on one file", "move them one at a time"},
		{"move onto a directory", "move_file", map[string]any{"source": "a.txt", "destination": "dir"}, KindAlreadyExists, "dir already exists (a directory)", `"destination": "dir/a.txt"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runTool(env, tc.tool, tc.args)
			wantKind(t, err, tc.kind, tc.msg)
			if ae := AsError(err); !strings.Contains(ae.SuggestedAction, tc.action) {
				t.Fatalf("suggested action %q lacks %q", ae.SuggestedAction, tc.action)
			}
			fileIs(t, env, "dir/x.txt", "x\n", false)
			fileIs(t, env, "a.txt", "a\n", false)
			fileIs(t, env, "dir2", "", true)
		})
	}
}

// TestLiteralPaths: search_files' and glob's path is a name as written,
// never spliced into a glob: a directory named a[b] is searched, not ab.
func TestLiteralPaths(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a[b]/in.txt", "needle\n")
	writeRootFile(t, env, "a[b]/deep/more.go", "needle\n")
	writeRootFile(t, env, "ab/other.txt", "needle\n")
	res, err := runTool(env, "search_files", map[string]any{"pattern": "needle", "path": "a[b]"})
	if err != nil || !strings.Contains(res.Text, "a[b]/in.txt") || strings.Contains(res.Text, "ab/other.txt") {
		t.Fatalf("search_files in a[b]: %v\n%v", err, res)
	}
	res, err = runTool(env, "search_files", map[string]any{"pattern": "needle", "path": "a[b]", "include": "*.go"})
	if err != nil || !strings.Contains(res.Text, "a[b]/deep/more.go") || strings.Contains(res.Text, "in.txt") {
		t.Fatalf("search_files in a[b], include *.go: %v\n%v", err, res)
	}
	for _, args := range []map[string]any{{"pattern": "*.txt", "path": "a[b]"}, {"pattern": "*.txt", "path": "a[b]", "mode": "glob"}} {
		tool := "glob"
		if args["mode"] != nil {
			tool = "search_files"
		}
		res, err = runTool(env, tool, args)
		if err != nil || !strings.Contains(res.Text, "in.txt") || strings.Contains(res.Text, "other.txt") {
			t.Fatalf("%s %v: %v\n%v", tool, args, err, res)
		}
	}
	// find's paths are globs unless literal: there a[b] is ab.
	res, err = runTool(env, "find", map[string]any{"paths": "a[b]/*.txt", "literal": false})
	if err != nil || !strings.Contains(res.Text, "other.txt") {
		t.Fatalf("find a[b]/*.txt: %v\n%v", err, res)
	}
}

// TestDirectoryRulesAgree: a read of a directory and list_directory list
// by the same rules (.gitignore applies, hidden names are listed, .git
// never), at the top and below it.
func TestDirectoryRulesAgree(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, ".gitignore", "build/\n*.log\n")
	writeRootFile(t, env, "src/.gitignore", "gen.go\n")
	for _, f := range []string{"src/a.go", "src/gen.go", "src/x.log", "build/out", ".hidden", ".git/config", "top.log", "keep.txt"} {
		writeRootFile(t, env, f, "x\n")
	}
	read, err := runTool(env, "read", map[string]any{"path": "."})
	if err != nil {
		t.Fatal(err)
	}
	list, err := runTool(env, "list_directory", map[string]any{"path": ".", "recursive": true})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"src/", "a.go", ".hidden", "keep.txt", ".gitignore"} {
		if !strings.Contains(read.Text, name) || !strings.Contains(list.Text, name) {
			t.Errorf("%s: listed by read %v, by list_directory %v", name, strings.Contains(read.Text, name), strings.Contains(list.Text, name))
		}
	}
	for _, name := range []string{"gen.go", "x.log", "build", "top.log", ".git/", "config"} {
		if strings.Contains(read.Text, name) || strings.Contains(list.Text, name) {
			t.Errorf("%s: listed by read %v, by list_directory %v", name, strings.Contains(read.Text, name), strings.Contains(list.Text, name))
		}
	}
	sub, err := runTool(env, "read", map[string]any{"path": "src"})
	if err != nil || strings.Contains(sub.Text, "gen.go") || !strings.Contains(sub.Text, "a.go") {
		t.Errorf("read src: %v\n%v", err, sub)
	}
}
