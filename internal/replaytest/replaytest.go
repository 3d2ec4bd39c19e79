// Package replaytest is what the merge-replay tests share: loading the
// corpus of real concurrent edits (testdata/conformance/merge-replay: for
// each merge in a public repository's history, a file both sides changed,
// with the merge base, both sides and git's clean merge), writing the real
// author's change as hashline ops the way the corpus README says (the
// opcodes of Python's difflib.SequenceMatcher with autojunk off, ported in
// Opcodes), and judging an outcome. Only tests import it.
package replaytest

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Case is one line of a merge-replay corpus file.
type Case struct {
	Repo   string `json:"repo"`
	Merge  string `json:"merge"`
	Path   string `json:"path"`
	Base   string `json:"base"`
	Ours   string `json:"ours"`
	Theirs string `json:"theirs"`
	Merged string `json:"merged"`
}

// Name identifies c in test names and reports.
func (c Case) Name() string {
	m := c.Merge
	if len(m) > 8 {
		m = m[:8]
	}
	return c.Repo + "@" + m + ":" + c.Path
}

// Files lists the corpus files under dir (the repository's
// testdata/conformance/merge-replay).
func Files(dir string) ([]string, error) {
	fs, err := filepath.Glob(filepath.Join(dir, "*.jsonl.gz"))
	if err != nil {
		return nil, err
	}
	sort.Strings(fs)
	if len(fs) == 0 {
		return nil, fmt.Errorf("replaytest: no *.jsonl.gz under %s", dir)
	}
	return fs, nil
}

// Load reads every case of one gzipped JSON-lines corpus file.
func Load(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("replaytest: %s: %w", path, err)
	}
	var out []Case
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("replaytest: %s: %w", path, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("replaytest: %s: %w", path, err)
	}
	return out, nil
}

