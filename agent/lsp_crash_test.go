package agent

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashls/hashls/internal/lsptest"
	"github.com/hashls/hashls/langserver"
	"github.com/hashls/hashls/treesitter"
	"github.com/hashls/hashls/workspace"
)

// The rename crash test (issue 15): a child process renames a symbol
// across six files through the lsp tool (apply), answered by the fake
// language server of internal/lsptest with a fixed WorkspaceEdit over the
// files, and the test kills it at a moment drawn from its "ready" line:
// before the rename's commit, during it, or after it. After each kill the
// next open recovers; then the six files are all at the old generation or
// all at the new one (every file's sha256 is the one that generation
// renders), no temp file is left, the journal is empty, the store is
// intact, and each file's newest audit row names its current content.
//
// Every file holds the symbol symN on 11 of its 301 lines; a child renames symN to
// sym(N+1) once, prints "done" and waits for its kill. One child in ten is
// let finish before its kill: their ready-to-done times set the window the
// other kills are drawn from, 1.5 times the median, so about a third of
// those land after the commit.
//
// HASHLS_CRASH_KILLS sets the number of kills (default 100, 20 with -short).

const (
	lspCrashChildEnv  = "HASHLS_LSP_CRASH_CHILD"
	lspCrashServerEnv = "HASHLS_LSP_CRASH_SERVER"
	lspCrashDone      = "rename done"
)

var lspCrashFiles = []string{"a.fk", "b.fk", "c.fk", "pkg/d.fk", "pkg/e.fk", "pkg/f.fk"}

// lspCrashText is file i's content at generation gen.
func lspCrashText(i, gen int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "sym%d is defined in file %d\n", gen, i)
	for j := 0; j < 300; j++ {
		if j%30 == 0 {
			fmt.Fprintf(&sb, "row %03d of file %d uses sym%d\n", j, i, gen)
			continue
		}
		fmt.Fprintf(&sb, "row %03d of file %d is padding, so that the write takes a while\n", j, i)
	}
	return sb.String()
}

var lspCrashGenRE = regexp.MustCompile(`^sym(\d+) is defined`)

func lspCrashServers(bin string) map[string]langserver.Server {
	return map[string]langserver.Server{"fake": {Command: []string{bin}, FileTypes: []string{".fk"}}}
}

// lspCrashGoplsRE finds the generation of the gopls round: the name of
// shapes.Total ("Total", then "Total1", "Total2", ...).
var lspCrashGoplsRE = regexp.MustCompile(`\bfunc (Total\d*)\(`)

// lspCrashCallRE and lspCrashNameRE find its uses and every mention.
var (
	lspCrashCallRE = regexp.MustCompile(`\b(Total\d*)\(`)
	lspCrashNameRE = regexp.MustCompile(`\bTotal\d*\b`)
)

// TestLSPRenameCrashChild is the child: one rename, then a wait for the
// kill. lspCrashServerEnv is the fake server's path, or "gopls".
func TestLSPRenameCrashChild(t *testing.T) {
	root := os.Getenv(lspCrashChildEnv)
	if root == "" {
		t.Skip("the rename crash test's child process")
	}
	fail := func(what string, err error) {
		fmt.Fprintf(os.Stderr, "child %s: %v\n", what, err)
		os.Exit(4)
	}
	ws, err := workspace.Open(root, workspace.Options{})
	if err != nil {
		fail("open", err)
	}
	server := os.Getenv(lspCrashServerEnv)
	// What is renamed: the symbol on line 1 of a.fk across the six files,
	// or gopls's Total (shapes/shapes.go line 20) across three.
	file, line, re, files, prefix := "a.fk", 1, lspCrashGenRE, len(lspCrashFiles), "sym"
	var servers map[string]langserver.Server
	if server == "gopls" {
		file, line, re, files, prefix = "shapes/shapes.go", 20, lspCrashGoplsRE, 3, "Total"
	} else {
		servers = lspCrashServers(server)
	}
	pool := langserver.NewPool(langserver.Options{Servers: servers})
	ts := New(Deps{WS: ws, Resolver: &treesitter.Resolver{}, LangServers: pool})
	b, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		fail("read", err)
	}
	m := re.FindSubmatch(b)
	if m == nil {
		fail("read", fmt.Errorf("%s holds unexpected content %.40q", file, b))
	}
	old := string(m[1])
	gen := atoi(strings.TrimPrefix(strings.TrimPrefix(old, "sym"), "Total"))
	ctx := context.Background()
	// The server is started and has loaded the project before the kill
	// window opens.
	if _, _, err := pool.For(ws).Diagnostics(ctx, filepath.Join(root, file)); err != nil {
		fail("starting the server", err)
	}
	fmt.Println(crashReady) // the parent times its kill from this line
	raw, _ := json.Marshal(map[string]any{"action": "rename", "file": file, "line": line, "symbol": old, "newName": fmt.Sprintf("%s%d", prefix, gen+1), "apply": true, "timeout": 60})
	res, err := ts.Run(ctx, "lsp_edit", raw, Call{Transport: "test"})
	if err != nil {
		fail("rename", err)
	}
	if len(res.Changes) != files {
		fail("rename", fmt.Errorf("changed %d files, want %d:\n%s", len(res.Changes), files, res.Text))
	}
	fmt.Println(lspCrashDone)
	time.Sleep(time.Hour) // until the kill
}

