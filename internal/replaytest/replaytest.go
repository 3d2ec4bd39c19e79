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
func Opcodes(a, b []string) []Opcode {
	b2j := map[string][]int{}
	for j, s := range b {
		b2j[s] = append(b2j[s], j)
	}
	longest := func(alo, ahi, blo, bhi int) (int, int, int) {
		besti, bestj, bestk := alo, blo, 0
		j2len := map[int]int{}
		for i := alo; i < ahi; i++ {
			next := map[int]int{}
			for _, j := range b2j[a[i]] {
				if j < blo {
					continue
				}
				if j >= bhi {
					break
				}
				k := j2len[j-1] + 1
				next[j] = k
				if k > bestk {
					besti, bestj, bestk = i-k+1, j-k+1, k
				}
			}
			j2len = next
		}
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

// Input is the edit input for c's change under path with tag.
func Input(path, tag string, c Case) string {
	return "¶" + path + "#" + tag + "\n" + Ops(c.Base, c.Ours)
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

// Fresh judges the fresh-tag play: err is the edit's error, file what the
// file holds afterwards.
func Fresh(c Case, file string, err error) Outcome {
	if err == nil && file == c.Ours {
		return Exact
	}
	return Misapplied
}

// Stale judges the stale-tag play.
func Stale(c Case, file string, err error) Outcome {
	switch {
	case err == nil && file == c.Merged:
		return Recovered
	case err != nil && file == c.Theirs:
		return Refused
	}
	return Misapplied
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
