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
	maxCases := flag.Int("max", 150, "stop after this many cases")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "mkreplay: -out is required")
		os.Exit(2)
	}
	if *name == "" {
		abs, _ := filepath.Abs(*repo)
		*name = filepath.Base(abs)
	}
	if err := run(*repo, *name, *out, *maxCases); err != nil {
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
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(f)
	enc := json.NewEncoder(zw)
	tmp, err := os.MkdirTemp("", "mkreplay")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	merges, err := git(repo, "rev-list", "--merges", "HEAD")
	if err != nil {
		return err
	}
	n := 0
	for _, m := range lines(merges) {
		if n >= maxCases {
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
			if !changed[p] || n >= maxCases {
				continue
			}
			vs := make([][]byte, 3)
			ok := true
			for i, rev := range []string{base, p1, p2} {
				b, err := git(repo, "show", rev+":"+p)
				if err != nil || !usable(b) {
					ok = false
					break
				}
				vs[i] = b
			}
			if !ok || bytes.Equal(vs[0], vs[1]) || bytes.Equal(vs[0], vs[2]) || bytes.Equal(vs[1], vs[2]) {
				continue
			}
			paths := []string{filepath.Join(tmp, "ours"), filepath.Join(tmp, "base"), filepath.Join(tmp, "theirs")}
			for i, v := range [][]byte{vs[1], vs[0], vs[2]} {
				if err := os.WriteFile(paths[i], v, 0o644); err != nil {
					return err
				}
			}
			merged, err := exec.Command("git", "merge-file", "-p", paths[0], paths[1], paths[2]).Output()
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				continue // a conflict
			}
			if err != nil {
				return err
			}
			if err := enc.Encode(map[string]string{"repo": name, "merge": m, "path": p,
				"base": string(vs[0]), "ours": string(vs[1]), "theirs": string(vs[2]), "merged": string(merged)}); err != nil {
				return err
			}
			n++
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "mkreplay: %d cases in %s\n", n, out)
	return f.Close()
}

func must(b []byte, err error) []byte {
	if err != nil {
		return nil
	}
	return b
}