func TestLSPRenameCrash(t *testing.T) {
	if os.Getenv(lspCrashChildEnv) != "" {
		t.Skip("in the child")
	}
	kills := crashKills(100, 20)
	bin := lsptest.FakeServer(t)
	root := t.TempDir()
	for i, f := range lspCrashFiles {
		os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755)
		if err := os.WriteFile(filepath.Join(root, f), []byte(lspCrashText(i, 0)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runLSPCrash(t, root, bin, kills, checkLSPCrash)
}

// TestLSPRenameCrashGopls is one round against gopls: a rename of
// shapes.Total across the test module's three files, killed like the
// fake server's. After each kill the three files all name the same
// generation and are the module's files with that one name changed.
func TestLSPRenameCrashGopls(t *testing.T) {
	if os.Getenv(lspCrashChildEnv) != "" {
		t.Skip("in the child")
	}
	lsptest.NeedGopls(t)
	kills := 8
	if testing.Short() {
		kills = 4
	}
	root := lsptest.GoModule(t)
	orig := map[string]string{}
	for _, f := range []string{"main.go", "report.go", "shapes/shapes.go"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		orig[f] = string(b)
	}
	runLSPCrash(t, root, "gopls", kills, func(t *testing.T, k int, ws *workspace.Workspace) int {
		t.Helper()
		b, _ := os.ReadFile(filepath.Join(root, "shapes/shapes.go"))
		m := lspCrashGoplsRE.FindSubmatch(b)
		if m == nil {
			t.Fatalf("kill %d: shapes/shapes.go lost func Total:\n%s", k, b)
		}
		name := string(m[1])
		for f, want := range orig {
			b, _ := os.ReadFile(filepath.Join(root, f))
			for _, n := range lspCrashCallRE.FindAllStringSubmatch(string(b), -1) {
				if n[1] != name {
					t.Fatalf("kill %d: %s calls %s, shapes.go defines %s (the rename is half applied):\n%s", k, f, n[1], name, b)
				}
			}
			if got := lspCrashNameRE.ReplaceAllString(string(b), "Total"); got != want {
				t.Fatalf("kill %d: %s is not the module's file with Total renamed to %s:\n%s", k, f, name, b)
			}
		}
		checkLSPCrashStore(t, k, ws, []string{"main.go", "report.go", "shapes/shapes.go"})
		return atoi(strings.TrimPrefix(name, "Total"))
	})
}

// runLSPCrash starts a child renaming at root kills times (server: the
// fake server's path or "gopls"), kills it at a moment drawn from its
// ready line, and after each kill opens the workspace (recovery) and
// checks it with check, which returns the generation the files are at.
func runLSPCrash(t *testing.T, root, server string, kills int, check func(t *testing.T, k int, ws *workspace.Workspace) int) {
	t.Helper()
	t.Setenv("HASHLS_STATE_DIR", t.TempDir())
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, uint64(time.Now().UnixNano())))
	var durations []time.Duration // ready to done, of the children let finish
	outcomes := map[string]int{}
	gen := 0
	start := time.Now()
	for k := 0; k < kills; k++ {
		cmd, stdout, stderr := startCrashChild(t, exe, "TestLSPRenameCrashChild", lspCrashChildEnv+"="+root, lspCrashServerEnv+"="+server)
		// Each line with the moment it came.
		type stamped struct {
			text string
			at   time.Time
		}
		lines := make(chan stamped, 2)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- stamped{strings.TrimSpace(sc.Text()), time.Now()}
			}
			close(lines)
		}()
		var ready time.Time
		select {
		case line := <-lines:
			if line.text != crashReady {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("kill %d: the child did not start (%q): %s", k, line.text, stderr.String())
			}
			ready = line.at
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("kill %d: no ready line in two minutes: %s", k, stderr.String())
		}
		done := false
		if k%10 == 0 {
			// One rename in ten runs to its end: their times set the
			// window. (Those that finish within a window would be a
			// sample biased to the fast ones, shrinking it.)
			select {
			case line := <-lines:
				if done = line.text == lspCrashDone; done {
					durations = append(durations, line.at.Sub(ready))
				}
			case <-time.After(2 * time.Minute):
			}
			if !done {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("kill %d: the rename did not finish: %s", k, stderr.String())
			}
			slices.Sort(durations)
		} else {
			window := durations[len(durations)/2] * 3 / 2
			time.Sleep(time.Until(ready.Add(time.Duration(rng.Int64N(int64(window) + 1)))))
			select {
			case line := <-lines:
				done = line.text == lspCrashDone
			default:
			}
		}
		ws := killAndRecover(t, k, cmd, stderr, root)
		recovered := ""
		for _, r := range ws.Recovered() {
			recovered = r.Outcome
		}
		g := check(t, k, ws)
		ws.Close()
		switch {
		case g != gen && g != gen+1:
			t.Fatalf("kill %d: generation %d after %d: a rename was lost or doubled", k, g, gen)
		case done && g != gen+1:
			t.Fatalf("kill %d: the child said the rename was done, but the files are at generation %d", k, g)
		case recovered != "":
			outcomes["during ("+recovered+")"]++
		case done:
			outcomes["after"]++
		case g == gen:
			outcomes["before"]++
		default:
			outcomes["during (renames finished, not yet reported)"]++
		}
		gen = g
	}
	t.Logf("%d kills in %v; rename %v (median of %d let finish); generation %d; kills landed: %v", kills, time.Since(start).Round(time.Millisecond), durations[len(durations)/2].Round(time.Millisecond), len(durations), gen, outcomes)
	if gen == 0 {
		t.Fatal("no rename ever landed")
	}
}

