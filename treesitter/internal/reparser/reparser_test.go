package reparser

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCopyIsPinned: runtime/ is the runtime of the binding version go.mod
// requires (trees from one runtime are read and freed by the other, so
// they must be the same version), file for file as runtime/UPSTREAM
// records it, parser.c with upstream.patch applied, and nothing else.
func TestCopyIsPinned(t *testing.T) {
	up, err := os.ReadFile("runtime/UPSTREAM")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(up)), "\n")
	mod, ver, _ := strings.Cut(lines[0], " ")
	if want := requiredVersion(t, mod); ver != want {
		t.Fatalf("runtime/ is %s %s but go.mod requires %s: run sync.sh", mod, ver, want)
	}
	patch, err := os.ReadFile("upstream.patch")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{"UPSTREAM": true, "LICENSE": true}
	for _, l := range lines[1:] {
		sum, name, _ := strings.Cut(l, " ")
		listed[name] = true
		b, err := os.ReadFile(filepath.Join("runtime", name))
		if err != nil {
			t.Error(err)
			continue
		}
		if name == "parser.c" {
			if b, err = unpatch(b, patch); err != nil {
				t.Errorf("parser.c: %v", err)
				continue
			}
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
			t.Errorf("runtime/%s differs from the binding's copy (run sync.sh; changes go in upstream.patch)", name)
		}
	}
	checkAgainstModule(t, mod, ver, lines[1:])
	ents, err := os.ReadDir("runtime")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !listed[e.Name()] {
			t.Errorf("runtime/%s is not in runtime/UPSTREAM", e.Name())
		}
	}
}

// requiredVersion is mod's version in the module's go.mod.
func requiredVersion(t *testing.T, mod string) string {
	f, err := os.Open("../../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 2 && fs[0] == mod {
			return fs[1]
		}
		if len(fs) >= 3 && fs[0] == "require" && fs[1] == mod {
			return fs[2]
		}
	}
	t.Fatalf("go.mod does not require %s", mod)
	return ""
}

// unpatch undoes a unified diff's hunks on b: each hunk's "+" side must
// occur exactly once and becomes its "-" side.
func unpatch(b, patch []byte) ([]byte, error) {
	s := string(b)
	for _, h := range strings.Split(string(patch), "\n@@")[1:] {
		var from, to strings.Builder
		for _, l := range strings.Split(strings.TrimSuffix(h, "\n"), "\n")[1:] {
			switch {
			case strings.HasPrefix(l, "+"):
				to.WriteString(l[1:] + "\n")
			case strings.HasPrefix(l, "-"):
				from.WriteString(l[1:] + "\n")
			case strings.HasPrefix(l, " "):
				from.WriteString(l[1:] + "\n")
				to.WriteString(l[1:] + "\n")
			}
		}
		if n := strings.Count(s, to.String()); n != 1 {
			return nil, fmt.Errorf("upstream.patch's change is applied %d times, not once (run sync.sh)", n)
		}
		s = strings.Replace(s, to.String(), from.String(), 1)
	}
	return []byte(s), nil
}

// checkAgainstModule compares runtime/UPSTREAM's hashes with the module's
// own files, when the go command can say where they are (not under wine):
// every runtime source of the module is listed, with its hash.
func checkAgainstModule(t *testing.T, mod, ver string, listed []string) {
	cmd := exec.Command("go", "list", "-m", "-json", mod+"@"+ver)
	cmd.Dir = "../../.."
	out, err := cmd.Output()
	if err != nil {
		t.Logf("not compared with the module's files (go list: %v)", err)
		return
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Logf("not compared with the module's files (no directory in %q)", out)
		return
	}
	sums := map[string]string{}
	for _, l := range listed {
		sum, name, _ := strings.Cut(l, " ")
		sums[name] = sum
	}
	files, err := filepath.Glob(filepath.Join(m.Dir, "*.[ch]"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasPrefix(name, "bindings.") || name == "query.c" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got := sha256.Sum256(b)
		if sums[name] != hex.EncodeToString(got[:]) {
			t.Errorf("%s of %s %s is not in runtime/UPSTREAM as it is (run sync.sh)", name, mod, ver)
		}
	}
}
