// Archive members and SQLite tables as read and write targets (targets.go).

package agent

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashls/hashls/workspace/archive"
)

func zipBytes(t testing.TB, files map[string]string) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for n, c := range files {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(c))
	}
	zw.Close()
	return b.Bytes()
}

// readMemberAt reads member name of the archive at abs.
func readMemberAt(t testing.TB, abs, name string, maxBytes int64) ([]byte, error) {
	t.Helper()
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return archive.ReadMember(f, name, maxBytes)
}

func tgzBytes(t testing.TB, files map[string]string, gz bool) []byte {
	var b bytes.Buffer
	var zw *gzip.Writer
	var tw *tar.Writer
	if gz {
		zw = gzip.NewWriter(&b)
		tw = tar.NewWriter(zw)
	} else {
		tw = tar.NewWriter(&b)
	}
	for n, c := range files {
		tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(c)), Typeflag: tar.TypeReg})
		tw.Write([]byte(c))
	}
	tw.Close()
	if zw != nil {
		zw.Close()
	}
	return b.Bytes()
}

var archiveFiles = map[string]string{
	"docs/readme.txt": "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\n",
	"docs/empty.txt":  "",
	"bin/tool":        "\x00\x01\x02binary",
	"latin1.txt":      "caf\xe9\n",
	"top.txt":         "top\n",
	"../escape.txt":   "evil\n",
}

func targetEnv(t testing.TB) *Env {
	t.Helper()
	env := newTestEnv(t)
	root := env.WS.Root()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(root, "a.zip"), zipBytes(t, archiveFiles), 0o644))
	must(os.WriteFile(filepath.Join(root, "a.tar"), tgzBytes(t, archiveFiles, false), 0o644))
	must(os.WriteFile(filepath.Join(root, "a.tgz"), tgzBytes(t, archiveFiles, true), 0o644))
	must(os.WriteFile(filepath.Join(root, "bad.zip"), []byte("PK not really a zip file, just text pretending to be one......................"), 0o644))
	must(os.WriteFile(filepath.Join(root, "notes.db"), []byte("plain text\nsecond line\n"), 0o644))
	db, err := sql.Open("sqlite", filepath.Join(root, "data.db"))
	must(err)
	for _, s := range []string{
		`CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT)`,
		`INSERT INTO users(name, email) VALUES ('Ada', 'ada@x'), ('Bob', 'bob@x'), ('Cy', NULL)`,
		`CREATE TABLE kv(k TEXT, v TEXT)`,
	} {
		_, err := db.Exec(s)
		must(err)
	}
	must(db.Close())
	return env
}

func TestReadTargets(t *testing.T) {
	env := targetEnv(t)
	cases := []struct {
		path string
		want []string
		not  []string
	}{
		{"a.zip", []string{"a.zip:\n", "  bin/\n", "  docs/\n", "  latin1.txt (5B)\n", "  top.txt (4B)\n", "1 entry with unsafe names"}, []string{"escape"}},
		{"a.tgz:docs", []string{"a.tgz:docs/\n", "  empty.txt\n", "  readme.txt (71B)\n"}, nil},
		{"a.tar:docs/", []string{"readme.txt (71B)"}, nil},
		{"a.zip:docs/readme.txt", []string{"1:line 1\n", "10:line 10\n"}, []string{"¶"}},
		{"a.tar:docs/readme.txt:5-6", []string{"4:line 4\n5:line 5\n6:line 6\n7:line 7\n8:line 8\n9:line 9\n"}, []string{"3:line 3", "10:line"}},
		{"a.tgz:./docs//readme.txt:2+1:raw", []string{"line 1\nline 2\n"}, []string{"1:"}},
		{"a.zip:docs/readme.txt:20", []string{"Line 20 is past the end of a.zip:docs/readme.txt"}, nil},
		{"a.zip:docs/empty.txt", []string{"(empty archive member a.zip:docs/empty.txt)"}, nil},
		{"a.zip:bin/tool", []string{"[Cannot read binary archive entry 'a.zip:bin/tool'"}, nil},
		{"a.tgz:latin1.txt", []string{"[Cannot read binary archive entry"}, nil},
		{"data.db", []string{"data.db: 2 tables", "| users | 3    |"}, nil},
		{"data.db:users", []string{"CREATE TABLE users", "3 rows; sample of 3", "| 1  | Ada  | ada@x |"}, nil},
		{"data.db:users:2", []string{"users row id = 2", "name:  Bob"}, nil},
		{"data.db:users?limit=1&offset=1&order=name:desc", []string{"users: rows 2-2 of 3", "Bob", "[More rows: use data.db:users?limit=1&offset=2&order=name:desc]"}, nil},
		{"data.db:users?where=email IS NULL", []string{"rows 1-1 of 1", "| 3  | Cy   | NULL  |"}, nil},
		{"data.db?q=SELECT name FROM users ORDER BY id DESC LIMIT 1", []string{"1 row", "| Cy   |"}, nil},
		// A non-SQLite .db is a plain file, selectors included.
		{"notes.db", []string{"¶notes.db#", "1:plain text"}, nil},
		{"notes.db:2", []string{"2:second line"}, nil},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			res, err := runTool(env, "read", map[string]string{"path": c.path})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("missing %q in:\n%s", w, res.Text)
				}
			}
			for _, n := range c.not {
				if strings.Contains(res.Text, n) {
					t.Errorf("unexpected %q in:\n%s", n, res.Text)
				}
			}
		})
	}
}

