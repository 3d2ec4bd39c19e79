package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/internal/testsys"
)

func numbered(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	return sb.String()
}

func rows(from, to int) string {
	var sb strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&sb, "%d:line %d\n", i, i)
	}
	return sb.String()
}

func TestReadSelectors(t *testing.T) {
	env := newTestEnv(t)
	content := numbered(20)
	writeRootFile(t, env, "f.txt", content)
	hdr := "¶f.txt#" + edit.Tag([]byte(content)) + "\n"
	tests := []struct {
		path string
		want string
	}{
		{"f.txt", hdr + rows(1, 20)},
		{"f.txt:5", hdr + rows(4, 20)},      // open-ended: 1 leading context line
		{"f.txt:5-", hdr + rows(4, 20)},     // same
		{"f.txt:5-7", hdr + rows(4, 10)},    // 1 before, 3 after
		{"f.txt:L5-L7", hdr + rows(4, 10)},  // L prefixes
		{"f.txt:5+2", hdr + rows(4, 9)},     // 5..6 plus context
		{"f.txt:1-2", hdr + rows(1, 5)},     // clamped at the start
		{"f.txt:19-20", hdr + rows(18, 20)}, // clamped at the end
		{"f.txt:2-3,15-15", hdr + rows(1, 6) + "...\n" + rows(14, 18)},
		{"f.txt:2-3,6-7", hdr + rows(1, 10)}, // context makes them touch: merged
		{"f.txt:3-4:raw", "line 2\nline 3\nline 4\nline 5\nline 6\nline 7\n"},
		{"f.txt:raw:3-4", "line 2\nline 3\nline 4\nline 5\nline 6\nline 7\n"},
		{"f.txt:raw", content},
	}
	for _, tt := range tests {
		res, err := runTool(env, "read", map[string]string{"path": tt.path})
		if err != nil {
			t.Errorf("read %s: %v", tt.path, err)
			continue
		}
		if res.Text != tt.want {
			t.Errorf("read %s =\n%s\nwant\n%s", tt.path, res.Text, tt.want)
		}
	}
}

func TestReadGuidanceAndErrors(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "f.txt", numbered(3))
	writeRootFile(t, env, "bin.dat", "a\x00b")
	writeRootFile(t, env, "empty.txt", "")
	writeRootFile(t, env, "dir/x.txt", "x")

	res, err := runTool(env, "read", map[string]string{"path": "f.txt:10"})
	if err != nil || !strings.Contains(res.Text, "Line 10 is past the end of f.txt, which has 3 lines. Use f.txt:3") {
		t.Errorf("past the end: %v %+v", err, res)
	}
	res, err = runTool(env, "read", map[string]string{"path": "empty.txt"})
	if err != nil || !strings.Contains(res.Text, "empty file") {
		t.Errorf("empty: %v %+v", err, res)
	}
	res, err = runTool(env, "read", map[string]string{"path": "dir"})
	if err != nil || !strings.Contains(res.Text, "x.txt") {
		t.Errorf("dir: %v %+v", err, res)
	}
	for path, kind := range map[string]string{
		"f.txt:0":             KindUsage,
		"missing.txt":         KindNotFound,
		"bin.dat":             KindBinary,
		"../x.txt":            KindOutside,
		testsys.OutsidePath(): KindOutside,
		"":                    KindUsage,
	} {
		_, err := runTool(env, "read", map[string]string{"path": path})
		var ae *Error
		if !errors.As(err, &ae) || ae.Kind != kind {
			t.Errorf("read %q: err %v, want kind %s", path, err, kind)
		}
	}
}

