package workspace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashls/hashls/internal/testsys"
)

// childKillAtRename commits CHILD_FILE's new content CHILD_NEW against what
// it holds and kills its own process just before the rename: the intent is
// journaled and the temp file complete, the file still old.
func childKillAtRename() error {
	w, err := Open(os.Getenv("CHILD_ROOT"), Options{StateDir: os.Getenv("CHILD_STATE")})
	if err != nil {
		return err
	}
	p, err := w.Resolve(os.Getenv("CHILD_FILE"))
	if err != nil {
		return err
	}
	f, err := w.ReadFile(p)
	if err != nil {
		return err
	}
	testHookRename = killSelf
	_, err = w.Commit(context.Background(), "test", []Change{{Path: p, Base: BaseOf(f.Bytes), New: []byte(os.Getenv("CHILD_NEW")), NewTag: "TEST"}},
		CommitOptions{Call: "c-dead", Who: killedWho})
	return fmt.Errorf("the commit returned (%v) instead of dying at its rename", err)
}

// killedWho is who made the change childKillAtRename dies in.
var killedWho = Attribution{Agent: "claude-code", Session: "mcp:s1", Turn: "t1"}

// killSelf ends the process the way a kill -9 would: no deferred code,
// nothing flushed, the store left open.
func killSelf() {
	p, _ := os.FindProcess(os.Getpid())
	p.Kill()
	time.Sleep(time.Hour)
}

// killedAtRename makes a root holding f.txt ("base\n") and a state
// directory, and kills a writer of "dead write\n" to f.txt at its rename.
// With open set, a process opens the store first and is returned, open
// all along (a long-lived server).
func killedAtRename(t *testing.T, open bool) (root, state string, long *Workspace) {
	t.Helper()
	base := t.TempDir()
	root, state = filepath.Join(base, "root"), filepath.Join(base, "state")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, "f.txt"), []byte("base\n"), 0o644)
	if open {
		var err error
		if long, err = Open(root, Options{StateDir: state}); err != nil {
			t.Fatal(err)
		}
	}
	runKilledChild(t, "killrename", "CHILD_ROOT="+root, "CHILD_STATE="+state, "CHILD_FILE=f.txt", "CHILD_NEW=dead write\n")
	return root, state, long
}

// runKilledChild runs the child role and checks that it died by its own
// kill (not an error exit).
func runKilledChild(t *testing.T, role string, env ...string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "HASHLS_WS_CHILD="+role), env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 || ee.ExitCode() == 1 && len(out) > 0 {
		t.Fatalf("the child did not die at its rename: %v\n%s", err, out)
	}
}

// TestKillAtRenameThenLaterCommit: a writer killed at its rename leaves its
// intent (complete temp file, file still at its base); a long-lived process
// that opened the store before then commits a new content against the
// file's current sha256. The next process to open the store must not roll
// the dead write forward over it: the later commit survives, every time.
// A second later commit that puts the base back (A, B, A) must survive too.
func TestKillAtRenameThenLaterCommit(t *testing.T) {
	ctx := context.Background()
	const runs = 20
	for run := 0; run < runs; run++ {
		aba := run%2 == 1
		root, state, long := killedAtRename(t, true) // long: the MCP server, open all along
		if ins, _ := long.store.pendingIntents(); len(ins) != 1 {
			t.Fatalf("run %d: journal after the kill: %+v", run, ins)
		}
		p := mustResolve(t, long, "f.txt")
		if err := writeFile(long, ctx, p, []byte("base\n"), []byte("later\n"), ""); err != nil {
			t.Fatalf("run %d: the later commit: %v", run, err)
		}
		want := "later\n"
		if aba {
			if err := writeFile(long, ctx, p, []byte("later\n"), []byte("base\n"), ""); err != nil {
				t.Fatalf("run %d: the commit back to the base: %v", run, err)
			}
			want = "base\n"
		}
		next, err := Open(root, Options{StateDir: state})
		if err != nil {
			t.Fatal(err)
		}
		recs := next.Recovered()
		if len(recs) != 1 || recs[0].Outcome != "rolled back" || recs[0].Err != nil || strings.Join(recs[0].Left, ",") != "f.txt" {
			t.Fatalf("run %d: recovery: %+v", run, recs)
		}
		if got, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(got) != want {
			t.Fatalf("run %d: f.txt = %q after recovery, want the later commit's %q", run, got, want)
		}
		if tmp := tempFiles(t, root); len(tmp) != 0 {
			t.Fatalf("run %d: temp files left: %v", run, tmp)
		}
		log, _ := next.store.AuditLog(0)
		var rec []AuditEntry
		for _, a := range log {
			if a.Transport == "recovery" {
				rec = append(rec, a)
			}
		}
		if len(rec) != 1 || !strings.Contains(rec[0].Note, "left as it is") || rec[0].SHA256After != SHA256Hex([]byte(want)) {
			t.Fatalf("run %d: recovery audit: %+v", run, rec)
		}
		long.Close()
		next.Close()
	}
}

