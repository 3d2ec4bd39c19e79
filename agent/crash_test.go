package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashls/hashls/treesitter"
	"github.com/hashls/hashls/workspace"
)

// The crash test: a child process applies multi-file edits (some deleting
// or moving a file with REM / MV), patches, writes, archive writes and
// restores in a loop while the test SIGKILLs it (TerminateProcess on Windows)
// at random moments. After each kill the next open recovers, and then every
// multi-file change is wholly old or wholly new, every file byte-identical
// to one a tool wrote, no temp file is left and the store is intact.
//
// The workload keeps a checkable invariant: g/a.txt, g/b.txt and g/c.txt
// always hold the same text "gen N / d K" (plus padding), written together;
// g/d.txt exists exactly when K > 0 and then holds "d K". edit advances N;
// apply_patch advances N and adds or deletes g/d.txt in the same patch; an
// edit with REM or MV (to g/old/) ends g/d.txt while setting K to 0.
//
// HASHLS_CRASH_KILLS sets the number of kills (default 200, 30 with
// -short); bench/crash.sh runs it long.

const crashChildEnv = "HASHLS_CRASH_CHILD"

// crashReady is the line the child prints once its workspace is open: the
// parent times its kill from there, not from the start, which takes most
// of a second under wine (CI's Windows), longer than the kill window.
const crashReady = "crash child ready"

func crashText(gen, d int) string {
	return fmt.Sprintf("gen %d\nd %d\n%s", gen, d, strings.Repeat("padding line to make the write take a little while\n", 200))
}

var crashHeadRE = regexp.MustCompile(`^gen (\d+)\nd (\d+)\n`)