// LoadAll reads every corpus file under dir, in file order.
func LoadAll(dir string) ([]Case, error) {
	fs, err := Files(dir)
	if err != nil {
		return nil, err
	}
	var out []Case
	for _, f := range fs {
		cs, err := Load(f)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	return out, nil
}

// Lines splits text into its lines without their "\n" (a final newline
// ends the last line; it does not start another).
func Lines(text string) []string {
	if text == "" {
		return nil
	}
	ls := strings.Split(text, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// Opcode is one of difflib's opcodes: a[I1:I2] became b[J1:J2].
type Opcode struct {
	Tag            byte // 'r'eplace, 'd'elete, 'i'nsert, 'e'qual
	I1, I2, J1, J2 int
}

// Opcodes is difflib.SequenceMatcher(None, a, b, autojunk=False)
// .get_opcodes(): the longest matching block first (earliest in a, then
// in b, on ties), recursively on both sides of it.
//
// Long: a port of difflib's find_longest_match, get_matching_blocks and
// get_opcodes, kept in their order and shape so that it can be read beside
// Python's source (it was checked equal to Python's on all 328 corpus cases).
func Opcodes(a, b []string) []Opcode {
	b2j := map[string][]int{}
	for j, s := range b {
		b2j[s] = append(b2j[s], j)
	}
	// j2len[j+1] is the length of the match ending at a[i-1], b[j] (Python's
	// dict, as two slices reset through the entries each pass set).
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	var prevSet, curSet []int
	longest := func(alo, ahi, blo, bhi int) (int, int, int) {
		besti, bestj, bestk := alo, blo, 0
		for i := alo; i < ahi; i++ {
			for _, j := range b2j[a[i]] {
				if j < blo {
					continue
				}
				if j >= bhi {
					break
				}
				k := prev[j] + 1
				cur[j+1] = k
				curSet = append(curSet, j+1)
				if k > bestk {
					besti, bestj, bestk = i-k+1, j-k+1, k
				}
			}
			for _, x := range prevSet {
				prev[x] = 0
			}
			prev, cur = cur, prev
			prevSet, curSet = curSet, prevSet[:0]
		}
		for _, x := range prevSet {
			prev[x] = 0
		}
		prevSet = prevSet[:0]
		for besti > alo && bestj > blo && a[besti-1] == b[bestj-1] {
			besti, bestj, bestk = besti-1, bestj-1, bestk+1
		}
		for besti+bestk < ahi && bestj+bestk < bhi && a[besti+bestk] == b[bestj+bestk] {
			bestk++
		}
		return besti, bestj, bestk
	}
	type block struct{ i, j, k int }
	var blocks []block
	queue := [][4]int{{0, len(a), 0, len(b)}}
	for len(queue) > 0 {
		q := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		alo, ahi, blo, bhi := q[0], q[1], q[2], q[3]
		i, j, k := longest(alo, ahi, blo, bhi)
		if k == 0 {
			continue
		}
		blocks = append(blocks, block{i, j, k})
		if alo < i && blo < j {
			queue = append(queue, [4]int{alo, i, blo, j})
		}
		if i+k < ahi && j+k < bhi {
			queue = append(queue, [4]int{i + k, ahi, j + k, bhi})
		}
	}
	sort.Slice(blocks, func(x, y int) bool {
		if blocks[x].i != blocks[y].i {
			return blocks[x].i < blocks[y].i
		}
		return blocks[x].j < blocks[y].j
	})
	var merged []block
	i1, j1, k1 := 0, 0, 0
	for _, bl := range blocks {
		if i1+k1 == bl.i && j1+k1 == bl.j {
			k1 += bl.k
			continue
		}
		if k1 > 0 {
			merged = append(merged, block{i1, j1, k1})
		}
		i1, j1, k1 = bl.i, bl.j, bl.k
	}
	if k1 > 0 {
		merged = append(merged, block{i1, j1, k1})
	}
	merged = append(merged, block{len(a), len(b), 0})
	var out []Opcode
	i, j := 0, 0
	for _, bl := range merged {
		var tag byte
		switch {
		case i < bl.i && j < bl.j:
			tag = 'r'
		case i < bl.i:
			tag = 'd'
		case j < bl.j:
			tag = 'i'
		}
		if tag != 0 {
			out = append(out, Opcode{tag, i, bl.i, j, bl.j})
		}
		i, j = bl.i+bl.k, bl.j+bl.k
		if bl.k > 0 {
			out = append(out, Opcode{'e', bl.i, i, bl.j, j})
		}
	}
	return out
}

// Ops writes base -> ours as a hashline section body, from Opcodes of
// their lines: `replace I1+1..I2:`, `delete I1+1..I2`, `insert after I1:`
// or `insert head:`, each body row prefixed by "+". Line numbers are the
// base's, as the tag names it.
func Ops(base, ours string) string {
	a, b := Lines(base), Lines(ours)
	var sb strings.Builder
	rows := func(j1, j2 int) {
		for _, r := range b[j1:j2] {
			sb.WriteString("+" + r + "\n")
		}
	}
	for _, op := range Opcodes(a, b) {
		switch op.Tag {
		case 'r':
			sb.WriteString("replace " + strconv.Itoa(op.I1+1) + ".." + strconv.Itoa(op.I2) + ":\n")
			rows(op.J1, op.J2)
		case 'd':
			sb.WriteString("delete " + strconv.Itoa(op.I1+1) + ".." + strconv.Itoa(op.I2) + "\n")
		case 'i':
			if op.I1 == 0 {
				sb.WriteString("insert head:\n")
			} else {
				sb.WriteString("insert after " + strconv.Itoa(op.I1) + ":\n")
			}
			rows(op.J1, op.J2)
		}
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// Outcome is how one play of a case ended.
type Outcome int

const (
	Exact      Outcome = iota // fresh tag: the file equals ours
	Recovered                 // stale tag: the file equals merged
	Refused                   // stale tag: refused, the file still theirs
	Misapplied                // anything else
)

func (o Outcome) String() string {
	return [...]string{"exact", "recovered", "refused", "misapplied"}[o]
}

// Player is one way to run an edit (the engine alone, the CLI's tools, MCP,
// the hub with the file open in an editor).
type Player interface {
	// Read puts content in the file rel (on disk or in the editor's buffer)
	// and reads it as an agent would, returning the tag it was shown.
	Read(rel, content string) (tag string, err error)
	// Change puts content in the file without a read: the other side's
	// change reaching the file.
	Change(rel, content string) error
	// Edit runs the edit tool with input; the error is the tool's refusal.
	Edit(input string) error
	// Content is what the file holds now.
	Content(rel string) (string, error)
}

// Play plays c through p as the corpus README says, under the folder dir
// (its own for each case): on a fresh tag the edit must leave ours; on a
// stale one (the file read as base, then changed to theirs) merged, or be
// refused with the file still theirs. err is a failure of the player
// itself (not of the edit).
func Play(p Player, dir string, c Case) (fresh, stale Outcome, err error) {
	play := func(rel, live string) (got string, editErr, err error) {
		tag, err := p.Read(rel, c.Base)
		if err != nil {
			return "", nil, err
		}
		if live != c.Base {
			if err := p.Change(rel, live); err != nil {
				return "", nil, err
			}
		}
		editErr = p.Edit("¶" + rel + "#" + tag + "\n" + Ops(c.Base, c.Ours))
		got, err = p.Content(rel)
		return got, editErr, err
	}
	got, editErr, err := play(dir+"/fresh/"+c.Path, c.Base)
	if err != nil {
		return Misapplied, Misapplied, err
	}
	fresh = Misapplied
	if editErr == nil && got == c.Ours {
		fresh = Exact
	}
	got, editErr, err = play(dir+"/stale/"+c.Path, c.Theirs)
	if err != nil {
		return fresh, Misapplied, err
	}
	switch {
	case editErr == nil && got == c.Merged:
		stale = Recovered
	case editErr != nil && got == c.Theirs:
		stale = Refused
	default:
		stale = Misapplied
	}
	return fresh, stale, nil
}

// Conflicting is c with theirs replaced by a change that git cannot merge
// with ours: the first line ours changes (or the place it inserts at) is
// changed differently. Merged is empty: the stale edit must be refused.
func Conflicting(c Case) Case {
	a := Lines(c.Base)
	for _, op := range Opcodes(a, Lines(c.Ours)) {
		if op.Tag == 'e' {
			continue
		}
		t := append([]string(nil), a[:op.I1]...)
		t = append(t, "conflicting change of the other side")
		if op.Tag == 'i' {
			t = append(t, a[op.I1:]...)
		} else {
			t = append(t, a[op.I1+1:]...)
		}
		c.Theirs = strings.Join(t, "\n") + "\n"
		c.Merged = ""
		c.Merge += "-conflict"
		return c
	}
	return c
}

// Subset is n cases spread evenly over cs (all of them when n >= len(cs)).
func Subset(cs []Case, n int) []Case {
	if n >= len(cs) {
		return cs
	}
	out := make([]Case, 0, n)
	for k := 0; k < n; k++ {
		out = append(out, cs[k*len(cs)/n])
	}
	return out
}

// Tally counts outcomes per repository.
type Tally struct {
	Cases, Exact, Recovered, Refused, Misapplied int
}

// Add counts one case's two plays.
func (t *Tally) Add(fresh, stale Outcome) {
	t.Cases++
	if fresh == Exact {
		t.Exact++
	}
	switch stale {
	case Recovered:
		t.Recovered++
	case Refused:
		t.Refused++
	default:
		t.Misapplied++
	}
}

// String renders t as a table row's cells.
func (t Tally) String() string {
	return fmt.Sprintf("exact %d/%d | recovered %d | refused %d | misapplied %d (fresh misapplied %d)",
		t.Exact, t.Cases, t.Recovered, t.Refused, t.Misapplied, t.Cases-t.Exact)
}

// Run plays every case of cs through p (each under its own folder), fails
// t for a fresh edit that does not land byte for byte and for a stale one
// that is misapplied, logs the counts per repository and returns them
// ("all" sums them).
func Run(t testing.TB, p Player, cs []Case) map[string]*Tally {
	t.Helper()
	tally := map[string]*Tally{"all": {}}
	var repos []string
	for k, c := range cs {
		fresh, stale, err := Play(p, "c"+strconv.Itoa(k), c)
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		if tally[c.Repo] == nil {
			tally[c.Repo] = &Tally{}
			repos = append(repos, c.Repo)
		}
		tally[c.Repo].Add(fresh, stale)
		tally["all"].Add(fresh, stale)
		if fresh != Exact {
			t.Errorf("%s: the edit on a fresh tag did not land as written", c.Name())
		}
		if stale == Misapplied {
			t.Errorf("%s: the edit on a stale tag was misapplied (neither git's merge nor refused)", c.Name())
		}
	}
	for _, r := range append(repos, "all") {
		t.Logf("%-18s %s", r, tally[r])
	}
	return tally
}

// Sample is n cases spread evenly over cs and, for every fourth of them,
// its Conflicting variant: what the paths other than the engine play.
func Sample(cs []Case, n int) []Case {
	var out []Case
	for k, c := range Subset(cs, n) {
		out = append(out, c)
		if k%4 == 0 {
			out = append(out, Conflicting(c))
		}
	}
	return out
}
