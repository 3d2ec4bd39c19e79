package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// checkContentBookkeeping: every content's content_refs count the snapshots that
// name it and the deltas made against it, meta content_bytes is the
// stored size of every kept content, every snapshot names a content that
// exists, and (garbage false) no content is left that nothing names.
func checkContentBookkeeping(t *testing.T, s *Store, garbage bool) {
	t.Helper()
	var wrong, dangling, unused int
	if err := s.w.QueryRow(`SELECT count(*) FROM contents c WHERE (SELECT refs FROM content_refs WHERE content_id = c.id) IS NOT
		(SELECT count(*) FROM snapshots WHERE content_id = c.id) + (SELECT count(*) FROM contents WHERE base = c.id)`).Scan(&wrong); err != nil {
		t.Fatal(err)
	}
	var orphan int
	if err := s.w.QueryRow(`SELECT count(*) FROM content_refs WHERE content_id NOT IN (SELECT id FROM contents)`).Scan(&orphan); err != nil || orphan != 0 {
		t.Fatalf("%d counts of contents that are gone (%v)", orphan, err)
	}
	if err := s.w.QueryRow(`SELECT count(*) FROM snapshots WHERE content_id IS NOT NULL AND content_id NOT IN (SELECT id FROM contents)`).Scan(&dangling); err != nil {
		t.Fatal(err)
	}
	if err := s.w.QueryRow(`SELECT count(*) FROM content_refs WHERE refs <= 0`).Scan(&unused); err != nil {
		t.Fatal(err)
	}
	if wrong != 0 || dangling != 0 || (!garbage && unused != 0) {
		t.Fatalf("contents: %d with wrong refs, %d snapshots naming a missing one, %d unused", wrong, dangling, unused)
	}
	var kept, want int64
	if err := s.w.QueryRow(`SELECT value FROM meta WHERE name = 'content_bytes'`).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	if err := s.w.QueryRow(`SELECT (SELECT coalesce(sum(length(data)), 0) FROM contents) +
		(SELECT coalesce(sum(length(content)), 0) FROM snapshots)`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if kept != want {
		t.Fatalf("content_bytes = %d, the store holds %d", kept, want)
	}
	checkTrashBookkeeping(t, s)
}

// checkAllContents: every kept content rebuilds to its sha256.
func checkAllContents(t *testing.T, s *Store) ContentCheck {
	t.Helper()
	c, err := s.VerifyContents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Damaged) > 0 {
		t.Fatalf("%d of %d contents do not rebuild: %s", len(c.Damaged), c.Contents, strings.Join(c.Damaged, "; "))
	}
	return c
}