func parseCrashText(s string) (gen, d int, ok bool) {
	m := crashHeadRE.FindStringSubmatch(s)
	if m == nil || s != crashText(atoi(m[1]), atoi(m[2])) {
		return 0, 0, false
	}
	return atoi(m[1]), atoi(m[2]), true
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// bigCrashText is generation gen of big.txt, a 10,000-line file of which
// the crash workload's big edit changes lines 1, 201, 401, … (50 of them)
// at each generation: its new version is kept as a delta, so kills land
// while a delta is encoded and written.
func bigCrashText(gen int) string {
	var b strings.Builder
	for i := range 10000 {
		if i%200 == 0 {
			fmt.Fprintf(&b, "big gen %d line %d\n", gen, i)
		} else {
			fmt.Fprintf(&b, "line %d: some text for the crash test file\n", i+1)
		}
	}
	return b.String()
}

var bigCrashRE = regexp.MustCompile(`^big gen (\d+) line 0\n`)

// parseBigCrashText returns the generation big.txt holds, ok false when it
// is not a whole generation.
func parseBigCrashText(s string) (int, bool) {
	m := bigCrashRE.FindStringSubmatch(s)
	if m == nil || s != bigCrashText(atoi(m[1])) {
		return 0, false
	}
	return atoi(m[1]), true
}

// TestCrashChild is the child's loop; it runs only under crashChildEnv.
func TestCrashChild(t *testing.T) {
	if os.Getenv(crashChildEnv) == "" {
		t.Skip("the crash test's child process")
	}
	root := os.Getenv(crashChildEnv)
	ws, err := workspace.Open(root, workspace.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(3)
	}
	env := &Env{WS: ws, Resolver: &treesitter.Resolver{}}
	rng := rand.New(rand.NewPCG(uint64(os.Getpid()), uint64(time.Now().UnixNano())))
	fmt.Println(crashReady) // the parent times most kills from this line
	for i := 0; ; i++ {
		if err := crashStep(env, rng.IntN(7)); err != nil {
			fmt.Fprintln(os.Stderr, "child step:", err)
			os.Exit(4)
		}
	}
}

// crashStep runs one operation of the workload.
func crashStep(env *Env, op int) error {
	run := func(name string, args any) (*Result, error) {
		raw, _ := json.Marshal(args)
		return runEnv(env, name, raw)
	}
	root := env.WS.Root()
	cur, err := os.ReadFile(filepath.Join(root, "g/a.txt"))
	if err != nil {
		return err
	}
	gen, d, ok := parseCrashText(string(cur))
	if !ok {
		return fmt.Errorf("g/a.txt holds unexpected content %.40q", cur)
	}
	switch op {
	case 0: // a three-file hashline edit
		var input strings.Builder
		for _, f := range []string{"g/a.txt", "g/b.txt", "g/c.txt"} {
			rd, err := run("read", map[string]string{"path": f + ":1-2"})
			if err != nil {
				return err
			}
			fmt.Fprintf(&input, "¶%s#%s\nreplace 1..1:\n+gen %d\n", f, rd.Details.(*readDetails).Tag, gen+1)
		}
		_, err := run("edit", map[string]string{"input": input.String()})
		return err
	case 1: // a patch over four files: three updates and an add or a delete
		var p strings.Builder
		p.WriteString("*** Begin Patch\n")
		nd := 0
		if d == 0 {
			nd = gen + 1
			fmt.Fprintf(&p, "*** Add File: g/d.txt\n+d %d\n", nd)
		} else {
			p.WriteString("*** Delete File: g/d.txt\n")
		}
		for _, f := range []string{"g/a.txt", "g/b.txt", "g/c.txt"} {
			fmt.Fprintf(&p, "*** Update File: %s\n@@\n-gen %d\n-d %d\n+gen %d\n+d %d\n", f, gen, d, gen+1, nd)
		}
		p.WriteString("*** End Patch")
		_, err := run("apply_patch", map[string]string{"input": p.String()})
		return err
	case 2: // a single-file write
		_, err := run("write", map[string]string{"path": "w.txt", "content": fmt.Sprintf("w %d\n", gen)})
		return err
	case 5: // a hashline edit that ends g/d.txt by REM or MV, with the three files
		if d == 0 {
			return nil
		}
		var input strings.Builder
		for _, f := range []string{"g/a.txt", "g/b.txt", "g/c.txt", "g/d.txt"} {
			rd, err := run("read", map[string]string{"path": f + ":1-2"})
			if err != nil {
				return err
			}
			tag := rd.Details.(*readDetails).Tag
			switch {
			case f != "g/d.txt":
				fmt.Fprintf(&input, "¶%s#%s\nSWAP 1.=2:\n+gen %d\n+d 0\n", f, tag, gen+1)
			case gen%2 == 0:
				fmt.Fprintf(&input, "¶%s#%s\nREM\n", f, tag)
			default:
				fmt.Fprintf(&input, "¶%s#%s\nMV g/old/d-%d.txt\n", f, tag, gen+1)
			}
		}
		_, err := run("edit", map[string]string{"input": input.String()})
		return err
	case 6: // a 50-line edit of a 480 KB file: a new version kept as a delta
		b, err := os.ReadFile(filepath.Join(root, "big.txt"))
		if err != nil {
			return err
		}
		bg, ok := parseBigCrashText(string(b))
		if !ok {
			return fmt.Errorf("big.txt holds unexpected content %.40q", b)
		}
		sel := make([]string, 50)
		for i := range sel {
			sel[i] = fmt.Sprintf("%d-%d", i*200+1, i*200+1)
		}
		rd, err := run("read", map[string]string{"path": "big.txt:" + strings.Join(sel, ",")})
		if err != nil {
			return err
		}
		var input strings.Builder
		fmt.Fprintf(&input, "¶big.txt#%s\n", rd.Details.(*readDetails).Tag)
		for i := range 50 {
			fmt.Fprintf(&input, "replace %d..%d:\n+big gen %d line %d\n", i*200+1, i*200+1, bg+1, i*200)
		}
		_, err = run("edit", map[string]string{"input": input.String()})
		return err
	case 3: // an archive member
		_, err := run("write", map[string]string{"path": "arc.zip:m.txt", "content": fmt.Sprintf("m %d\n", gen)})
		return err
	default: // restore w.txt's newest trash entry
		tr, err := run("trash", map[string]any{"path": "w.txt", "limit": 1})
		if err != nil {
			return err
		}
		ents := tr.Details.(map[string]any)["entries"].([]trashItem)
		if len(ents) == 0 {
			return nil
		}
		_, err = run("restore", map[string]any{"id": ents[0].ID})
		return err
	}
}

func TestCrashRecovery(t *testing.T) {
	if os.Getenv(crashChildEnv) != "" {
		t.Skip("in the child")
	}
	kills := crashKills(200, 30)
	root := t.TempDir()
	state := t.TempDir()
	t.Setenv("HASHLS_STATE_DIR", state)
	for _, f := range []string{"g/a.txt", "g/b.txt", "g/c.txt"} {
		os.MkdirAll(filepath.Join(root, "g"), 0o755)
		os.WriteFile(filepath.Join(root, f), []byte(crashText(0, 0)), 0o644)
	}
	os.WriteFile(filepath.Join(root, "w.txt"), []byte("w 0\n"), 0o644)
	os.WriteFile(filepath.Join(root, "big.txt"), []byte(bigCrashText(0)), 0o644)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	outcomes := map[string]int{}
	start := time.Now()
	lastGen := 0
	for k := 0; k < kills; k++ {
		cmd, stdout, stderr := startCrashChild(t, exe, "TestCrashChild", crashChildEnv+"="+root)
		// One kill in four lands 20-220 ms after the start, whatever the
		// child is doing (its open and recovery included); the others
		// once it says its workload starts, so a slow start (a loaded
		// machine, wine) does not turn every kill into one before any
		// commit.
		window := 200 // ms
		if runtime.GOOS == "windows" {
			window = 1500 // a step takes hundreds of milliseconds under wine
		}
		if k%4 == 0 {
			time.Sleep(time.Duration(20+rng.IntN(200)) * time.Millisecond)
		} else {
			if line, _ := bufio.NewReader(stdout).ReadString('\n'); strings.TrimSpace(line) != crashReady {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("kill %d: the child did not start (%q): %s", k, line, stderr.String())
			}
			time.Sleep(time.Duration(rng.IntN(window)) * time.Millisecond)
		}
		ws := killAndRecover(t, k, cmd, stderr, root)
		for _, r := range ws.Recovered() {
			outcomes[r.Outcome]++
		}
		gen := checkCrashInvariants(t, k, ws)
		if gen < lastGen {
			t.Fatalf("kill %d: generation went back from %d to %d", k, lastGen, gen)
		}
		lastGen = gen
		if k == kills-1 {
			checkKeptVersions(t, k, ws)
		}
		ws.Close()
	}
	big, _ := os.ReadFile(filepath.Join(root, "big.txt"))
	bigGen, _ := parseBigCrashText(string(big))
	t.Logf("%d kills in %v: %d generations committed (big.txt: %d); recoveries: %v", kills, time.Since(start).Round(time.Millisecond), lastGen, bigGen, outcomes)
	if lastGen == 0 {
		t.Fatal("the child never committed anything: the kills came too early to test anything")
	}
}

// startCrashChild starts the test binary exe running only the test named
// run, with env added; it returns the child, its stdout and what it writes
// on stderr.
func startCrashChild(t *testing.T, exe, run string, env ...string) (*exec.Cmd, io.Reader, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^"+run+"$")
	cmd.Env = append(os.Environ(), env...)
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdout, stderr
}

// crashKills is the number of kills of a crash test: HASHLS_CRASH_KILLS
// when set, else short under -short, else full.
func crashKills(full, short int) int {
	if s := os.Getenv("HASHLS_CRASH_KILLS"); s != "" {
		return atoi(s)
	}
	if testing.Short() {
		return short
	}
	return full
}

// killAndRecover kills the child, checks that the kill ended it, and opens
// the workspace at root (which recovers), failing on a recovery error.
func killAndRecover(t *testing.T, k int, cmd *exec.Cmd, stderr *strings.Builder, root string) *workspace.Workspace {
	t.Helper()
	_ = cmd.Process.Kill()
	if err := cmd.Wait(); !killed(err) {
		t.Fatalf("kill %d: the child ended on its own (%v): %s", k, err, stderr.String())
	}
	ws, err := workspace.Open(root, workspace.Options{})
	if err != nil {
		t.Fatalf("kill %d: open after the crash: %v", k, err)
	}
	for _, r := range ws.Recovered() {
		if r.Err != nil {
			t.Fatalf("kill %d: recovery of journal #%d failed: %v", k, r.Intent, r.Err)
		}
	}
	return ws
}

// checkCrashStore checks what every crash test checks after recovery: no
// temp file is left under the root, the store is intact and the journal
// is empty.
func checkCrashStore(t *testing.T, k int, ws *workspace.Workspace) {
	t.Helper()
	filepath.WalkDir(ws.Root(), func(p string, de os.DirEntry, err error) error {
		if err == nil && strings.Contains(de.Name(), ".hashls-") {
			t.Fatalf("kill %d: temp file left: %s", k, p)
		}
		return nil
	})
	if err := ws.Store().IntegrityCheck(); err != nil {
		t.Fatalf("kill %d: %v", k, err)
	}
	if k%verifyEvery == 0 {
		checkKeptVersions(t, k, ws)
	}
	if recs, err := ws.Recover(context.Background()); err != nil || len(recs) != 0 {
		t.Fatalf("kill %d: journal not empty after recovery: %+v %v", k, recs, err)
	}
}

// verifyEvery is how often (in kills) checkCrashStore rebuilds every kept
// version: the check reads the whole history, which grows with the run,
// and a kill can only cut the newest transaction (SQLite makes it whole or
// gone), so each check covers the kills before it.
const verifyEvery = 20

// checkKeptVersions checks that every kept version rebuilds to its sha256.
func checkKeptVersions(t *testing.T, k int, ws *workspace.Workspace) {
	t.Helper()
	if c, err := ws.Store().VerifyContents(context.Background()); err != nil || len(c.Damaged) > 0 {
		t.Fatalf("kill %d: kept versions that do not rebuild: %v %v", k, c.Damaged, err)
	}
}

// killed reports whether the child ended by the test's kill: SIGKILL on
// Unix; on Windows Process.Kill is TerminateProcess with exit code 1 (a child
// failing on its own exits 3 or 4 and says why on stderr).
func killed(err error) bool {
	ee, ok := err.(*exec.ExitError)
	if !ok {
		return false
	}
	if runtime.GOOS == "windows" {
		return ee.ExitCode() == 1
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// checkCrashInvariants checks the workload's invariant and returns the
// generation found.
func checkCrashInvariants(t *testing.T, k int, ws *workspace.Workspace) int {
	t.Helper()
	root := ws.Root()
	read := func(rel string) (string, bool) {
		b, err := os.ReadFile(filepath.Join(root, rel))
		return string(b), err == nil
	}
	a, _ := read("g/a.txt")
	gen, d, ok := parseCrashText(a)
	if !ok {
		t.Fatalf("kill %d: g/a.txt is not a file a tool wrote: %.60q", k, a)
	}
	for _, f := range []string{"g/b.txt", "g/c.txt"} {
		if got, _ := read(f); got != a {
			t.Fatalf("kill %d: %s differs from g/a.txt (a multi-file change is half applied): %.30q vs %.30q", k, f, got, a)
		}
	}
	dt, dok := read("g/d.txt")
	switch {
	case d == 0 && dok:
		t.Fatalf("kill %d: g/d.txt exists (%q) but the patch that deleted it is applied", k, dt)
	case d > 0 && dt != fmt.Sprintf("d %d\n", d):
		t.Fatalf("kill %d: g/d.txt = %q (exists %v), want \"d %d\"", k, dt, dok, d)
	}
	if ents, err := os.ReadDir(filepath.Join(root, "g/old")); err == nil {
		for _, e := range ents {
			if strings.Contains(e.Name(), ".hashls-") {
				continue // reported below
			}
			if m, _ := read("g/old/" + e.Name()); !regexp.MustCompile(`^d \d+\n$`).MatchString(m) {
				t.Fatalf("kill %d: moved file g/old/%s = %q", k, e.Name(), m)
			}
		}
	}
	if b, ok := read("big.txt"); ok {
		if _, ok := parseBigCrashText(b); !ok {
			t.Fatalf("kill %d: big.txt is not a file a tool wrote: %.60q", k, b)
		}
	}
	if w, _ := read("w.txt"); !regexp.MustCompile(`^w \d+\n$`).MatchString(w) {
		log, _ := ws.Store().AuditLog(6)
		t.Fatalf("kill %d: w.txt = %q; recovered %+v; audit %+v", k, w, ws.Recovered(), log)
	}
	if _, err := os.Stat(filepath.Join(root, "arc.zip")); err == nil {
		m, err := readMemberAt(t, filepath.Join(root, "arc.zip"), "m.txt", 1<<20)
		if err != nil || !regexp.MustCompile(`^m \d+\n$`).Match(m) {
			t.Fatalf("kill %d: arc.zip m.txt = %q, %v", k, m, err)
		}
	}
	checkCrashStore(t, k, ws)
	return gen
}
