package workspace

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

func openTestStore(t testing.TB, dir string) *Store {
	t.Helper()
	s, err := OpenStore(dir, "/some/root")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStoreRecordLookup(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	if st, err := os.Stat(filepath.Join(dir, "roots")); err != nil || runtime.GOOS != "windows" && st.Mode().Perm() != 0o700 { // Windows has no mode bits for directories
		t.Fatalf("roots dir: %v %v", st, err)
	}
	if _, ok, err := s.Lookup("/k", "AAAA"); ok || err != nil {
		t.Fatalf("empty lookup: %v %v", ok, err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Record("/k", "AAAA", []byte("one")))
	must(s.Record("/k", "BBBB", []byte("two")))
	must(s.Record("/other", "AAAA", []byte("x")))

	snap, ok, err := s.Lookup("/k", "AAAA")
	if err != nil || !ok || string(snap.Content) != "one" || snap.Head || snap.SHA256 != sha256.Sum256([]byte("one")) || snap.Size != 3 || snap.Key != "/k" || snap.Tag != "AAAA" {
		t.Fatalf("lookup AAAA = %+v %v %v", snap, ok, err)
	}
	snap, ok, err = s.Lookup("/k", "BBBB")
	if err != nil || !ok || string(snap.Content) != "two" || !snap.Head {
		t.Fatalf("lookup BBBB = %+v %v %v", snap, ok, err)
	}
	// Re-recording the head records nothing: same row, same time.
	t0 := snap.Time
	must(s.Record("/k", "BBBB", []byte("two")))
	snap2, _, _ := s.Lookup("/k", "BBBB")
	if !snap2.Time.Equal(t0) || !snap2.Head || snap2.ID != snap.ID {
		t.Fatalf("re-record: %+v -> %+v", snap, snap2)
	}
	if n := countRows(t, s, "/k"); n != 2 {
		t.Fatalf("rows for /k = %d, want 2", n)
	}
	// Going back to an old content makes a new head with the old tag.
	must(s.Record("/k", "AAAA", []byte("one")))
	if snap, _, _ := s.Lookup("/k", "AAAA"); !snap.Head {
		t.Fatalf("AAAA should be head again")
	}
	if h, ok, _ := s.Head("/k"); !ok || h.Tag != "AAAA" {
		t.Fatalf("Head = %+v", h)
	}
	// Empty content is kept as empty, not as "not kept".
	must(s.Record("/empty", "E3B0", nil))
	if snap, ok, _ := s.Lookup("/empty", "E3B0"); !ok || snap.Content == nil || len(snap.Content) != 0 {
		t.Fatalf("empty content = %#v", snap.Content)
	}
}

func countRows(t testing.TB, s *Store, key string) int {
	t.Helper()
	var n int
	if err := s.w.QueryRow(`SELECT count(*) FROM snapshots WHERE key = ?`, key).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestStoreRetention(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	for i := 0; i < 20; i++ {
		if err := s.Record("/k", fmt.Sprintf("T%03d", i), []byte(fmt.Sprint("content ", i))); err != nil {
			t.Fatal(err)
		}
	}
	if n := countRows(t, s, "/k"); n != s.limits.MaxVersions {
		t.Fatalf("rows = %d, want %d", n, s.limits.MaxVersions)
	}
	if _, ok, _ := s.Lookup("/k", "T000"); ok {
		t.Fatal("oldest version still there")
	}
	if snap, ok, _ := s.Lookup("/k", "T019"); !ok || !snap.Head {
		t.Fatal("newest version missing")
	}
	if snap, ok, _ := s.Lookup("/k", "T012"); !ok || string(snap.Content) != "content 12" {
		t.Fatal("8th newest version missing")
	}
}

func TestStoreLargeContent(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	s.limits.MaxContentBytes = 1000
	big := bytes.Repeat([]byte("x"), 1001)
	if err := s.Record("/big", "BIG1", big); err != nil {
		t.Fatal(err)
	}
	snap, ok, err := s.Lookup("/big", "BIG1")
	if err != nil || !ok || snap.Content != nil || snap.Size != 1001 || snap.SHA256 != sha256.Sum256(big) {
		t.Fatalf("big = %+v %v %v", snap, ok, err)
	}
}

func TestStoreTotalContentBudget(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	s.limits.MaxTotalContentBytes = 10_000
	chunk := bytes.Repeat([]byte("y"), 1000)
	for i := 0; i < 30; i++ {
		c := append([]byte(fmt.Sprint(i)), chunk...)
		if err := s.Record(fmt.Sprint("/f", i), "TAG0", c); err != nil {
			t.Fatal(err)
		}
	}
	var total, kept int64
	s.w.QueryRow(`SELECT (SELECT coalesce(sum(length(content)),0) FROM snapshots) + (SELECT coalesce(sum(length(data)),0) FROM contents)`).Scan(&total)
	s.w.QueryRow(`SELECT value FROM meta WHERE name = 'content_bytes'`).Scan(&kept)
	if total > s.limits.MaxTotalContentBytes || total != kept {
		t.Fatalf("total %d, counter %d, budget %d", total, kept, s.limits.MaxTotalContentBytes)
	}
	// The oldest lost its content but keeps its sha; the newest keeps all.
	if snap, ok, _ := s.Lookup("/f0", "TAG0"); !ok || snap.Content != nil || snap.Size != 1001 {
		t.Fatalf("oldest = %+v %v", snap, ok)
	}
	if snap, ok, _ := s.Lookup("/f29", "TAG0"); !ok || snap.Content == nil {
		t.Fatalf("newest = %+v %v", snap, ok)
	}
}

func TestStoreReopen(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir, "/r")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Record("/r/a", "ABCD", []byte("persist")); err != nil {
		t.Fatal(err)
	}
	id, _ := s.Audit(AuditEntry{Tool: "edit", Path: "a", SHA256After: SHA256Hex([]byte("persist")), Note: "n"})
	tid, _ := s.Trash("/r/a", []byte("old"), "replaced")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = OpenStore(dir, "/r")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, ok, err := s.Lookup("/r/a", "ABCD")
	if err != nil || !ok || string(snap.Content) != "persist" {
		t.Fatalf("after reopen: %+v %v %v", snap, ok, err)
	}
	log, err := s.AuditLog(10)
	if err != nil || len(log) != 1 || log[0].ID != id || log[0].Tool != "edit" || log[0].Note != "n" || log[0].SHA256Before != "" || log[0].Time.IsZero() {
		t.Fatalf("audit = %+v %v", log, err)
	}
	e, content, err := s.TrashGet(tid)
	if err != nil || string(content) != "old" || e.Reason != "replaced" || e.Key != "/r/a" || e.Size != 3 {
		t.Fatalf("trash = %+v %q %v", e, content, err)
	}
	if _, _, err := s.TrashGet(tid + 100); !IsKind(err, KindNotFound) {
		t.Fatalf("missing trash: %v", err)
	}
	list, err := s.TrashList("", 0)
	if err != nil || len(list) != 1 {
		t.Fatalf("trash list = %+v %v", list, err)
	}
	if list, _ := s.TrashList("/nope", 0); len(list) != 0 {
		t.Fatalf("trash list for other key = %+v", list)
	}
	if err := s.IntegrityCheck(); err != nil {
		t.Fatal(err)
	}
}

func TestStoreNoop(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	steps := []struct {
		key, sha string
		reset    bool
		want     int
	}{
		{"/a", "p1", false, 1},
		{"/a", "p1", false, 2},
		{"/a", "p1", false, 3},
		{"/b", "p1", false, 1},
		{"/a", "p2", false, 1},
		{"/a", "p2", false, 2},
		{"/a", "", true, 0},
		{"/a", "p2", false, 1},
	}
	for i, st := range steps {
		if st.reset {
			if err := s.ResetNoop(st.key); err != nil {
				t.Fatal(err)
			}
			continue
		}
		n, err := s.BumpNoop(st.key, st.sha)
		if err != nil || n != st.want {
			t.Fatalf("step %d: BumpNoop = %d, %v; want %d", i, n, err, st.want)
		}
	}
}

func TestStoreCorrupt(t *testing.T) {
	dir := t.TempDir()
	path := StorePath(dir, "/r")
	os.MkdirAll(filepath.Dir(path), 0o700)
	garbage := bytes.Repeat([]byte("this is not an sqlite database at all! "), 200)
	if err := os.WriteFile(path, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := OpenStore(dir, "/r")
	if !IsKind(err, KindStore) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "HASHLS_STATE_DIR") {
		t.Fatalf("corrupt store: %v", err)
	}
	// A directory where the database should be.
	os.Remove(path)
	os.MkdirAll(path, 0o700)
	if _, err := OpenStore(dir, "/r"); !IsKind(err, KindStore) {
		t.Fatalf("directory store: %v", err)
	}
	// A state dir that cannot be created.
	f := filepath.Join(dir, "file")
	os.WriteFile(f, nil, 0o600)
	if _, err := OpenStore(f, "/r"); !IsKind(err, KindStore) {
		t.Fatalf("state dir is a file: %v", err)
	}
	// A nil or closed store errors, never panics.
	var nilStore *Store
	if err := nilStore.Record("k", "t", nil); !IsKind(err, KindStore) {
		t.Fatalf("nil store: %v", err)
	}
	s := openTestStore(t, t.TempDir())
	s.Close()
	if err := s.Record("k", "t", nil); !IsKind(err, KindStore) {
		t.Fatalf("closed store: %v", err)
	}
	if _, _, err := s.Lookup("k", "t"); !IsKind(err, KindStore) {
		t.Fatalf("closed store lookup: %v", err)
	}
}

func TestStoreLocked(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	old := busyTimeoutMS
	busyTimeoutMS = 100
	defer func() { busyTimeoutMS = old }()
	// Hold an exclusive lock through a second connection.
	tx, err := s.w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO audit(tool, path, sha_before, sha_after, time, note) VALUES ('x','x','','',0,'')`); err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	s2, err := OpenStore(dir, "/some/root")
	if err == nil {
		err = s2.Record("/k", "TTTT", []byte("x"))
		s2.Close()
	}
	if !IsKind(err, KindStore) || !strings.Contains(err.Error(), "HASHLS_STATE_DIR") {
		t.Fatalf("locked store: %v", err)
	}
}

func TestWorkspaceStore(t *testing.T) {
	root := t.TempDir()
	state := t.TempDir()
	w, err := Open(root, Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Store() == nil || !strings.HasPrefix(w.Store().Path(), filepath.Join(state, "roots")) {
		t.Fatalf("store = %v", w.Store())
	}
	t.Setenv("HASHLS_STATE_DIR", state)
	w2, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if w2.Store().Path() != w.Store().Path() {
		t.Fatalf("env state dir: %s vs %s", w2.Store().Path(), w.Store().Path())
	}
}

func TestStoreNewerSchema(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	if _, err := s.w.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := OpenStore(dir, "/some/root")
	if !IsKind(err, KindStore) || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("newer schema: %v", err)
	}
}

func TestStoreOddStateDir(t *testing.T) {
	odd := "we?ird #dir %41 x"
	if runtime.GOOS == "windows" {
		odd = "we'ird #dir %41 x" // Windows forbids '?' in names
	}
	dir := filepath.Join(t.TempDir(), odd)
	s := openTestStore(t, dir)
	if err := s.Record("/k", "TTTT", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Lookup("/k", "TTTT"); !ok || err != nil {
		t.Fatalf("lookup: %v %v", ok, err)
	}
	if _, err := os.Stat(s.Path()); err != nil {
		t.Fatalf("database not at %s: %v", s.Path(), err)
	}
}

func TestTrashRetention(t *testing.T) {
	s, err := OpenStore(t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.limits.MaxTrashBytes = 100
	ids, list := trashMany(t, s, "k", bytes.Repeat([]byte{'x'}, 40), 5)
	if len(list) != 2 || list[0].ID != ids[4] || list[1].ID != ids[3] {
		t.Fatalf("trash after retention = %+v, want the newest two of %v", list, ids)
	}
	// An entry bigger than the whole budget is still kept (it is the newest).
	id, err := s.Trash("k", bytes.Repeat([]byte{'y'}, 500), "test")
	if err != nil {
		t.Fatal(err)
	}
	if list, _ = s.TrashList("", 0); len(list) != 1 || list[0].ID != id {
		t.Fatalf("trash = %+v", list)
	}
}

// trashMany trashes content n times under key and returns the ids and then
// the whole trash, newest first.
func trashMany(t *testing.T, s *Store, key string, content []byte, n int) ([]int64, []TrashEntry) {
	t.Helper()
	var ids []int64
	for range n {
		id, err := s.Trash(key, content, "test")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	list, err := s.TrashList("", 0)
	if err != nil {
		t.Fatal(err)
	}
	return ids, list
}

func TestLookupMetaAndSnapshotContent(t *testing.T) {
	s, err := OpenStore(t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	content := bytes.Repeat([]byte("some text\n"), 10000)
	if err := s.Record("/k", "AAAA", content); err != nil {
		t.Fatal(err)
	}
	m, ok, err := s.LookupMeta("/k", "AAAA")
	if err != nil || !ok {
		t.Fatalf("LookupMeta: %v %v", ok, err)
	}
	if m.Content != nil || !m.Kept || m.Size != int64(len(content)) || !m.Head || m.SHA256 != sha256.Sum256(content) {
		t.Fatalf("LookupMeta = %+v", m)
	}
	c, kept, err := s.SnapshotContent(m.ID)
	if err != nil || !kept || !bytes.Equal(c, content) {
		t.Fatalf("SnapshotContent: kept %v err %v len %d", kept, err, len(c))
	}
	full, ok, err := s.Lookup("/k", "AAAA")
	if err != nil || !ok || !bytes.Equal(full.Content, content) || full.Time.IsZero() || full.ID != m.ID {
		t.Fatalf("Lookup = %+v %v %v", full.ID, ok, err)
	}
	// Content over the limit: the tag and sha are kept, the content is not.
	s.limits.MaxContentBytes = 10
	if err := s.Record("/big", "BBBB", content); err != nil {
		t.Fatal(err)
	}
	m, ok, err = s.LookupMeta("/big", "BBBB")
	if err != nil || !ok || m.Kept || m.Size != int64(len(content)) {
		t.Fatalf("LookupMeta(big) = %+v %v %v", m, ok, err)
	}
	if c, kept, err := s.SnapshotContent(m.ID); err != nil || kept || c != nil {
		t.Fatalf("SnapshotContent(big) = %d %v %v", len(c), kept, err)
	}
}

// TestTrashPointsAtSnapshots: trashing content the store already holds as a
// snapshot stores no second copy; the snapshot is pinned (kept by
// retention) until the trash entry goes.
func TestTrashPointsAtSnapshots(t *testing.T) {
	s, err := OpenStore(t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v0 := bytes.Repeat([]byte("version zero\n"), 1000)
	if err := s.Record("/k", "AAAA", v0); err != nil {
		t.Fatal(err)
	}
	id, err := s.Trash("/k", v0, "edit")
	if err != nil {
		t.Fatal(err)
	}
	var stored int64
	if err := s.r.QueryRow(`SELECT length(content) FROM trash WHERE id = ?`, id).Scan(&stored); err != nil || stored != 0 {
		t.Fatalf("trash stored %d bytes (err %v), want a reference", stored, err)
	}
	// Many newer versions: per-key retention must keep the pinned one.
	for i := 0; i < s.limits.MaxVersions+3; i++ {
		if err := s.Record("/k", "BBBB", []byte(fmt.Sprintf("version %d\n", i+1))); err != nil {
			t.Fatal(err)
		}
	}
	e, content, err := s.TrashGet(id)
	if err != nil || !bytes.Equal(content, v0) || e.Size != int64(len(v0)) {
		t.Fatalf("TrashGet after retention: %d bytes, %+v, %v", len(content), e, err)
	}
	// Content not held by any snapshot is stored in the trash itself.
	id2, err := s.Trash("/k", []byte("never recorded\n"), "write")
	if err != nil {
		t.Fatal(err)
	}
	if _, c, err := s.TrashGet(id2); err != nil || string(c) != "never recorded\n" {
		t.Fatalf("TrashGet(own copy) = %q, %v", c, err)
	}
	// The trash budget counts pinned content; dropping the entry unpins.
	s.limits.MaxTrashBytes = 100
	if _, err := s.Trash("/other", []byte("x"), "edit"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.TrashGet(id); !IsKind(err, KindNotFound) {
		t.Fatalf("oldest entry survived the budget: %v", err)
	}
	var pinned int
	if err := s.r.QueryRow(`SELECT count(*) FROM snapshots WHERE id NOT IN (SELECT snapshot_id FROM unpinned)`).Scan(&pinned); err != nil || pinned != 0 {
		t.Fatalf("snapshots left pinned: %d, %v", pinned, err)
	}
	checkTrashBookkeeping(t, s)
}

// openOldStore makes a store file with script (an older schema and its
// rows) and opens it, which migrates it.
func openOldStore(t *testing.T, script string) *Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(script)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s, err := openStoreFile(path, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestStoreMigratesV1: a version 1 store (trash without references) opens,
// migrates, and keeps its rows.
func TestStoreMigratesV1(t *testing.T) {
	s := openOldStore(t, schemaV1+`PRAGMA user_version = 1;
		INSERT INTO trash(key, content, size, reason, time) VALUES ('/k', x'6f6c640a', 4, 'edit', 1);`)
	if _, c, err := s.TrashGet(1); err != nil || string(c) != "old\n" {
		t.Fatalf("v1 trash row after migration: %q, %v", c, err)
	}
	var v int
	if err := s.w.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != schemaVersion {
		t.Fatalf("user_version = %d, %v", v, err)
	}
	if _, err := s.Trash("/k", []byte("new\n"), "edit"); err != nil {
		t.Fatal(err)
	}
}

// TestStoreWALBounded: a commit that leaves the write-ahead log longer than
// walFoldPages folds it into the database and truncates it, so the next
// process's first open has little to read (SQLite alone would let it grow
// to 1000 pages and never truncate it).
func TestStoreWALBounded(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	content := bytes.Repeat([]byte("twenty kilobytes of text for the log\n"), 560)
	for i := 0; i < 120; i++ { // about 6 pages each: 720 pages in all
		c := append(fmt.Appendf(nil, "version %d\n", i), content...)
		if err := s.Record(fmt.Sprintf("/k%d", i%3), "AAAA", c); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(s.path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		if pages := fi.Size() / 4096; pages > walFoldPages+16 {
			t.Fatalf("after %d records the log is %d pages; it is folded past %d", i+1, pages, walFoldPages)
		}
	}
}

// checkTrashBookkeeping: the trash's running size is its blobs plus the
// stored content of the snapshots it points at (schemaV8), the unpinned snapshots are
// exactly those no trash entry points at, and pins (kept for schema 5)
// exactly those some entry points at (schemaV6).
func checkTrashBookkeeping(t *testing.T, s *Store) {
	t.Helper()
	var kept, want int64
	if err := s.w.QueryRow(`SELECT value FROM meta WHERE name = 'trash_bytes'`).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	if err := s.w.QueryRow(`SELECT (SELECT coalesce(sum(length(content)), 0) FROM trash) +
		(SELECT coalesce(sum(coalesce(length(s.content), (SELECT length(data) FROM contents WHERE id = s.content_id), 0)), 0)
			FROM snapshots s WHERE id IN (SELECT snapshot_id FROM trash))`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if kept != want {
		t.Fatalf("trash_bytes = %d, the trash holds %d", kept, want)
	}
	var wrong int
	if err := s.w.QueryRow(`SELECT
		(SELECT count(*) FROM unpinned WHERE snapshot_id IN (SELECT snapshot_id FROM trash WHERE snapshot_id IS NOT NULL)) +
		(SELECT count(*) FROM snapshots WHERE id NOT IN (SELECT snapshot_id FROM unpinned) AND id NOT IN (SELECT snapshot_id FROM trash WHERE snapshot_id IS NOT NULL)) +
		(SELECT count(*) FROM unpinned WHERE snapshot_id NOT IN (SELECT id FROM snapshots)) +
		(SELECT count(*) FROM pins WHERE snapshot_id NOT IN (SELECT snapshot_id FROM trash WHERE snapshot_id IS NOT NULL)) +
		(SELECT count(DISTINCT snapshot_id) FROM trash WHERE snapshot_id NOT IN (SELECT snapshot_id FROM pins))`).Scan(&wrong); err != nil {
		t.Fatal(err)
	}
	if wrong != 0 {
		t.Fatalf("%d snapshots are pinned or unpinned wrongly", wrong)
	}
}

// TestTrashRetentionBookkeeping: random records and trash entries of a few
// files under small budgets keep the trash's running size and the
// unpinned set exact, and every trash entry left restores its content
// (retention never drops a snapshot the trash points at).
func TestTrashRetentionBookkeeping(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	s.limits = Limits{MaxContentBytes: 4 << 10, MaxVersions: 3, MaxTotalContentBytes: 24 << 10, MaxTrashBytes: 16 << 10}
	r := rand.New(rand.NewPCG(1, 2))
	contents := map[int64][]byte{} // trash id -> what it must restore
	keys := []string{"/a", "/b", "/c"}
	for i := range 600 {
		key := keys[r.IntN(len(keys))]
		c := bytes.Repeat(fmt.Appendf(nil, "%s version %d\n", key, r.IntN(40)), 1+r.IntN(200))
		switch r.IntN(3) {
		case 0, 1:
			if err := s.Record(key, fmt.Sprintf("%04X", i), c); err != nil {
				t.Fatal(err)
			}
		case 2:
			id, err := s.Trash(key, c, "edit")
			if err != nil {
				t.Fatal(err)
			}
			contents[id] = c
		}
		checkTrashBookkeeping(t, s)
	}
	left := 0
	for id, want := range contents {
		_, got, err := s.TrashGet(id)
		if IsKind(err, KindNotFound) {
			continue // pruned by the budget
		}
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("trash %d restores %d bytes (%v), want %d", id, len(got), err, len(want))
		}
		left++
	}
	if left == 0 || left == len(contents) {
		t.Fatalf("%d of %d trash entries left: the budget was not exercised", left, len(contents))
	}
}

// TestStoreMigratesV5: a version 5 store (a pins table) opens with its
// pinned snapshots pinned, the others unpinned, and the trash's size
// counted (schemaV6).
func TestStoreMigratesV5(t *testing.T) {
	s := openOldStore(t, schemaV1+schemaV2+schemaV3+schemaV4+schemaV5+`PRAGMA user_version = 5;
		INSERT INTO snapshots(id, key, tag, sha256, content, size, time) VALUES (1, '/k', 'AAAA', x'01', x'6f6c640a', 4, 1);
		INSERT INTO snapshots(id, key, tag, sha256, content, size, time) VALUES (2, '/k', 'BBBB', x'02', x'6e6577206e65770a', 8, 2);
		INSERT INTO pins(snapshot_id) VALUES (1);
		INSERT INTO trash(id, key, content, size, reason, time, snapshot_id) VALUES (1, '/k', x'', 4, 'edit', 3, 1);
		INSERT INTO trash(id, key, content, size, reason, time) VALUES (2, '/j', x'6f776e0a', 4, 'write', 4);`)
	checkTrashBookkeeping(t, s)
	var unpinned []int64
	rows, err := s.w.Query(`SELECT snapshot_id FROM unpinned ORDER BY snapshot_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		unpinned = append(unpinned, id)
	}
	rows.Close()
	if !slices.Equal(unpinned, []int64{2}) {
		t.Fatalf("unpinned after migration: %v, want [2]", unpinned)
	}
	var size int64
	if err := s.w.QueryRow(`SELECT value FROM meta WHERE name = 'trash_bytes'`).Scan(&size); err != nil || size != 8 {
		t.Fatalf("trash_bytes = %d (%v), want 8 (4 pinned + 4 own)", size, err)
	}
	if pins, err := queryInts(s.w, `SELECT snapshot_id FROM pins`); err != nil || !slices.Equal(pins, []int64{1}) {
		t.Fatalf("pins after migration: %v, %v, want [1]", pins, err)
	}
	if _, c, err := s.TrashGet(1); err != nil || string(c) != "old\n" {
		t.Fatalf("TrashGet(1) = %q, %v", c, err)
	}
}

// TestSchema5WriterAfterMigration: a hashls of schema 5 still running when
// a newer one migrates the store goes on working, and its writes (the
// statements it runs, which know pins but not unpinned or trash_bytes)
// keep schema 6's bookkeeping exact: the triggers keep it whoever writes.
func TestSchema5WriterAfterMigration(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	v0 := bytes.Repeat([]byte("old version\n"), 100)
	if err := s.Record("/k", "AAAA", v0); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(v0)
	err := s.write(func(tx wtx) error {
		// trashTx of schema 5: pin, then a reference.
		var id int64
		if err := tx.QueryRow(`SELECT id FROM snapshots WHERE key = '/k' AND sha256 = ?`, sum[:]).Scan(&id); err != nil {
			return err
		}
		for _, q := range []string{
			`INSERT OR IGNORE INTO pins(snapshot_id) VALUES (?1)`,
			`INSERT INTO trash(key, content, size, reason, time, snapshot_id) VALUES ('/k', x'', 1200, 'edit', 1, ?1)`,
			`INSERT INTO trash(key, content, size, reason, time) VALUES ('/j', x'6f776e0a', 4, 'write', 2)`,
			// retention of schema 5, which skips pinned snapshots
			`DELETE FROM snapshots WHERE key = '/k' AND id NOT IN (SELECT snapshot_id FROM pins) AND id != ?1`,
		} {
			if _, err := tx.Exec(q, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkTrashBookkeeping(t, s)
	// Its prune: drop the oldest entry, then the pins nothing points at.
	err = s.write(func(tx wtx) error {
		for _, q := range []string{
			`DELETE FROM trash WHERE id = (SELECT min(id) FROM trash)`,
			`DELETE FROM pins WHERE NOT EXISTS (SELECT 1 FROM trash WHERE trash.snapshot_id = pins.snapshot_id)`,
		} {
			if _, err := tx.Exec(q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkTrashBookkeeping(t, s)
	if pins, err := queryInts(s.w, `SELECT snapshot_id FROM pins`); err != nil || len(pins) != 0 {
		t.Fatalf("pins after the prune: %v, %v", pins, err)
	}
}

// TestOneShotStore: a one-shot process's store reads on its writer
// connection (no second connection); reads and writes from several
// goroutines at once serialise on it without deadlock, and a read sees
// what was committed before it.
func TestOneShotStore(t *testing.T) {
	ws, err := Open(t.TempDir(), Options{StateDir: t.TempDir(), OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s := ws.Store()
	if s.r != s.w {
		t.Fatal("a one-shot store opened a reader pool")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				key, tag := fmt.Sprintf("/k%d", g), fmt.Sprintf("T%03d", i)
				c := fmt.Appendf(nil, "goroutine %d version %d\n", g, i)
				if err := s.Record(key, tag, c); err != nil {
					errs <- err
					return
				}
				snap, ok, err := s.Lookup(key, tag)
				if err != nil || !ok || !bytes.Equal(snap.Content, c) {
					errs <- fmt.Errorf("%s %s after recording it: ok %v, %v", key, tag, ok, err)
					return
				}
				if _, err := s.Trash(key, c, "test"); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
