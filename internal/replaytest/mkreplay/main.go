// Command mkreplay builds merge-replay cases (the format of
// testdata/conformance/merge-replay, see its README) from a git
// repository's history, so the replay test can be played on repositories
// other than the corpus's:
//
//	go run ./internal/replaytest/mkreplay -repo DIR -name OWNER/NAME -out DIR/NAME.jsonl.gz [-max 150]
//	HASHLS_MERGE_REPLAY=DIR go test ./edit -run TestMergeReplay -v
//
// For each merge commit (newest first), every file that both parents
// changed since their merge base is a case when git merge-file merges it
// cleanly and its four versions are UTF-8 text with LF line breaks, end in
// a newline and are at most 60 KB: base, ours (the first parent), theirs
// (the second) and the merge.
//
// With -base, -ours and -theirs (three directories: the same tree at a
// common ancestor and on two lines of history that diverged from it, such
// as a release branch and the main line), every file all three hold that
// both sides changed is a case on the same terms; -merge names the three
// versions in the cases:
//
//	go run ./internal/replaytest/mkreplay -base B -ours O -theirs T -name golang/go -merge go1.22rc1:go1.22.12:go1.23.0 -out F.jsonl.gz
//
// heldout.sh builds the held-out set of BENCHMARKS.md this way from
// module versions the Go module proxy serves.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

func main() {
	repo := flag.String("repo", ".", "the git repository")
	name := flag.String("name", "", "the repository's name in the cases (default: the folder's)")
	out := flag.String("out", "", "the .jsonl.gz file to write")
	maxCases := flag.Int("max", 150, "stop after this many cases (with -base: no limit unless set)")
	baseDir := flag.String("base", "", "with -ours and -theirs: the common ancestor's tree")
	oursDir := flag.String("ours", "", "one side's tree")
	theirsDir := flag.String("theirs", "", "the other side's tree")
	merge := flag.String("merge", "", "with -base: what the cases' merge field says (the three versions)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "mkreplay: -out is required")
		os.Exit(2)
	}
	if *name == "" {
		abs, _ := filepath.Abs(*repo)
		*name = filepath.Base(abs)
	}
	var err error
	if *baseDir != "" || *oursDir != "" || *theirsDir != "" {
		limit := -1
		flag.Visit(func(f *flag.Flag) {
			if f.Name == "max" {
				limit = *maxCases
			}
		})
		err = runTrees(*baseDir, *oursDir, *theirsDir, *name, *merge, *out, limit)
	} else {
		err = run(*repo, *name, *out, *maxCases)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkreplay:", err)
		os.Exit(1)
	}
}

func git(repo string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return b, nil
}

func lines(b []byte) []string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// usable reports whether a version can be a case's: UTF-8 text, LF line
// breaks, a final newline, at most 60 KB.
func usable(b []byte) bool {
	return len(b) > 0 && len(b) <= 60000 && utf8.Valid(b) && !bytes.ContainsAny(b, "\r\x00") && b[len(b)-1] == '\n'
}

func run(repo, name, out string, maxCases int) error {
	w, err := create(out)
	if err != nil {
		return err
	}
	defer w.abort()
	merges, err := git(repo, "rev-list", "--merges", "HEAD")
	if err != nil {
		return err
	}
	for _, m := range lines(merges) {
		if w.n >= maxCases {
			break
		}
		parents := strings.Fields(string(must(git(repo, "rev-list", "--parents", "-n", "1", m))))
		if len(parents) != 3 {
			continue // an octopus merge
		}
		p1, p2 := parents[1], parents[2]
		bb, err := git(repo, "merge-base", p1, p2)
		if err != nil {
			continue
		}
		base := strings.TrimSpace(string(bb))
		changed := map[string]bool{}
		for _, p := range lines(must(git(repo, "diff", "--name-only", "--no-renames", base, p1))) {
			changed[p] = true
		}
		for _, p := range lines(must(git(repo, "diff", "--name-only", "--no-renames", base, p2))) {
			if !changed[p] || w.n >= maxCases {
				continue
			}
			vs := make([][]byte, 3)
			ok := true
			for i, rev := range []string{base, p1, p2} {
				b, err := git(repo, "show", rev+":"+p)
				if err != nil {
					ok = false
					break
				}
				vs[i] = b
			}
			if !ok {
				continue
			}
			if err := w.add(name, m, p, vs[0], vs[1], vs[2]); err != nil {
				return err
			}
		}
	}
	return w.close()
}