// storeBytes is the size of the store's files (database and log).
func storeBytes(t *testing.T, s *Store) int64 {
	t.Helper()
	var n int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(s.path + suffix); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// TestHistoryAsDeltas is the figure as a test: new-content edits
// of a 480 KB file (50 one-line changes each), one after the other through
// Commit, grow the store by about a kilobyte an edit and a whole copy
// every maxDeltaDepth+1 versions (300 edits: under 8 MB, against 132 MB
// when every version was kept whole), and every version rebuilds byte for
// byte.
func TestHistoryAsDeltas(t *testing.T) {
	edits := 300
	if testing.Short() {
		edits = 60
	}
	ws := openWS(t)
	p, err := ws.Resolve("big.txt")
	if err != nil {
		t.Fatal(err)
	}
	text := benchFile()
	if err := os.WriteFile(p.Abs, text, 0o644); err != nil {
		t.Fatal(err)
	}
	st := ws.Store()
	if err := st.Record(p.Abs, "T000", text); err != nil { // the read
		t.Fatal(err)
	}
	before := storeBytes(t, st)
	sums := []([32]byte){sha256.Sum256(text)}
	for i := 1; i <= edits; i++ {
		next := edit50(text, i)
		_, err := ws.Commit(context.Background(), "edit", []Change{{Path: p, Base: BaseOf(text), New: next, NewTag: fmt.Sprintf("T%03d", i)}}, CommitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		text = next
		sums = append(sums, sha256.Sum256(text))
	}
	grown := storeBytes(t, st) - before
	t.Logf("%d edits of a %d-byte file grew the store by %d bytes", edits, len(text), grown)
	if limit := int64(edits) * 8 << 20 / 300; grown > limit {
		t.Fatalf("%d edits grew the store by %d bytes, want at most %d", edits, grown, limit)
	}
	for i, sum := range sums {
		snap, ok, err := st.Lookup(p.Abs, fmt.Sprintf("T%03d", i))
		if err != nil || !ok || !snap.Kept {
			t.Fatalf("version %d: ok %v kept %v err %v", i, ok, snap.Kept, err)
		}
		if sha256.Sum256(snap.Content) != sum {
			t.Fatalf("version %d does not rebuild byte for byte", i)
		}
	}
	c := checkAllContents(t, st)
	wantWhole := int64((edits + maxDeltaDepth + 1) / (maxDeltaDepth + 1))
	if c.Contents != int64(edits+1) || c.Contents-c.Deltas != wantWhole {
		t.Fatalf("%d contents, %d whole: want %d and %d", c.Contents, c.Contents-c.Deltas, edits+1, wantWhole)
	}
	checkContentBookkeeping(t, st, false)
}

// openWS opens a workspace on a new root with its own state directory.
func openWS(t *testing.T) *Workspace {
	t.Helper()
	ws, err := Open(t.TempDir(), Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// TestContentRetentionBookkeeping: random versions of a few files, each
// made from a random earlier one (branches, returns to an old content,
// the same content in two files), trash entries and small budgets keep
// refs and the byte counts exact and leave no unused content, and every
// content still named rebuilds: retention never drops a base a kept
// delta needs.
func TestContentRetentionBookkeeping(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	s.limits = Limits{MaxContentBytes: 64 << 10, MaxVersions: 3, MaxTotalContentBytes: 96 << 10, MaxTrashBytes: 48 << 10, MaxTrashEntries: 40}
	r := rand.New(rand.NewPCG(5, 6))
	keys := []string{"/a", "/b", "/c"}
	made := map[string][][]byte{}
	trashed := map[int64][]byte{}
	deltas := 0
	for i := range 500 {
		key := keys[r.IntN(len(keys))]
		var from []byte
		if vs := made[key]; len(vs) > 0 && r.IntN(5) > 0 {
			from = vs[max(0, len(vs)-1-r.IntN(4))] // mostly one the store still keeps
		}
		var c []byte
		switch {
		case from == nil:
			c = bytes.Repeat(fmt.Appendf(nil, "%s line %d\n", key, r.IntN(1000)), 50+r.IntN(400))
		case r.IntN(10) == 0 && len(made[key]) > 1:
			c = made[key][0] // back to an old content
		default:
			c = bytes.Clone(from)
			for range 1 + r.IntN(4) {
				at := r.IntN(len(c))
				c = append(c[:at], append(fmt.Appendf(nil, "edit %d\n", i), c[at:]...)...)
			}
		}
		switch r.IntN(4) {
		case 0, 1, 2:
			rec := Recording{Key: key, Tag: fmt.Sprintf("%04X", i), Content: c}
			if from != nil {
				sum := sha256.Sum256(from)
				rec.From, rec.FromSHA256 = from, &sum
			}
			if err := s.RecordAll([]Recording{rec}); err != nil {
				t.Fatal(err)
			}
			made[key] = append(made[key], c)
		case 3:
			id, err := s.Trash(key, c, "edit")
			if err != nil {
				t.Fatal(err)
			}
			trashed[id] = c
		}
		checkContentBookkeeping(t, s, false)
		var n int
		s.w.QueryRow(`SELECT count(*) FROM contents WHERE base IS NOT NULL`).Scan(&n)
		deltas = max(deltas, n)
	}
	checkAllContents(t, s)
	for id, want := range trashed {
		if _, got, err := s.TrashGet(id); err == nil && !bytes.Equal(got, want) || err != nil && !IsKind(err, KindNotFound) {
			t.Fatalf("trash %d: %d bytes, %v", id, len(got), err)
		}
	}
	if deltas < 5 {
		t.Fatalf("at most %d contents were kept as deltas at once: the test did not exercise chains", deltas)
	}
}

// TestTrashEntriesCapped: entries that point at a snapshot the trash pins
// already add no bytes, and are bounded by MaxTrashEntries, the oldest
// going first.
func TestTrashEntriesCapped(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	s.limits.MaxTrashEntries = 10
	v0 := []byte("version zero\n")
	if err := s.Record("/k", "AAAA", v0); err != nil {
		t.Fatal(err)
	}
	ids, list := trashMany(t, s, "/k", v0, 25)
	if len(list) != 10 || list[0].ID != ids[24] || list[9].ID != ids[15] {
		t.Fatalf("trash after the cap: %d entries, newest %d; want the newest 10 of %v", len(list), list[0].ID, ids)
	}
	checkContentBookkeeping(t, s, false)
}

// schemaV6Script makes a store as schema 6 left it: its own scripts, and
// rows as a hashls of schema 6 wrote them (every version whole in its
// snapshot row).
const schemaV6Script = schemaV1 + schemaV2 + schemaV3 + schemaV4 + schemaV5 + schemaV6 + `PRAGMA user_version = 6;`

// schemaV7Script makes a store as schema 7 left it (the intents table
// made anew: ids never reused, an owner per intent); a hashls of schema 7
// writes the same snapshot and trash rows as one of schema 6.
const schemaV7Script = schemaV1 + schemaV2 + schemaV3 + schemaV4 + schemaV5 + schemaV6 + schemaV7 + `PRAGMA user_version = 7;`

// v6Version is the i-th version of the file of the migration tests.
func v6Version(i int) []byte {
	var b strings.Builder
	for l := range 2000 {
		if l%100 == 7 {
			fmt.Fprintf(&b, "line %d, version %d\n", l, i)
		} else {
			fmt.Fprintf(&b, "line %d of the file the migration moves\n", l)
		}
	}
	return []byte(b.String())
}

// writeV6Store writes a schema 6 store at path: versions of /k (each
// trashed by the next, as edits leave them), one of /j whose row's
// sha256 is not its content's, and a trash entry holding its own copy.
func writeV6Store(t testing.TB, path string, versions int) {
	t.Helper()
	writeOldStore(t, path, schemaV6Script, versions)
}

// writeOldStore writes the rows writeV6Store describes into a store made
// by script (a schema before deltas, and any rows of its own).
func writeOldStore(t testing.TB, path, script string, versions int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(script); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	exec := func(q string, args ...any) {
		if _, err := tx.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	for i := range versions {
		c := v6Version(i)
		sum := sha256.Sum256(c)
		exec(`INSERT INTO snapshots(id, key, tag, sha256, content, size, time) VALUES (?, '/k', ?, ?, ?, ?, ?)`, i+1, fmt.Sprintf("K%03d", i), sum[:], c, len(c), i)
		exec(`UPDATE meta SET value = value + ? WHERE name = 'content_bytes'`, len(c))
		if i > 0 {
			exec(`INSERT INTO trash(key, content, size, reason, time, snapshot_id) VALUES ('/k', x'', ?, 'edit', ?, ?)`, len(c), i, i)
		}
	}
	exec(`INSERT INTO snapshots(key, tag, sha256, content, size, time) VALUES ('/j', 'JJJJ', x'0102', x'6a0a', 2, 1)`)
	exec(`UPDATE meta SET value = value + 2 WHERE name = 'content_bytes'`)
	exec(`INSERT INTO trash(key, content, size, reason, time) VALUES ('/w', x'6f776e0a', 4, 'write', 1)`)
	exec(`INSERT INTO audit(tool, path, sha_before, sha_after, time, note, transport, call) VALUES ('edit', 'k', 'x', 'y', 1, '', 'cli', 'c0')`)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestStoreMigratesV6: a store made by schema 6 opens (through schema 7's
// step, then schema 8's, 9's and 10's) with every version still kept and byte-exact, the
// versions of a file kept as deltas against the one before (a whole copy
// every maxDeltaDepth+1), the trash restoring what it pointed at, and the
// bookkeeping counted again; a row whose sha256 is not its content's
// keeps its content in its row.
func TestStoreMigratesV6(t *testing.T) {
	const versions = 60
	path := filepath.Join(t.TempDir(), "v6.db")
	writeV6Store(t, path, versions)
	s, err := openStoreFile(path, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkMigrated(t, s, versions)
	// Schema 7's step ran too: the intents table has its owner column
	// and ids that are never reused.
	in := &intent{Tool: "t"}
	if err := s.beginIntent(in, nil, false); err != nil {
		t.Fatal(err)
	}
	if ins, err := s.pendingIntents(); err != nil || len(ins) != 1 || ins[0].Owner != selfOwner() {
		t.Fatalf("an intent after the migration: %+v, %v", ins, err)
	}
	var seq int64
	if err := s.w.QueryRow(`SELECT seq FROM sqlite_sequence WHERE name = 'intents'`).Scan(&seq); err != nil || seq != in.ID {
		t.Fatalf("intent ids after the migration: sequence %d (%v), want %d (AUTOINCREMENT)", seq, err, in.ID)
	}
}

// TestStoreMigratesV7: a store made by schema 7 (intents with owners) with
// a pending intent opens with the versions moved as TestStoreMigratesV6's
// are, the intent kept with its owner, and intent ids still never reused.
func TestStoreMigratesV7(t *testing.T) {
	const versions = 60
	path := filepath.Join(t.TempDir(), "v7.db")
	writeOldStore(t, path, schemaV7Script+`
		INSERT INTO intents(id, tool, pid, time, body, owner) VALUES (9, 'write', 4242, 1, '{"tool":"write","entries":[]}', '4242@77');`, versions)
	s, err := openStoreFile(path, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	if err := s.w.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != schemaVersion {
		t.Fatalf("user_version = %d, %v; want %d", v, err, schemaVersion)
	}
	checkMigrated(t, s, versions)
	ins, err := s.pendingIntents()
	if err != nil || len(ins) != 1 || ins[0].ID != 9 || ins[0].Owner != "4242@77" || ins[0].PID != 4242 || ins[0].Tool != "write" {
		t.Fatalf("intents after the migration: %+v, %v", ins, err)
	}
	if err := s.closeIntent(9, nil); err != nil {
		t.Fatal(err)
	}
	in := &intent{Tool: "t"}
	if err := s.beginIntent(in, nil, false); err != nil {
		t.Fatal(err)
	}
	if in.ID != 10 {
		t.Fatalf("new intent id %d after deleting 9, want 10 (ids are never reused)", in.ID)
	}
}

// checkMigrated checks a store writeOldStore made with versions versions,
// once migrated: what TestStoreMigratesV6 says.
func checkMigrated(t *testing.T, s *Store, versions int) {
	t.Helper()
	for i := range versions {
		snap, ok, err := s.Lookup("/k", fmt.Sprintf("K%03d", i))
		if err != nil || !ok || !bytes.Equal(snap.Content, v6Version(i)) {
			t.Fatalf("version %d after migration: ok %v err %v, %d bytes", i, ok, err, len(snap.Content))
		}
	}
	c := checkAllContents(t, s)
	if c.Contents != int64(versions) || c.Contents-c.Deltas != 2 || c.Bytes > 2*int64(len(v6Version(0)))+int64(versions)*200 {
		t.Fatalf("after migration: %+v", c)
	}
	var inline int
	s.w.QueryRow(`SELECT count(*) FROM snapshots WHERE content IS NOT NULL`).Scan(&inline)
	if inline != 1 {
		t.Fatalf("%d snapshots keep their content in the row, want 1 (/j)", inline)
	}
	if snap, ok, err := s.Lookup("/j", "JJJJ"); err != nil || !ok || string(snap.Content) != "j\n" {
		t.Fatalf("/j after migration: %q %v %v", snap.Content, ok, err)
	}
	for id := int64(1); id < int64(versions); id++ {
		if _, got, err := s.TrashGet(id); err != nil || !bytes.Equal(got, v6Version(int(id-1))) {
			t.Fatalf("trash %d after migration: %d bytes, %v", id, len(got), err)
		}
	}
	checkContentBookkeeping(t, s, false)
	// Schema 9's step ran too: the old audit row has no attribution, a new
	// one records agent, session and turn.
	if old, err := s.AuditRows(AuditQuery{ID: 1}); err != nil || len(old) != 1 || old[0].Call != "c0" || old[0].Agent != "" || old[0].Session != "" || old[0].Turn != "" {
		t.Fatalf("the old audit row after migration: %+v, %v", old, err)
	}
	id, err := s.Audit(AuditEntry{Tool: "edit", Path: "k", Transport: "mcp", Agent: "claude-code", Session: "s1", Turn: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if rows, err := s.AuditByTurn("t1"); err != nil || len(rows) != 1 || rows[0].ID != id || rows[0].Agent != "claude-code" || rows[0].Session != "s1" {
		t.Fatalf("an attributed audit row after migration: %+v, %v", rows, err)
	}
	// The migrated store goes on: a new version made from the newest.
	last := v6Version(versions - 1)
	next := append(bytes.Clone(last), "one more line\n"...)
	sum := sha256.Sum256(last)
	if err := s.RecordAll([]Recording{{Key: "/k", Tag: "NEXT", Content: next, From: last, FromSHA256: &sum}}); err != nil {
		t.Fatal(err)
	}
	if snap, _, err := s.Lookup("/k", "NEXT"); err != nil || !bytes.Equal(snap.Content, next) {
		t.Fatalf("a version after the migration: %v", err)
	}
	checkContentBookkeeping(t, s, false)
}

// TestMigrationStreams: migrating a schema 6 store of 64 versions of a
// 1 MB file (64 MB of content) holds a few versions at a time, not the
// store: the heap in use stays far below the content it moves; and the
// file is compacted after it.
func TestMigrationStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 64 MB store")
	}
	path := filepath.Join(t.TempDir(), "v6.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(schemaV6Script); err != nil {
		t.Fatal(err)
	}
	base := bytes.Repeat(v6Version(0), 1<<20/len(v6Version(0))+1)[:1<<20]
	for i := range 64 {
		c := append(fmt.Appendf(nil, "version %d\n", i), base...)
		sum := sha256.Sum256(c)
		if _, err := db.Exec(`INSERT INTO snapshots(key, tag, sha256, content, size, time) VALUES ('/k', ?, ?, ?, ?, ?)`, fmt.Sprintf("K%03d", i), sum[:], c, len(c), i); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	runtime.GC()
	var peak uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	start := ms.HeapInuse
	s, err := openStoreFile(path, DefaultLimits())
	close(done)
	<-sampled
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t.Logf("heap in use %d MB before, %d MB at most while migrating 64 MB", start>>20, peak>>20)
	if peak > start+24<<20 {
		t.Fatalf("the migration held %d MB of heap, more than a few 1 MB versions", (peak-start)>>20)
	}
	c := checkAllContents(t, s)
	if c.Contents != 64 || c.Deltas != 62 {
		t.Fatalf("after migration: %+v", c)
	}
	// The room the whole versions took is given back to the disk.
	if n := storeBytes(t, s); n > 8<<20 {
		t.Fatalf("the store is %d MB after the migration, want it compacted", n>>20)
	}
}

// TestSchema6WriterAfterMigration: a hashls of schema 6 (or 7, whose
// statements on snapshots and trash are the same) still running when a
// newer one migrates the store goes on working and cannot damage what
// schema 8 keeps: it sees the versions in contents as not kept (their rows'
// content is NULL), keeps what it writes in its rows, and its retention
// (which drops unpinned rows and nulls their content) only lowers refs
// (the triggers), leaving unnamed contents for schema 8's content budget
// to drop.
func TestSchema6WriterAfterMigration(t *testing.T) {
	ws := openWS(t)
	s := ws.Store()
	v0 := v6Version(0)
	if err := s.Record("/k", "V000", v0); err != nil {
		t.Fatal(err)
	}
	prev := v0
	for i := 1; i <= 5; i++ {
		c := v6Version(i)
		sum := sha256.Sum256(prev)
		if err := s.RecordAll([]Recording{{Key: "/k", Tag: fmt.Sprintf("V%03d", i), Content: c, From: prev, FromSHA256: &sum}}); err != nil {
			t.Fatal(err)
		}
		prev = c
	}
	err := s.write(func(tx wtx) error {
		// What schema 6's statements do: look for a kept snapshot to point
		// at (none: its rows hold no content), so the trash keeps its own
		// copy; record a version in its row; its retention.
		var id int64
		sum := sha256.Sum256(v0)
		if err := tx.QueryRow(`SELECT id FROM snapshots WHERE key = '/k' AND sha256 = ? AND length(content) IS NOT NULL`, sum[:]).Scan(&id); err != sql.ErrNoRows {
			return fmt.Errorf("schema 6 found a kept snapshot (%d, %v): it would point the trash at content it cannot read", id, err)
		}
		c := v6Version(6)
		csum := sha256.Sum256(c)
		for _, q := range []struct {
			q    string
			args []any
		}{
			{`INSERT INTO trash(key, content, size, reason, time) VALUES ('/k', ?, ?, 'edit', 1)`, []any{v0, len(v0)}},
			{`INSERT INTO snapshots(key, tag, sha256, content, size, time) VALUES ('/k', 'V006', ?, ?, ?, 7)`, []any{csum[:], c, len(c)}},
			{`UPDATE meta SET value = value + ? WHERE name = 'content_bytes'`, []any{len(c)}},
			{`DELETE FROM snapshots WHERE id IN (SELECT snapshot_id FROM unpinned WHERE key = '/k' ORDER BY snapshot_id DESC LIMIT -1 OFFSET 3)`, nil},
			// and a version no other is made from (its content is left unnamed)
			{`DELETE FROM snapshots WHERE tag = 'V005'`, nil},
		} {
			if _, err := tx.Exec(q.q, q.args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkContentBookkeeping(t, s, true)
	checkAllContents(t, s)
	var unused int
	if err := s.w.QueryRow(`SELECT count(*) FROM content_refs WHERE refs <= 0`).Scan(&unused); err != nil || unused != 1 {
		t.Fatalf("%d contents unnamed (%v), want V005's", unused, err)
	}
	for _, i := range []int{4, 6} { // the newest: schema 6's retention dropped the rest
		if snap, ok, err := s.Lookup("/k", fmt.Sprintf("V%03d", i)); err != nil || !ok || !bytes.Equal(snap.Content, v6Version(i)) {
			t.Fatalf("version %d: %v %v", i, ok, err)
		}
	}
	// doctor offers to drop it.
	if r, err := ws.Doctor(context.Background(), false); err != nil || !strings.Contains(r.Text(), "drop 1 stored content(s) that no version names") {
		t.Fatalf("doctor (%v):\n%s", err, r.Text())
	}
	// The content budget, once exceeded, drops what nothing names first.
	s.limits.MaxTotalContentBytes = 1
	if err := s.Record("/other", "O000", []byte("other\n")); err != nil {
		t.Fatal(err)
	}
	checkContentBookkeeping(t, s, false)
	checkAllContents(t, s)
}

// BenchmarkRebuild: the oldest and the deepest kept version of the
// 480 KB file after 300 edits of 50 lines (TestHistoryAsDeltas' history):
// the oldest is a whole copy, the deepest maxDeltaDepth deltas from one.
func BenchmarkRebuild(b *testing.B) {
	s := openTestStore(b, b.TempDir())
	text := benchFile()
	if err := s.Record("/big", "T000", text); err != nil {
		b.Fatal(err)
	}
	for i := 1; i <= 300; i++ {
		next := edit50(text, i)
		sum := sha256.Sum256(text)
		if _, err := s.Trash("/big", text, "edit"); err != nil { // as the commit does: it keeps the version
			b.Fatal(err)
		}
		if err := s.RecordAll([]Recording{{Key: "/big", Tag: fmt.Sprintf("T%03d", i), Content: next, From: text, FromSHA256: &sum}}); err != nil {
			b.Fatal(err)
		}
		text = next
	}
	for _, v := range []struct {
		name string
		tag  string
	}{{"oldest", "T000"}, {"deepest", fmt.Sprintf("T%03d", maxDeltaDepth)}} {
		snap, ok, err := s.LookupMeta("/big", v.tag)
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				if _, kept, err := s.SnapshotContent(snap.ID); err != nil || !kept {
					b.Fatal(kept, err)
				}
			}
		})
	}
}

// TestTrashBytesCountedAgain: a store whose trash_bytes row is missing (a
// store edited by hand) has its trash counted again at the next trash
// entry, deltas counted by their stored size.
func TestTrashBytesCountedAgain(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	v0 := v6Version(0)
	if err := s.Record("/k", "V000", v0); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(v0)
	v1 := v6Version(1)
	if err := s.RecordAll([]Recording{{Key: "/k", Tag: "V001", Content: v1, From: v0, FromSHA256: &sum}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Trash("/k", v1, "edit"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`DELETE FROM meta WHERE name = 'trash_bytes'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Trash("/k", v0, "edit"); err != nil {
		t.Fatal(err)
	}
	checkContentBookkeeping(t, s, false)
}

// BenchmarkHistory300 is bench/history.sh in process: 300 edits of the
// 480 KB file (50 new lines each) through Commit, each from the version
// before, each timed beside a control edit in another store whose history
// stays short (always made from the file's first version). It reports the
// medians of the first and the last 20 edits, raw and over their control:
// a long history must not slow an edit (last20/first20 near 1).
func BenchmarkHistory300(b *testing.B) {
	for b.Loop() {
		text := benchFile()
		open := func() (*Workspace, Path) {
			ws, err := Open(b.TempDir(), Options{StateDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { ws.Close() })
			p, err := ws.Resolve("big.txt")
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p.Abs, text, 0o644); err != nil {
				b.Fatal(err)
			}
			if err := ws.Store().Record(p.Abs, "T000", text); err != nil {
				b.Fatal(err)
			}
			return ws, p
		}
		hws, hp := open()
		cws, cp := open()
		commit := func(ws *Workspace, p Path, from, to []byte, tag string) time.Duration {
			t := time.Now()
			if _, err := ws.Commit(context.Background(), "edit", []Change{{Path: p, Base: BaseOf(from), New: to, NewTag: tag}}, CommitOptions{}); err != nil {
				b.Fatal(err)
			}
			return time.Since(t)
		}
		var raw, rel []float64
		cur := text
		for i := 1; i <= 300; i++ {
			if err := os.WriteFile(cp.Abs, text, 0o644); err != nil {
				b.Fatal(err)
			}
			c := commit(cws, cp, text, edit50(text, i), fmt.Sprintf("C%03d", i))
			next := edit50(cur, i)
			h := commit(hws, hp, cur, next, fmt.Sprintf("T%03d", i))
			cur = next
			raw = append(raw, float64(h.Microseconds())/1000)
			rel = append(rel, float64(h)/float64(c))
		}
		median := func(v []float64) float64 {
			v = slices.Clone(v)
			slices.Sort(v)
			return v[len(v)/2]
		}
		b.ReportMetric(median(raw[:20]), "first20-ms")
		b.ReportMetric(median(raw[280:]), "last20-ms")
		b.ReportMetric(median(raw[280:])/median(raw[:20]), "last/first")
		b.ReportMetric(median(rel[280:])/median(rel[:20]), "last/first-vs-control")
	}
}