func TestReadLimits(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "long.txt", numbered(5000))
	res, err := runTool(env, "read", map[string]string{"path": "long.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "3000:line 3000\n") || strings.Contains(res.Text, "3001:") {
		t.Errorf("3000-line limit not applied")
	}
	if !strings.Contains(res.Text, "[Showing lines 1-3000 of 5000 (3000-line limit). Use long.txt:3001 to continue.]") {
		t.Errorf("no truncation notice: %s", res.Text[len(res.Text)-200:])
	}
	d := res.Details.(*readDetails)
	if d.Truncation == nil || d.Truncation.NextOffset != 3001 {
		t.Errorf("details truncation = %+v", d.Truncation)
	}

	wide := strings.Repeat(strings.Repeat("x", 99)+"\n", 2000) // 200 KB
	writeRootFile(t, env, "wide.txt", wide)
	res, err = runTool(env, "read", map[string]string{"path": "wide.txt:100-"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Text) > 52*1024 || !strings.Contains(res.Text, "(50 KiB limit). Use wide.txt:") {
		t.Errorf("50 KiB limit not applied: %d bytes", len(res.Text))
	}
}

func TestReadRecordsSnapshotForEdit(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "crlf.txt", "\xEF\xBB\xBFa\r\nb\r\nc\r\n")
	res, err := runTool(env, "read", map[string]string{"path": "crlf.txt"})
	if err != nil {
		t.Fatal(err)
	}
	hdr, _, _ := strings.Cut(res.Text, "\n")
	if !strings.Contains(res.Text, "\n2:b\n") || strings.Contains(res.Text, "\r") {
		t.Fatalf("CRLF/BOM not hidden: %q", res.Text)
	}
	_, err = runTool(env, "edit", map[string]string{"input": hdr + "\nreplace 2..2:\n+B"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(env.WS.Root(), "crlf.txt"))
	if string(got) != "\xEF\xBB\xBFa\r\nB\r\nc\r\n" {
		t.Fatalf("edit lost BOM or CRLF: %q", got)
	}
}

// TestEditLargeFile edits a 64 MiB file through the tool (the reference
// stops at 4 MiB).
func TestEditLargeFile(t *testing.T) {
	if testing.Short() {
		t.Skip("64 MiB file")
	}
	env := newTestEnv(t)
	line := strings.Repeat("y", 63) + "\n"
	big := strings.Repeat(line, 64*1024*1024/len(line))
	writeRootFile(t, env, "big.txt", big)
	res, err := runTool(env, "read", map[string]string{"path": "big.txt:1000000-1000001"})
	if err != nil {
		t.Fatal(err)
	}
	hdr, _, _ := strings.Cut(res.Text, "\n")
	res, err = runTool(env, "edit", map[string]string{"input": hdr + "\nreplace 1000000..1000000:\n+changed\ninsert tail:\n+end"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(env.WS.Root(), "big.txt"))
	want := strings.Repeat(line, 999999) + "changed\n" + big[1000000*len(line):] + "end\n"
	if string(got) != want {
		t.Fatalf("64 MiB edit wrong (len %d, want %d)", len(got), len(want))
	}
	if newHdr := "#" + edit.Tag(got); !strings.Contains(res.Text, newHdr) {
		t.Fatalf("response tag does not match the written content")
	}
}

func TestSplitDisplayLines(t *testing.T) {
	tests := map[string][]string{
		"":                nil,
		"a":               {"a"},
		"a\n":             {"a"},
		"a\nb":            {"a", "b"},
		"a\r\nb\r\n":      {"a", "b"},
		"a\rb\n":          {"a", "b"},
		"\xEF\xBB\xBFa\n": {"a"},
		"a\n\n":           {"a", ""},
		"\r\n":            {""},
	}
	for in, want := range tests {
		got := splitDisplayLines([]byte(in))
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Errorf("splitDisplayLines(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLineNumbersAgree: read, search and edit number the lines of a file
// with lone CR breaks the same way.
func TestLineNumbersAgree(t *testing.T) {
	env := newTestEnv(t)
	content := "alpha\rbeta\rgamma\r\ndelta\n"
	writeRootFile(t, env, "mac.txt", content)
	res, err := runTool(env, "read", map[string]string{"path": "mac.txt"})
	if err != nil || !strings.Contains(res.Text, "\n3:gamma\n") {
		t.Fatalf("read: %v\n%v", err, res)
	}
	res, err = runTool(env, "search", map[string]any{"pattern": "gamma", "paths": "mac.txt"})
	if err != nil || !strings.Contains(res.Text, "*3:gamma\n") || strings.Contains(res.Text, "\r") {
		t.Fatalf("search: %v\n%+v", err, res)
	}
	hdr, _, _ := strings.Cut(res.Text, "\n")
	if _, err := runTool(env, "edit", map[string]string{"input": hdr + "\nreplace 3..3:\n+GAMMA"}); err != nil {
		t.Fatal(err)
	}
	// Lone CRs are line breaks rewritten in the file's first style (the
	// corpus case crlf-lone-cr-normalized); the edit hit line 3.
	if got, _ := os.ReadFile(filepath.Join(env.WS.Root(), "mac.txt")); string(got) != "alpha\r\nbeta\r\nGAMMA\r\ndelta\n" {
		t.Fatalf("edit by the search's number: %q", got)
	}
}

// Open buffers are files to every existence check of the tools: a buffer
// the editor has not saved yet is listed, read and searched.
func TestToolsSeeUnsavedBuffers(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "d/on-disk.txt", "disk\n")
	p, err := env.WS.Resolve("d/unsaved.txt")
	if err != nil {
		t.Fatal(err)
	}
	env.WS.SetOverlay(p, []byte("needle in a buffer\n"), 1)
	if res := mustRunTool(t, env, "read", map[string]string{"path": "d"}); !strings.Contains(res.Text, "unsaved.txt") {
		t.Errorf("directory listing misses the unsaved buffer:\n%s", res.Text)
	}
	if res := mustRunTool(t, env, "read", map[string]string{"path": "d/unsaved.txt"}); !strings.Contains(res.Text, "1:needle in a buffer") {
		t.Errorf("read of the unsaved buffer:\n%s", res.Text)
	}
	if res := mustRunTool(t, env, "search", map[string]any{"pattern": "needle", "paths": []string{"d/unsaved.txt"}}); !strings.Contains(res.Text, "needle in a buffer") {
		t.Errorf("search of the unsaved buffer:\n%s", res.Text)
	}
	// A directory search matches buffers, not the disk text behind them.
	writeRootFile(t, env, "d/stale-disk.txt", "needle on disk only\n")
	sp, _ := env.WS.Resolve("d/stale-disk.txt")
	env.WS.SetOverlay(sp, []byte("edited away\n"), 2)
	res := mustRunTool(t, env, "search", map[string]any{"pattern": "needle", "paths": []string{"d"}})
	if !strings.Contains(res.Text, "unsaved.txt") || strings.Contains(res.Text, "stale-disk.txt") {
		t.Errorf("directory search must follow the buffers:\n%s", res.Text)
	}
	if _, err := runTool(env, "write", map[string]any{"path": "d/unsaved.txt", "content": "x\n", "expectedSha256": ""}); KindOf(err) != KindStale {
		t.Errorf("write must-not-exist over an open buffer: %v (kind %s), want stale", err, KindOf(err))
	}
}

// TestReadFacesAgree: read and read_file are one loading core (loadText):
// for every kind of content, the open buffer over the disk included, they
// load the same bytes under the same sha256 and tag, number the same
// lines, record the same snapshot (an edit of either family accepts the
// other's proof), and refuse a missing file, a directory and binary
// content with the same kinds.
func TestReadFacesAgree(t *testing.T) {
	env := newTestEnv(t)
	files := map[string]string{
		"lf.txt":    "one\ntwo\n",
		"crlf.txt":  "one\r\ntwo\r\nthree",
		"cr.txt":    "a\rb\rc\n",
		"bom.txt":   "\xEF\xBB\xBFbom\nline\n",
		"empty.txt": "",
		"code.go":   "package x\n\nfunc A() {}\n",
	}
	for name, content := range files {
		writeRootFile(t, env, name, content)
	}
	writeRootFile(t, env, "buf.txt", "on disk\n")
	bp, _ := env.WS.Resolve("buf.txt")
	env.WS.SetOverlay(bp, []byte("in the buffer\nsecond\n"), 1)
	files["buf.txt"] = "in the buffer\nsecond\n"

	for name, content := range files {
		r := mustRunTool(t, env, "read", map[string]string{"path": name + ":1"}).Details.(*readDetails)
		f := mustRunTool(t, env, "read_file", map[string]string{"path": name}).Details.(*readFileDetails)
		if r.SHA256 != f.SHA256 || r.SHA256 != sha256Hex([]byte(content)) {
			t.Errorf("%s: sha256 read %s, read_file %s", name, r.SHA256, f.SHA256)
		}
		if r.Lines != f.TotalLines || r.Overlay != f.Overlay {
			t.Errorf("%s: lines %d/%d, overlay %v/%v", name, r.Lines, f.TotalLines, r.Overlay, f.Overlay)
		}
		if content != "" && r.Tag != f.Tag {
			t.Errorf("%s: tag read %s, read_file %s", name, r.Tag, f.Tag)
		}
	}
	// read_file's record is read's: a hashline edit on the lines it showed
	// goes through.
	writeRootFile(t, env, "ten.txt", strings.Repeat("line\n", 10))
	f := mustRunTool(t, env, "read_file", map[string]any{"path": "ten.txt", "startLine": 8, "endLine": 8}).Details.(*readFileDetails)
	if _, err := runTool(env, "edit", map[string]string{"input": header("ten.txt", f.Tag) + "\nreplace 8..8:\n+eighth"}); err != nil {
		t.Errorf("an edit on read_file's proof: %v", err)
	}

	writeRootFile(t, env, "bin.dat", "a\x00b")
	if err := os.MkdirAll(filepath.Join(env.WS.Root(), "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, kind string }{
		{"missing-file.txt", KindNotFound},
		{"bin.dat", KindBinary},
	} {
		_, rerr := runTool(env, "read", map[string]string{"path": c.path})
		_, ferr := runTool(env, "read_file", map[string]string{"path": c.path})
		if KindOf(rerr) != c.kind || KindOf(ferr) != c.kind {
			t.Errorf("%s: read %v (%s), read_file %v (%s); want %s", c.path, rerr, KindOf(rerr), ferr, KindOf(ferr), c.kind)
		}
		if strings.TrimPrefix(rerr.Error(), "read") != strings.TrimPrefix(ferr.Error(), "read_file") {
			t.Errorf("%s: messages differ: %q, %q", c.path, rerr, ferr)
		}
	}
	// A directory: read lists it; read_file refuses it (its gate).
	if _, err := runTool(env, "read_file", map[string]string{"path": "dir"}); KindOf(err) != KindUsage {
		t.Errorf("read_file of a directory: %v", err)
	}
}