func TestReadTargetErrors(t *testing.T) {
	env := targetEnv(t)
	cases := []struct{ path, kind, want string }{
		{"a.zip:nope.txt", KindNotFound, `a.zip has no entry "nope.txt". Entries in a.zip: bin/, docs/`},
		{"a.zip:docs/nope.txt", KindNotFound, "Entries in a.zip:docs: empty.txt, readme.txt"},
		{"a.zip:../escape.txt", KindUsage, "cannot contain '..'"},
		{"a.zip:/etc/passwd", KindUsage, "absolute"},
		{"a.zip:docs:5", KindUsage, "line selectors apply to files"},
		{"missing.zip:x", KindNotFound, "Archive missing.zip not found"},
		{"../outside.zip:x", KindOutside, "outside"},
		{"bad.zip", KindIO, "Check that it is a valid zip archive"},
		{"data.db:nope", KindNotFound, `no table "nope" (tables: kv, users)`},
		{"data.db:users:99", KindNotFound, "no row with id = 99"},
		{"data.db:users?bogus=1", KindUsage, "unknown SQLite query parameter"},
		{"data.db:users?q=SELECT 1", KindUsage, "cannot be combined with a table"},
		{"data.db?q=SELECT 1&limit=2", KindUsage, "cannot be combined"},
		{"data.db?q=", KindUsage, "empty"},
		{"data.db?q=DROP TABLE users", KindUsage, "read-only"},
		{"data.db:users?where=1; DROP TABLE users", KindUsage, "';'"},
		{"data.db:users?where=1 UNION SELECT 1", KindUsage, "UNION"},
		{"data.db:users?order=nope", KindUsage, "no such column"},
		{"notes.db:users", KindUsage, "notes.db is not a SQLite database"},
		{"missing.db:users", KindNotFound, "SQLite database 'missing.db' not found"},
		{"../x.db:users", KindOutside, "outside"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			_, err := runTool(env, "read", map[string]string{"path": c.path})
			var ae *Error
			if !errors.As(err, &ae) || ae.Kind != c.kind || !strings.Contains(ae.Message, c.want) {
				t.Fatalf("err %#v, want %s %q", err, c.kind, c.want)
			}
		})
	}
}