// TestKillAtRenameRollsForward: with no later commit, the dead write's
// complete temp file is renamed into place by the next open, and its audit
// row keeps the call and who made it (agent, session, turn: the journal's
// who), so the change stays in its turn.
func TestKillAtRenameRollsForward(t *testing.T) {
	root, state, _ := killedAtRename(t, false)
	w, err := Open(root, Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if recs := w.Recovered(); len(recs) != 1 || recs[0].Outcome != "rolled forward" || len(recs[0].Left) != 0 {
		t.Fatalf("recovery: %+v", recs)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(got) != "dead write\n" {
		t.Fatalf("f.txt = %q", got)
	}
	rows, err := w.store.AuditByTurn(killedWho.Turn)
	if err != nil || len(rows) != 1 || rows[0].Transport != "recovery" || rows[0].Call != "c-dead" || rows[0].Path != "f.txt" ||
		rows[0].Agent != killedWho.Agent || rows[0].Session != killedWho.Session || rows[0].SHA256After != SHA256Hex([]byte("dead write\n")) {
		t.Fatalf("the recovered change's audit rows of turn %s: %+v, %v", killedWho.Turn, rows, err)
	}
}

// TestKillAtRenameThenExternalChange: a program that is not hashls changes
// the file after the kill (the journal knows nothing of it): recovery finds
// neither the base nor the new content, leaves the file as it is, reports
// it and removes the temp file.
func TestKillAtRenameThenExternalChange(t *testing.T) {
	root, state, _ := killedAtRename(t, false)
	os.WriteFile(filepath.Join(root, "f.txt"), []byte("an editor's save\n"), 0o644)
	w, err := Open(root, Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if recs := w.Recovered(); len(recs) != 1 || recs[0].Outcome != "rolled back" || strings.Join(recs[0].Left, ",") != "f.txt" {
		t.Fatalf("recovery: %+v", recs)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(got) != "an editor's save\n" {
		t.Fatalf("f.txt = %q", got)
	}
	if tmp := tempFiles(t, root); len(tmp) != 0 {
		t.Fatalf("temp files left: %v", tmp)
	}
}

// TestRecoverLeavesLiveIntents: an intent whose owner runs (another
// process, or this one while it commits) is never recovered, even when
// its files are free; one whose owner is gone (ended, or its pid now
// another process's) is.
func TestRecoverLeavesLiveIntents(t *testing.T) {
	w, root := newStoreWS(t)
	ctx := context.Background()
	os.WriteFile(filepath.Join(root, "t.txt"), []byte("old\n"), 0o644)
	add := func(owner string, pid int) int64 {
		in := &intent{Tool: "test", Entries: []intentEntry{{Path: filepath.Join(root, "t.txt"), Rel: "t.txt", Op: opWrite, Old: SHA256Hex([]byte("old\n")), New: SHA256Hex([]byte("new\n")), Tmp: filepath.Join(root, ".t.txt.hashls-x-0.tmp"), Mode: 0o644}}}
		if err := w.store.beginIntent(in, nil, false); err != nil {
			t.Fatal(err)
		}
		if _, err := w.store.w.Exec(`UPDATE intents SET owner = ?, pid = ? WHERE id = ?`, owner, pid, in.ID); err != nil {
			t.Fatal(err)
		}
		return in.ID
	}
	// A live process: a child of this test, sleeping.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command(exe, "-test.run=^$")
	child.Env = append(os.Environ(), "HASHLS_WS_CHILD=sleep")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	cpid := child.Process.Pid
	start, st := processStart(cpid)
	if st != procAlive {
		t.Fatalf("processStart(%d) of a running child: %v", cpid, st)
	}
	live := add(ownerToken(cpid, start), cpid)
	// The same pid started at another time: pid reuse, the owner is gone.
	reused := add(ownerToken(cpid, start+"0"), cpid)
	// This process, committing it now.
	mine := add(selfOwner(), os.Getpid())
	release := w.store.holdIntent(mine)
	recs, err := w.Recover(ctx)
	if err != nil || len(recs) != 1 || recs[0].Intent != reused {
		t.Fatalf("recover: %+v, %v; want only #%d (live #%d, mine #%d)", recs, err, reused, live, mine)
	}
	release()
	recs, _ = w.Recover(ctx)
	if len(recs) != 1 || recs[0].Intent != mine {
		t.Fatalf("recover after this process let go of #%d: %+v", mine, recs)
	}
	if ins, _ := w.store.pendingIntents(); len(ins) != 1 || ins[0].ID != live {
		t.Fatalf("journal: %+v", ins)
	}
	// Its owner killed: it is recovered.
	child.Process.Kill()
	child.Wait()
	if recs, _ = w.Recover(ctx); len(recs) != 1 || recs[0].Intent != live {
		t.Fatalf("recover after the owner died: %+v", recs)
	}
}

// TestIntentIDsNeverReused: a finished intent's id is not given again.
func TestIntentIDsNeverReused(t *testing.T) {
	w, _ := newStoreWS(t)
	var last int64
	for i := 0; i < 3; i++ {
		in := &intent{Tool: "test"}
		if err := w.store.beginIntent(in, nil, false); err != nil {
			t.Fatal(err)
		}
		if in.ID <= last {
			t.Fatalf("intent id %d after %d", in.ID, last)
		}
		last = in.ID
		if err := w.store.closeIntent(in.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// childWriter runs CHILD_N seconds of commits as a CLI would: a workspace
// opened (and so a recovery run) for every commit, writing its own file
// and incrementing a shared counter.
func childWriter() error {
	ctx := context.Background()
	id := os.Getenv("CHILD_ID")
	deadline := time.Now().Add(time.Duration(childEnv("CHILD_MS")) * time.Millisecond)
	n := 0
	for i := 0; time.Now().Before(deadline); i++ {
		w, err := Open(os.Getenv("CHILD_ROOT"), Options{StateDir: os.Getenv("CHILD_STATE")})
		if err != nil {
			return err
		}
		if len(w.Recovered()) > 0 {
			return fmt.Errorf("writer %s recovered %+v with nothing killed", id, w.Recovered())
		}
		own, _ := w.Resolve("w" + id + ".txt")
		f, err := w.ReadFile(own)
		if err != nil {
			return err
		}
		if err := writeFile(w, ctx, own, f.Bytes, []byte(strconv.Itoa(i)+"\n"), ""); err != nil {
			return err
		}
		n++
		w.Close()
	}
	fmt.Fprintln(os.Stderr, "commits", n)
	return nil
}

// TestConcurrentWritersNoRecovery: four processes committing at once, none
// killed, each opening the store for every commit (as CLI calls do): no
// recovery ever runs, so the audit log has no recovery rows. It runs for
// HASHLS_WRITERS_SECONDS (testsys.RaceDuration).
func TestConcurrentWritersNoRecovery(t *testing.T) {
	const k = 4
	base := t.TempDir()
	root, state := filepath.Join(base, "root"), filepath.Join(base, "state")
	os.MkdirAll(root, 0o755)
	for i := 0; i < k; i++ {
		os.WriteFile(filepath.Join(root, "w"+strconv.Itoa(i)+".txt"), []byte("start\n"), 0o644)
	}
	d := testsys.RaceDuration("HASHLS_WRITERS_SECONDS")
	runChildren(t, "writer", k, func(i int) []string {
		return []string{"CHILD_ROOT=" + root, "CHILD_STATE=" + state, "CHILD_MS=" + strconv.Itoa(int(d/time.Millisecond))}
	})
	w, err := Open(root, Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	log, err := w.store.AuditLog(0)
	if err != nil {
		t.Fatal(err)
	}
	recovery := 0
	for _, a := range log {
		if a.Transport == "recovery" {
			recovery++
		}
	}
	t.Logf("%d writers for %v: %d commits audited, %d recovery rows", k, d, len(log), recovery)
	if recovery != 0 {
		t.Fatalf("%d recovery rows with nothing killed", recovery)
	}
}

// TestSchemaV7KeepsIntents: a schema 6 store's pending intent survives the
// migration (with no owner: its pid decides), and ids go on from it, never
// reused even when the newest is deleted.
func TestSchemaV7KeepsIntents(t *testing.T) {
	s := openOldStore(t, schemaV1+schemaV2+schemaV3+schemaV4+schemaV5+schemaV6+`PRAGMA user_version = 6;
		INSERT INTO intents(id, tool, pid, time, body) VALUES (5, 'write', 4242, 1, '{"tool":"write","entries":[]}');`)
	ins, err := s.pendingIntents()
	if err != nil || len(ins) != 1 || ins[0].ID != 5 || ins[0].Owner != "" || ins[0].PID != 4242 || ins[0].Tool != "write" {
		t.Fatalf("intents after the migration: %+v, %v", ins, err)
	}
	var ids []int64
	for i := 0; i < 2; i++ {
		in := &intent{Tool: "t"}
		if err := s.beginIntent(in, nil, false); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, in.ID)
		s.closeIntent(in.ID, nil)
	}
	if ids[0] != 6 || ids[1] != 7 {
		t.Fatalf("new intent ids %v, want 6 then 7", ids)
	}
}
