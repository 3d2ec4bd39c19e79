package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashls/hashls/workspace"
	"github.com/hashls/hashls/workspace/search"
)

// Suffix resolution (read.md flow step 6): a missing relative path that
// is the tail of exactly one file's path resolves to it.
const (
	suffixTimeout    = 5 * time.Second
	suffixMaxMatches = 10
)

// suffixMatches returns the files (root-relative, at most
// suffixMaxMatches+1) whose path ends in want at a path-element boundary;
// hidden and gitignored files are skipped, and the walk gives up after
// suffixTimeout.
func suffixMatches(ctx context.Context, env *Env, want string) []string {
	want = path.Clean(filepath.ToSlash(want))
	if want == "." || strings.HasPrefix(want, "../") || path.IsAbs(want) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, suffixTimeout)
	defer cancel()
	var out []string
	dir, err := env.WS.OpenDir(workspace.Path{Abs: env.WS.Root(), Rel: "."})
	if err != nil {
		return nil
	}
	defer dir.Close()
	opts := search.FindOptions{Root: env.WS.Root(), Dir: dir, Gitignore: true, OnMatch: func(rel string) {
		if rel == want || strings.HasSuffix(rel, "/"+want) {
			out = append(out, rel)
			if len(out) > suffixMaxMatches {
				cancel()
			}
		}
	}}
	res, err := search.Find(ctx, opts)
	if err != nil || res == nil {
		return out
	}
	dirs := map[string]bool{}
	for _, f := range res.Paths {
		if f.IsDir {
			dirs[f.Rel] = true
		}
	}
	files := out[:0]
	for _, m := range out {
		if !dirs[m] {
			files = append(files, m)
		}
	}
	return files
}

// resolveBySuffix is read's answer for a missing path: ok when it was
// resolved (the read of the match, its text prefixed with a note), or an
// error listing several matches; ok false with no error when nothing
// matched.
func resolveBySuffix(ctx context.Context, env *Env, t readTool, given, pathStr, selector string) (*Result, bool, error) {
	matches := suffixMatches(ctx, env, pathStr)
	switch {
	case len(matches) == 0:
		return nil, false, nil
	case len(matches) > 1:
		list := matches
		more := ""
		if len(list) > suffixMaxMatches {
			list, more = list[:suffixMaxMatches], "\n  …"
		}
		return nil, true, &Error{Kind: KindNotFound, Message: fmt.Sprintf("Path '%s' not found; %d files end with it:\n  %s%s\nRead one of them by its full path.", pathStr, len(matches), strings.Join(list, "\n  "), more)}
	}
	args, err := json.Marshal(readArgs{Path: matches[0] + selector})
	if err != nil {
		return nil, true, &Error{Kind: KindInternal, Message: "read: " + err.Error(), Err: err}
	}
	res, err := t.Run(ctx, env, args)
	if err != nil {
		return nil, true, err
	}
	res.Text = fmt.Sprintf("[Path '%s' not found; resolved to '%s' via suffix match]\n", given, matches[0]) + res.Text
	switch d := res.Details.(type) {
	case *readDetails:
		d.SuffixResolution = &suffixResolution{From: pathStr, To: matches[0]}
	}
	return res, true, nil
}

type suffixResolution struct {
	From string `json:"from"`
	To   string `json:"to"`
}
