package workspace

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// openHealthWS opens a workspace with a store in its own state directory
// and commits n changes to a.txt.
func openHealthWS(t *testing.T, root, state string, n int) *Workspace {
	t.Helper()
	w, err := Open(root, Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	p := mustResolve(t, w, "a.txt")
	for i := 0; i < n; i++ {
		f, _ := w.ReadFile(p)
		base := BaseAbsent()
		if f != nil {
			base = BaseOf(f.Bytes)
		}
		if _, err := w.Commit(context.Background(), "test", []Change{{Path: p, Base: base, New: []byte(strings.Repeat("x", i+1) + "\n"), NewTag: "TEST"}}, CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func removeStore(t *testing.T, db string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(db + suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// A store that disappears, is emptied or loses its last changes is
// reported once and audited, never silently taken for a new one.
func TestStoreLossReported(t *testing.T) {
	for _, tc := range []struct {
		name string
		lose func(t *testing.T, db string)
		want string
	}{
		{"deleted", removeStore, "was missing or empty"},
		{"truncated to 0 bytes", func(t *testing.T, db string) {
			removeStore(t, db)
			if err := os.WriteFile(db, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "was missing or empty"},
		{"last changes dropped", func(t *testing.T, db string) {
			// What SQLite does with a WAL whose header is damaged: the
			// transactions in it are gone. Here: the newest audit rows.
			s, err := openStoreFile(db, DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.w.Exec(`DELETE FROM audit WHERE id > 1`); err != nil {
				t.Fatal(err)
			}
			s.Close()
		}, "holds fewer changes than it did: its newest audit row is #1, but #3 existed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, state := t.TempDir(), t.TempDir()
			w := openHealthWS(t, root, state, 3)
			if n := w.Notices(); len(n) != 0 {
				t.Fatalf("a new store is no loss: %q", n)
			}
			db := w.Store().Path()
			w.Close()
			// The first reopen after the loss is not a "new store"...
			tc.lose(t, db)
			w2, err := Open(root, Options{StateDir: state})
			if err != nil {
				t.Fatal(err)
			}
			n := w2.Notices()
			if len(n) != 1 || !strings.Contains(n[0], tc.want) {
				t.Fatalf("notices %q, want one saying %q", n, tc.want)
			}
			if len(w2.Notices()) != 0 {
				t.Fatal("a notice is given once")
			}
			log, _ := w2.Store().AuditLog(1)
			if len(log) != 1 || log[0].Tool != "store" || !strings.Contains(log[0].Note, tc.want) {
				t.Fatalf("the loss is not audited: %+v", log)
			}
			w2.Close()
			// ...and the next one is quiet.
			w3, err := Open(root, Options{StateDir: state})
			if err != nil {
				t.Fatal(err)
			}
			defer w3.Close()
			if n := w3.Notices(); len(n) != 0 {
				t.Fatalf("reported twice: %q", n)
			}
		})
	}
}

// mountTmpfs mounts a tmpfs of size at dir (root only; the test is skipped
// elsewhere) and unmounts it at the end.
func mountTmpfs(t *testing.T, dir, opts string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
}

// A read-only state directory: the workspace opens, reads need nothing
// stored, changes are refused with the cause and change nothing.
func TestReadOnlyStateDir(t *testing.T) {
	root, state := t.TempDir(), filepath.Join(t.TempDir(), "state")
	os.MkdirAll(state, 0o755)
	mountTmpfs(t, state, "ro,size=1m,mode=0700") // a tmpfs is 1777 by default, which the store refuses
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644)
	w, err := Open(root, Options{StateDir: state})
	if err != nil {
		t.Fatalf("a read-only state directory must not stop reads: %v", err)
	}
	defer w.Close()
	n := w.Notices()
	if len(n) != 1 || !strings.Contains(n[0], "read-only or not writable") || !strings.Contains(n[0], "HASHLS_STATE_DIR") {
		t.Fatalf("notices %q", n)
	}
	p := mustResolve(t, w, "a.txt")
	if f, err := w.ReadFile(p); err != nil || string(f.Bytes) != "a\n" {
		t.Fatalf("read: %v", err)
	}
	_, err = w.Commit(context.Background(), "test", []Change{{Path: p, Base: BaseOf([]byte("a\n")), New: []byte("b\n"), NewTag: "TEST"}}, CommitOptions{})
	if !IsKind(err, KindStore) || !strings.Contains(err.Error(), "nothing was changed") || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("commit: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "a\n" {
		t.Fatalf("a.txt changed: %q", b)
	}
	if r, err := w.Doctor(context.Background(), false); err != nil || !strings.Contains(r.Integrity, "read-only") {
		t.Fatalf("doctor: %+v %v", r, err)
	}
}

// A full disk under the root: the commit fails naming the cause, the file
// stays byte-identical and no temp file is left. A full disk under the
// store: the error names the cause, not "unusable".
func TestDiskFull(t *testing.T) {
	root, state := filepath.Join(t.TempDir(), "root"), filepath.Join(t.TempDir(), "state")
	os.MkdirAll(root, 0o755)
	os.MkdirAll(state, 0o755)
	mountTmpfs(t, root, "size=2m")
	old := []byte(strings.Repeat("old line\n", 1000))
	os.WriteFile(filepath.Join(root, "a.txt"), old, 0o644)
	os.WriteFile(filepath.Join(root, "filler"), make([]byte, 1900<<10), 0o644)
	w, err := Open(root, Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	p := mustResolve(t, w, "a.txt")
	big := []byte(strings.Repeat("new line\n", 100000))
	_, err = w.Commit(context.Background(), "test", []Change{{Path: p, Base: BaseOf(old), New: big, NewTag: "TEST"}}, CommitOptions{})
	if err == nil || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("commit on a full disk: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != string(old) {
		t.Fatal("a.txt changed")
	}
	if tmp := tempFiles(t, root); len(tmp) != 0 {
		t.Fatalf("temp files left: %v", tmp)
	}
	if e := storeErr("/s/x.db", &os.PathError{Op: "write", Path: "/s/x.db-wal", Err: errNoSpace()}); !strings.Contains(e.Msg, "disk holding it is full") || strings.Contains(e.Msg, "move it aside") {
		t.Fatalf("store error on a full disk: %s", e.Msg)
	}
}

func TestDoctor(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	w := openHealthWS(t, root, state, 2)
	defer w.Close()
	orphan := filepath.Join(root, "sub", ".b.txt.hashls-abc123-0.tmp")
	os.MkdirAll(filepath.Dir(orphan), 0o755)
	os.WriteFile(orphan, []byte("half"), 0o600)
	r, err := w.Doctor(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	text := r.Text()
	for _, want := range []string{"integrity   ok", "each rebuilds to its sha256", "audit       2 rows; newest #2", "1 orphan(s)", "sub/.b.txt.hashls-abc123-0.tmp", "--fix` would:", "remove 1 orphan temp file(s)"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if _, err := os.Stat(orphan); err != nil {
		t.Fatal("a check must not remove anything")
	}
	r, err = w.Doctor(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Fatalf("--fix left the orphan: %v\n%s", err, r.Text())
	}
	if !strings.Contains(r.Text(), "fixed: removed sub/.b.txt.hashls-abc123-0.tmp") {
		t.Errorf("fix report:\n%s", r.Text())
	}
}

func errNoSpace() error { return syscall.ENOSPC }

// A marker torn by a crash (or not ours) says nothing: no false alarm, and
// it is written anew.
// TestMarkerLen: the constant length is what markerFormat renders, for the
// smallest and the largest numbers it holds.
func TestMarkerLen(t *testing.T) {
	for _, n := range []int64{0, 1, math.MaxInt64} {
		if got := len(fmt.Sprintf(markerFormat, n, n)); got != markerLen {
			t.Errorf("marker of %d is %d bytes, markerLen is %d", n, got, markerLen)
		}
	}
}

func TestTornMarker(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	w := openHealthWS(t, root, state, 2)
	db := w.Store().Path()
	w.Close()
	os.WriteFile(markerPath(db), []byte("hashls-store 0000012"), 0o600)
	w2, err := Open(root, Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if n := w2.Notices(); len(n) != 0 {
		t.Fatalf("a torn marker raised %q", n)
	}
	if m, ok := readMarker(db); !ok || m.LastAudit != 2 {
		t.Fatalf("marker not rewritten: %+v %v", m, ok)
	}
}

// TestDoctorCompacts: room the store's file no longer uses (content
// dropped by the budget) is offered back, and --fix compacts the file.
func TestDoctorCompacts(t *testing.T) {
	w, err := Open(t.TempDir(), Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s := w.Store()
	big := bytes.Repeat([]byte("some text kept whole in the store\n"), 16<<10) // 544 KB
	for i := range 24 {
		if err := s.Record(fmt.Sprintf("/f%d", i), "TAG0", append(fmt.Appendf(nil, "%d\n", i), big...)); err != nil {
			t.Fatal(err)
		}
	}
	s.limits.MaxTotalContentBytes = 1 << 20
	if err := s.Record("/last", "TAG0", []byte("small\n")); err != nil {
		t.Fatal(err)
	}
	r, err := w.Doctor(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Text(), "compact the store") {
		t.Fatalf("no compaction offered:\n%s", r.Text())
	}
	if r, err = w.Doctor(context.Background(), true); err != nil || !strings.Contains(r.Text(), "fixed: compacted the store") {
		t.Fatalf("--fix did not compact (%v):\n%s", err, r.Text())
	}
	if fi, err := os.Stat(s.Path()); err != nil || fi.Size() > 4<<20 {
		t.Fatalf("the store is %d bytes after compacting (%v)", fi.Size(), err)
	}
}