// caseWriter writes cases to a gzipped JSON-lines file.
type caseWriter struct {
	out string
	f   *os.File
	zw  *gzip.Writer
	enc *json.Encoder
	tmp string // where git merge-file's inputs are written
	n   int    // cases written
}

func create(out string) (*caseWriter, error) {
	tmp, err := os.MkdirTemp("", "mkreplay")
	if err != nil {
		return nil, err
	}
	f, err := os.Create(out)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	zw := gzip.NewWriter(f)
	return &caseWriter{out: out, f: f, zw: zw, enc: json.NewEncoder(zw), tmp: tmp}, nil
}

// add writes the case of one file when its three versions are usable,
// pairwise different, and git merge-file merges them cleanly.
func (w *caseWriter) add(name, merge, path string, base, ours, theirs []byte) error {
	if !usable(base) || !usable(ours) || !usable(theirs) ||
		bytes.Equal(base, ours) || bytes.Equal(base, theirs) || bytes.Equal(ours, theirs) {
		return nil
	}
	paths := []string{filepath.Join(w.tmp, "ours"), filepath.Join(w.tmp, "base"), filepath.Join(w.tmp, "theirs")}
	for i, v := range [][]byte{ours, base, theirs} {
		if err := os.WriteFile(paths[i], v, 0o644); err != nil {
			return err
		}
	}
	merged, err := exec.Command("git", "merge-file", "-p", paths[0], paths[1], paths[2]).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil // a conflict
	}
	if err != nil {
		return err
	}
	w.n++
	return w.enc.Encode(map[string]string{"repo": name, "merge": merge, "path": path,
		"base": string(base), "ours": string(ours), "theirs": string(theirs), "merged": string(merged)})
}

// close finishes the file and says how many cases it holds.
func (w *caseWriter) close() error {
	defer os.RemoveAll(w.tmp)
	if err := w.zw.Close(); err != nil {
		w.f.Close()
		return err
	}
	fmt.Fprintf(os.Stderr, "mkreplay: %d cases in %s\n", w.n, w.out)
	return w.f.Close()
}

// abort removes the temporary folder (after close, a no-op).
func (w *caseWriter) abort() { os.RemoveAll(w.tmp) }

// runTrees writes the cases of three trees: every regular file the base
// holds at the same path as both sides (in lexical order), up to limit
// cases (none: -1).
func runTrees(baseDir, oursDir, theirsDir, name, merge, out string, limit int) error {
	if baseDir == "" || oursDir == "" || theirsDir == "" {
		return errors.New("-base, -ours and -theirs go together")
	}
	w, err := create(out)
	if err != nil {
		return err
	}
	defer w.abort()
	err = filepath.WalkDir(baseDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || (limit >= 0 && w.n >= limit) {
			return err
		}
		rel, err := filepath.Rel(baseDir, p)
		if err != nil {
			return err
		}
		var vs [3][]byte
		for i, dir := range []string{baseDir, oursDir, theirsDir} {
			fi, err := os.Lstat(filepath.Join(dir, rel))
			if err != nil || !fi.Mode().IsRegular() || fi.Size() > 60000 {
				return nil // not on this side, or too large for a case
			}
			if vs[i], err = os.ReadFile(filepath.Join(dir, rel)); err != nil {
				return err
			}
		}
		return w.add(name, merge, filepath.ToSlash(rel), vs[0], vs[1], vs[2])
	})
	if err != nil {
		return err
	}
	return w.close()
}

func must(b []byte, err error) []byte {
	if err != nil {
		return nil
	}
	return b
}
