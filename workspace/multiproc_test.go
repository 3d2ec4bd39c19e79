package workspace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain lets the test binary re-execute itself as a child process
// (HASHLS_WS_CHILD names the role) for the multi-process tests.
func TestMain(m *testing.M) {
	switch os.Getenv("HASHLS_WS_CHILD") {
	case "":
		os.Exit(m.Run())
	case "store":
		exitChild(childStore())
	case "lock":
		exitChild(childLock())
	case "killrename":
		exitChild(childKillAtRename())
	case "killrenamebig":
		exitChild(childKillAtRenameBig())
	case "writer":
		exitChild(childWriter())
	case "editonce":
		exitChild(childEditOnce())
	case "sleep":
		time.Sleep(time.Hour)
	default:
		exitChild(fmt.Errorf("unknown child role %q", os.Getenv("HASHLS_WS_CHILD")))
	}
}

func exitChild(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func childEnv(name string) int {
	n, _ := strconv.Atoi(os.Getenv(name))
	return n
}

// childStore records N snapshots, audit rows and trash entries, each its own
// write, plus N versions of one shared key.
func childStore() error {
	id, n := childEnv("CHILD_ID"), childEnv("CHILD_N")
	s, err := OpenStore(os.Getenv("CHILD_STATE"), "/multi")
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer func() { s.Close() }()
	for i := 0; i < n; i++ {
		if i%20 == 19 { // also race opening and closing, like CLI runs
			if err := s.Close(); err != nil {
				return fmt.Errorf("close: %w", err)
			}
			if s, err = OpenStore(os.Getenv("CHILD_STATE"), "/multi"); err != nil {
				return fmt.Errorf("reopen: %w", err)
			}
		}
		key := fmt.Sprintf("/multi/c%d/f%d", id, i)
		if err := s.Record(key, "T"+strconv.Itoa(i), []byte(key)); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		if err := s.Record("/multi/shared", fmt.Sprintf("S%d_%d", id, i), []byte(key)); err != nil {
			return err
		}
		if _, err := s.Audit(AuditEntry{Tool: "child", Path: key, Note: strconv.Itoa(id)}); err != nil {
			return err
		}
		if i%10 == 0 {
			if _, err := s.Trash(key, []byte(key), "test"); err != nil {
				return err
			}
		}
		if _, _, err := s.Lookup(key, "T"+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	return nil
}

// childLock increments the number in CHILD_FILE N times, each time under
// Lock across read → check → write.
func childLock() error {
	n := childEnv("CHILD_N")
	w, err := Open(os.Getenv("CHILD_ROOT"), Options{StateDir: os.Getenv("CHILD_STATE"), NoStore: true})
	if err != nil {
		return err
	}
	return incrementN(w, os.Getenv("CHILD_FILE"), n)
}

func incrementN(w *Workspace, file string, n int) error {
	ctx := context.Background()
	p, err := w.Resolve(file)
	if err != nil {
		return err
	}
	// Optimistic: read, then commit against what was read; Commit checks
	// it under the lock, so a lost race is a stale error and a retry,
	// never a lost increment.
	for i := 0; i < n; {
		f, err := w.ReadFile(p)
		if err != nil {
			return err
		}
		v, _ := strconv.Atoi(strings.TrimSpace(string(f.Bytes)))
		time.Sleep(100 * time.Microsecond) // widen the race window
		err = writeFile(w, ctx, p, f.Bytes, []byte(strconv.Itoa(v+1)+"\n"), "inc")
		if IsKind(err, KindStale) {
			continue
		}
		if err != nil {
			return err
		}
		i++
	}
	return nil
}

// runChildren starts k children of role with env and waits for all.
func runChildren(t *testing.T, role string, k int, env func(i int) []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, k)
	outs := make([][]byte, k)
	for i := 0; i < k; i++ {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "HASHLS_WS_CHILD="+role, "CHILD_ID="+strconv.Itoa(i))
		cmd.Env = append(cmd.Env, env(i)...)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			outs[i], errs[i] = cmd.CombinedOutput()
		}(i)
	}
	wg.Wait()
	for i := range errs {
		if errs[i] != nil {
			t.Errorf("child %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

func TestStoreMultiProcess(t *testing.T) {
	const k, n = 4, 200
	state := t.TempDir()
	runChildren(t, "store", k, func(i int) []string {
		return []string{"CHILD_STATE=" + state, "CHILD_N=" + strconv.Itoa(n)}
	})
	s, err := OpenStore(state, "/multi")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.IntegrityCheck(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < k; i++ {
		for j := 0; j < n; j++ {
			key := fmt.Sprintf("/multi/c%d/f%d", i, j)
			snap, ok, err := s.Lookup(key, "T"+strconv.Itoa(j))
			if err != nil || !ok || string(snap.Content) != key || !snap.Head {
				t.Fatalf("%s: %+v %v %v", key, snap, ok, err)
			}
		}
	}
	log, err := s.AuditLog(0)
	if err != nil || len(log) != k*n {
		t.Fatalf("audit rows = %d, %v; want %d", len(log), err, k*n)
	}
	seen := map[string]bool{}
	for _, e := range log {
		seen[e.Path] = true
	}
	if len(seen) != k*n {
		t.Fatalf("distinct audit paths = %d, want %d", len(seen), k*n)
	}
	if tr, _ := s.TrashList("", 0); len(tr) != k*n/10 {
		t.Fatalf("trash rows = %d, want %d", len(tr), k*n/10)
	}
	if c := countRows(t, s, "/multi/shared"); c != s.limits.MaxVersions {
		t.Fatalf("shared rows = %d, want %d", c, s.limits.MaxVersions)
	}
}

func TestLockMultiProcess(t *testing.T) {
	const k, n = 4, 50
	w, root, _ := newWS(t)
	file := filepath.Join(root, "counter.txt")
	os.WriteFile(file, []byte("0\n"), 0o644)
	runChildren(t, "lock", k, func(i int) []string {
		return []string{"CHILD_ROOT=" + root, "CHILD_STATE=" + w.StateDirPath(), "CHILD_FILE=counter.txt", "CHILD_N=" + strconv.Itoa(n)}
	})
	got, _ := os.ReadFile(file)
	if strings.TrimSpace(string(got)) != strconv.Itoa(k*n) {
		t.Fatalf("counter = %q, want %d", got, k*n)
	}
}

func TestLockInProcess(t *testing.T) {
	w, root, _ := newWS(t)
	os.WriteFile(filepath.Join(root, "counter.txt"), []byte("0\n"), 0o644)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- incrementN(w, "counter.txt", 50)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(filepath.Join(root, "counter.txt"))
	if strings.TrimSpace(string(got)) != "200" {
		t.Fatalf("counter = %q", got)
	}
}

func TestLockContextAndOrder(t *testing.T) {
	w, _, _ := newWS(t)
	a, b := mustResolve(t, w, "a.txt"), mustResolve(t, w, "dir/b.txt")
	unlock, err := w.Lock(context.Background(), b, a, a)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := w.Lock(ctx, a); err == nil || !strings.Contains(err.Error(), "a.txt") {
		t.Fatalf("second lock while held: %v", err)
	}
	unlock()
	unlock() // idempotent
	u2, err := w.Lock(context.Background(), a, b)
	if err != nil {
		t.Fatal(err)
	}
	u2()
	// No paths: a no-op lock.
	u3, err := w.Lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	u3()
}

// TestStaleAcrossProcesses is the edit-tool scenario: two writers read the
// same content; the first wins, the second gets a stale error and nothing
// of its own is written.
func TestStaleAcrossWriters(t *testing.T) {
	ctx := context.Background()
	w1, root, _ := newWS(t)
	w2, err := Open(root, Options{NoStore: true, StateDir: w1.StateDirPath()})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	p1, p2 := mustResolve(t, w1, "a.txt"), mustResolve(t, w2, "a.txt")
	f1, _ := w1.ReadFile(p1)
	f2, _ := w2.ReadFile(p2)
	if err := writeFile(w1, ctx, p1, f1.Bytes, []byte("one\n"), ""); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(w2, ctx, p2, f2.Bytes, []byte("two\n"), ""); !IsKind(err, KindStale) {
		t.Fatalf("second writer: %v", err)
	}
	if got, _ := os.ReadFile(p1.Abs); string(got) != "one\n" {
		t.Fatalf("content = %q", got)
	}
}