func TestReadArchiveListCap(t *testing.T) {
	env := newTestEnv(t)
	files := map[string]string{}
	for i := 0; i < 600; i++ {
		files["f"+strings.Repeat("0", 4-len(itoa(i)))+itoa(i)+".txt"] = "x"
	}
	os.WriteFile(filepath.Join(env.WS.Root(), "many.zip"), zipBytes(t, files), 0o644)
	res, err := runTool(env, "read", map[string]string{"path": "many.zip"})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(res.Text, ".txt"); n != archiveListLimit {
		t.Errorf("listed %d entries, want %d", n, archiveListLimit)
	}
	d := res.Details.(*targetDetails)
	if d.Limits == nil || d.Limits.Total != 600 || !strings.Contains(res.Text, "Showing 500 of 600 entries") {
		t.Errorf("no limit note: %+v", d.Limits)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}

func TestWriteArchiveMember(t *testing.T) {
	env := targetEnv(t)
	root := env.WS.Root()
	for _, name := range []string{"a.zip", "a.tar", "a.tgz"} {
		t.Run(name, func(t *testing.T) {
			before, _ := os.ReadFile(filepath.Join(root, name))
			res, err := runTool(env, "write", map[string]any{"path": name + ":docs/readme.txt", "content": "new text\n"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != "Successfully wrote 9 bytes to "+name+":docs/readme.txt" {
				t.Errorf("text %q", res.Text)
			}
			d := res.Details.(*targetWriteDetails)
			if d.Op != "update" || d.TrashID == 0 || d.AuditID == 0 {
				t.Errorf("details %+v", d)
			}
			_, trashed, err := env.WS.Store().TrashGet(d.TrashID)
			if err != nil || !bytes.Equal(trashed, before) {
				t.Errorf("trash does not hold the old archive: %v", err)
			}
			got, err := readMemberAt(t, filepath.Join(root, name), "docs/readme.txt", 1<<20)
			if err != nil || string(got) != "new text\n" {
				t.Errorf("member: %q %v", got, err)
			}
			if other, _ := readMemberAt(t, filepath.Join(root, name), "top.txt", 1<<20); string(other) != "top\n" {
				t.Errorf("other member changed: %q", other)
			}
			// read reports the archive sha256, which write accepts as expectedSha256.
			rd, err := runTool(env, "read", map[string]string{"path": name + ":top.txt"})
			if err != nil {
				t.Fatal(err)
			}
			sum := rd.Details.(*targetDetails).SHA256
			if _, err := runTool(env, "write", map[string]any{"path": name + ":top.txt", "content": "TOP\n", "expectedSha256": sum}); err != nil {
				t.Fatalf("write with the current sha256: %v", err)
			}
			var ae *Error
			if _, err := runTool(env, "write", map[string]any{"path": name + ":top.txt", "content": "again\n", "expectedSha256": sum}); !errors.As(err, &ae) || ae.Kind != KindStale {
				t.Fatalf("stale write: %v", err)
			}
			if _, err := runTool(env, "write", map[string]any{"path": name + ":top.txt", "content": "again\n", "expectedSha256": ""}); !errors.As(err, &ae) || ae.Kind != KindStale {
				t.Fatalf("\"\" over an existing archive: %v", err)
			}
		})
	}
	// A new archive (and its directory) is created.
	res, err := runTool(env, "write", map[string]any{"path": "out/new.tar.gz:x/y.txt", "content": "1:hello\n", "expectedSha256": ""})
	if err != nil {
		t.Fatal(err)
	}
	// Content without read's header is written as given.
	if d := res.Details.(*targetWriteDetails); d.Op != "create" || d.StrippedPrefixes {
		t.Errorf("create details %+v", d)
	}
	if got, err := readMemberAt(t, filepath.Join(root, "out/new.tar.gz"), "x/y.txt", 1<<20); err != nil || string(got) != "1:hello\n" {
		t.Errorf("new archive member: %q %v", got, err)
	}
	log, _ := env.WS.Store().AuditLog(10)
	found := false
	for _, e := range log {
		if e.Path == "out/new.tar.gz" && e.Note == "archive member x/y.txt" && e.SHA256Before == "" && e.SHA256After != "" {
			found = true
		}
	}
	if !found {
		t.Errorf("no audit row for the new archive: %+v", log)
	}
}

func TestWriteArchiveErrors(t *testing.T) {
	env := targetEnv(t)
	before, _ := os.ReadFile(filepath.Join(env.WS.Root(), "a.zip"))
	cases := []struct{ path, kind, want string }{
		{"a.zip", KindUsage, "must target a file inside the archive"},
		{"a.zip:", KindUsage, "must target a file inside the archive"},
		{"a.zip:docs/", KindUsage, "not a directory"},
		{"a.zip:docs", KindUsage, "is a directory in the archive"},
		{"a.zip:../x.txt", KindUsage, "cannot contain '..'"},
		{"a.zip:/x.txt", KindUsage, "absolute"},
		{"../o.zip:x.txt", KindOutside, "outside"},
		{"bad.zip:x.txt", KindIO, "The archive was not changed"},
		{"new.zip:x.txt", "", ""}, // sanity: a fresh archive works
	}
	for _, c := range cases {
		_, err := runTool(env, "write", map[string]any{"path": c.path, "content": "x"})
		if c.kind == "" {
			if err != nil {
				t.Errorf("%s: %v", c.path, err)
			}
			continue
		}
		var ae *Error
		if !errors.As(err, &ae) || ae.Kind != c.kind || !strings.Contains(ae.Message, c.want) {
			t.Errorf("%s: err %v, want %s %q", c.path, err, c.kind, c.want)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(env.WS.Root(), "a.zip")); !bytes.Equal(before, after) {
		t.Error("a failed write changed a.zip")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(env.WS.Root()), "o.zip")); err == nil {
		t.Error("wrote outside the root")
	}
}

func TestWriteSQLite(t *testing.T) {
	env := targetEnv(t)
	res, err := runTool(env, "write", map[string]any{"path": "data.db:users", "content": "{name: 'Dee', email: 'dee@x',}"})
	if err != nil || res.Text != "Inserted row into users (id = 4)" {
		t.Fatalf("insert: %v %v", res, err)
	}
	if d := res.Details.(*targetWriteDetails); d.AuditID == 0 || d.TrashID != 0 || d.SourcePath != "data.db" || d.Path != "data.db:users:4" {
		t.Errorf("insert details %+v", d)
	}
	res, err = runTool(env, "write", map[string]any{"path": "data.db:users:1", "content": `{"email": "ada@new"}`})
	if err != nil || res.Text != "Updated row '1' in users" {
		t.Fatalf("update: %v %v", res, err)
	}
	d := res.Details.(*targetWriteDetails)
	_, old, err := env.WS.Store().TrashGet(d.TrashID)
	if err != nil || string(old) != `{"id":1,"name":"Ada","email":"ada@x"}` {
		t.Errorf("trash holds %q %v", old, err)
	}
	res, err = runTool(env, "write", map[string]any{"path": "data.db:users:2", "content": " "})
	if err != nil || !strings.HasPrefix(res.Text, "Deleted row '2' from users") {
		t.Fatalf("delete: %v %v", res, err)
	}
	_, err = runTool(env, "write", map[string]any{"path": "data.db:users:2", "content": ""})
	if ae, ok := err.(*Error); !ok || ae.Kind != KindNotFound || !strings.HasPrefix(ae.Message, "no row deleted") {
		t.Fatalf("delete again: %v", err)
	}
	rd, err := runTool(env, "read", map[string]string{"path": "data.db?q=SELECT id, email FROM users ORDER BY id"})
	if err != nil || !strings.Contains(rd.Text, "| 1  | ada@new |") || strings.Contains(rd.Text, "bob@x") || !strings.Contains(rd.Text, "dee@x") {
		t.Errorf("after writes:\n%s %v", rd.Text, err)
	}
	cases := []struct {
		path, content string
		sha           *string
		kind, want    string
	}{
		{"data.db:users:1", "{email: 'x'}", ptr("abc"), KindUsage, "expectedSha256 does not apply to SQLite"},
		{"data.db", "{}", nil, KindUsage, "must target a table"},
		{"data.db:users?limit=1", "{}", nil, KindUsage, "do not support query parameters"},
		{"data.db:users:", "{}", nil, KindUsage, "non-empty row key"},
		{"data.db:nope", "{}", nil, KindNotFound, `no table "nope"`},
		{"data.db:users", "{bogus: 1}", nil, KindUsage, `no column "bogus"`},
		{"data.db:users", "{name: 'x'", nil, KindUsage, "invalid JSON5"},
		{"data.db:users", "[]", nil, KindUsage, "JSON5 object"},
		{"data.db:users:1", "{}", nil, KindUsage, "update object is empty"},
		{"data.db:users", "{email: 'no name'}", nil, KindUsage, "NOT NULL"},
		{"missing.db:users", "{}", nil, KindNotFound, "SQLite database 'missing.db' not found"},
		{"notes.db:users", "{}", nil, KindUsage, "notes.db is not a SQLite database"},
	}
	for _, c := range cases {
		args := map[string]any{"path": c.path, "content": c.content}
		if c.sha != nil {
			args["expectedSha256"] = *c.sha
		}
		_, err := runTool(env, "write", args)
		var ae *Error
		if !errors.As(err, &ae) || ae.Kind != c.kind || !strings.Contains(ae.Message, c.want) {
			t.Errorf("%s %q: err %v, want %s %q", c.path, c.content, err, c.kind, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(env.WS.Root(), "missing.db")); err == nil {
		t.Error("a database was created")
	}
	// A plain .db path without a selector is a plain file write.
	if _, err := runTool(env, "write", map[string]any{"path": "fresh.db", "content": "text\n"}); err != nil {
		t.Errorf("plain .db write: %v", err)
	}
	if _, err := runTool(env, "write", map[string]any{"path": "notes.db", "content": "new notes\n"}); err != nil {
		t.Errorf("plain non-SQLite .db overwrite: %v", err)
	}
}

func ptr(s string) *string { return &s }

// restore puts a deleted SQLite row back through CommitRow (re-inserted
// with its key and every column); a restore over a row that is there sets
// it to the kept values and trashes what it replaced; restore_file and a
// restore to another path refuse a row; an update of no row is an error.
func TestRestoreSQLiteRow(t *testing.T) {
	env := targetEnv(t)
	run := func(name string, args any) (*Result, error) {
		b, _ := json.Marshal(args)
		return runEnv(env, name, b)
	}
	res, err := run("write", map[string]any{"path": "data.db:users:2", "content": ""})
	if err != nil {
		t.Fatal(err)
	}
	delTrash := res.Details.(*targetWriteDetails).TrashID
	if _, err := run("read", map[string]any{"path": "data.db:users:2"}); err == nil {
		t.Fatal("row 2 not deleted")
	}
	res, err = run("restore", map[string]any{"id": delTrash})
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
	if !strings.Contains(res.Text, "Re-inserted row '2' into users from trash #") || res.Changes[0].Op != "create" || res.Changes[0].Path != "data.db:users:2" {
		t.Fatalf("restore: %s %+v", res.Text, res.Changes)
	}
	got, err := run("read", map[string]any{"path": "data.db:users:2"})
	if err != nil || !strings.Contains(got.Text, "name:  Bob") || !strings.Contains(got.Text, "email: bob@x") {
		t.Fatalf("after restore: %v\n%v", err, got)
	}
	// Over a row that is there: set back, and the replaced row trashed.
	if _, err := run("write", map[string]any{"path": "data.db:users:2", "content": "{name: 'Robert'}"}); err != nil {
		t.Fatal(err)
	}
	res, err = run("restore", map[string]any{"id": delTrash})
	if err != nil || res.Changes[0].Op != "update" || len(res.Changes[0].TrashIDs) != 1 {
		t.Fatalf("restore over a row: %v %+v", err, res)
	}
	if got, _ := run("read", map[string]any{"path": "data.db:users:2"}); !strings.Contains(got.Text, "name:  Bob") {
		t.Fatalf("after restore over: %s", got.Text)
	}
	// A row is not a file.
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"restore", map[string]any{"id": delTrash, "path": "x.txt"}},
		{"restore_file", map[string]any{"id": delTrash}},
	} {
		_, err := run(c.tool, c.args)
		if ae := AsError(err); err == nil || ae.Kind != KindUsage || !strings.Contains(ae.Message, "holds a SQLite row") {
			t.Errorf("%s: %v", c.tool, err)
		}
	}
	if _, err := os.Stat(filepath.Join(env.WS.Root(), "x.txt")); err == nil {
		t.Error("a stray file was written")
	}
	// An update of no row is an error, not a success.
	_, err = run("write", map[string]any{"path": "data.db:users:99", "content": "{name: 'Z'}"})
	if ae := AsError(err); err == nil || ae.Kind != KindNotFound || !strings.Contains(ae.Message, "no row updated") {
		t.Errorf("update of no row: %v", err)
	}
}
