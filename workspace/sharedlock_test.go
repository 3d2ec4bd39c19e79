package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// childEditOnce adds one line to CHILD_FILE under CHILD_ROOT with its own
// store (CHILD_STATE): it reads the file, waits until CHILD_AT (so that
// both children of a round hold what they read at once), and commits its
// line against what it read; a stale refusal makes it read again and
// retry, as an agent does.
func childEditOnce() error {
	w, err := Open(os.Getenv("CHILD_ROOT"), Options{StateDir: os.Getenv("CHILD_STATE")})
	if err != nil {
		return err
	}
	defer w.Close()
	p, err := w.Resolve(os.Getenv("CHILD_FILE"))
	if err != nil {
		return err
	}
	at, _ := strconv.ParseInt(os.Getenv("CHILD_AT"), 10, 64)
	line := "edit by " + os.Getenv("CHILD_ID") + "\n"
	for try := 0; try < 100; try++ {
		f, err := w.ReadFile(p)
		if err != nil {
			return err
		}
		if try == 0 {
			time.Sleep(time.Until(time.Unix(0, at)))
		}
		err = writeFile(w, context.Background(), p, f.Bytes, append(append([]byte{}, f.Bytes...), line...), "")
		if IsKind(err, KindStale) {
			continue
		}
		return err
	}
	return fmt.Errorf("stale 100 times")
}

// editRounds runs rounds of two children editing one file at once, child
// i opening the root at roots[i] with the store stateDirs[i], and returns
// the rounds in which an edit both children reported as done is missing.
func editRounds(t *testing.T, rounds int, file string, roots, stateDirs [2]string) (lost int) {
	t.Helper()
	abs := filepath.Join(roots[0], file)
	for r := 0; r < rounds; r++ {
		if err := os.WriteFile(abs, []byte("round "+strconv.Itoa(r)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		at := strconv.FormatInt(time.Now().Add(150*time.Millisecond).UnixNano(), 10)
		runChildren(t, "editonce", 2, func(i int) []string {
			return []string{"CHILD_ROOT=" + roots[i], "CHILD_STATE=" + stateDirs[i], "CHILD_FILE=" + file, "CHILD_AT=" + at}
		})
		got, _ := os.ReadFile(abs)
		if !strings.Contains(string(got), "edit by 0\n") || !strings.Contains(string(got), "edit by 1\n") {
			lost++
			t.Logf("round %d: both edits reported done, the file holds %q", r, got)
		}
	}
	return lost
}

// editRoundsN is the rounds of TestTwoStoresOneRoot and
// TestBindMountedRoot: 30, 10 with -short.
func editRoundsN() int {
	if testing.Short() {
		return 10
	}
	return 30
}

// TestTwoStoresOneRoot: two processes on one root with different state
// directories (stores) edit one file at once: they serialize on the
// file's directory, so neither edit is lost (30 rounds).
func TestTwoStoresOneRoot(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	os.MkdirAll(filepath.Join(root, "d"), 0o755)
	rounds := editRoundsN()
	lost := editRounds(t, rounds, "d/f.txt", [2]string{root, root}, [2]string{filepath.Join(base, "s1"), filepath.Join(base, "s2")})
	t.Logf("two stores, %d rounds: %d lost updates", rounds, lost)
	if lost > 0 {
		t.Fatalf("%d of %d rounds lost an edit", lost, rounds)
	}
}