// checkLSPCrash checks the files, the store and the audit log after a
// kill and returns the generation the files are at.
func checkLSPCrash(t *testing.T, k int, ws *workspace.Workspace) int {
	t.Helper()
	root := ws.Root()
	sums := make([]string, len(lspCrashFiles))
	gen := -1
	for i, f := range lspCrashFiles {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatalf("kill %d: %s: %v", k, f, err)
		}
		s := sha256.Sum256(b)
		sums[i] = hex.EncodeToString(s[:])
		if i == 0 {
			m := lspCrashGenRE.FindSubmatch(b)
			if m == nil {
				t.Fatalf("kill %d: %s is not a file a rename wrote: %.60q", k, f, b)
			}
			gen = atoi(string(m[1]))
		}
	}
	for i, f := range lspCrashFiles {
		want := sha256.Sum256([]byte(lspCrashText(i, gen)))
		if sums[i] != hex.EncodeToString(want[:]) {
			t.Fatalf("kill %d: %s is not at generation %d like %s (the rename is half applied):\n%.80q", k, f, gen, lspCrashFiles[0], lspCrashFileHead(root, f))
		}
	}
	checkLSPCrashStore(t, k, ws, lspCrashFiles)
	return gen
}

// checkLSPCrashStore checks the store (checkCrashStore), and that each of
// files' newest audit row names its content now.
func checkLSPCrashStore(t *testing.T, k int, ws *workspace.Workspace, files []string) {
	t.Helper()
	root := ws.Root()
	checkCrashStore(t, k, ws)
	log, err := ws.Store().AuditLog(0)
	if err != nil {
		t.Fatalf("kill %d: audit log: %v", k, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatalf("kill %d: %v", k, err)
		}
		sum := sha256.Sum256(b)
		for _, e := range log { // newest first
			if e.Path != f {
				continue
			}
			if e.SHA256After != hex.EncodeToString(sum[:]) {
				t.Fatalf("kill %d: %s's newest audit row (#%d, %s %s) says %.12s, the file is %x", k, f, e.ID, e.Tool, e.Transport, e.SHA256After, sum[:6])
			}
			break
		}
	}
}

func lspCrashFileHead(root, f string) string {
	b, _ := os.ReadFile(filepath.Join(root, f))
	return string(b)
}
