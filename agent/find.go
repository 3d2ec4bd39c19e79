package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/hashls/hashls/internal/names"
	"github.com/hashls/hashls/workspace"
	"github.com/hashls/hashls/workspace/search"
)

// Find limits (find.md "Limits & Caps").
const (
	findDefaultLimit   = 200
	findMaxLimit       = 200
	findDefaultTimeout = 5 * time.Second
	findMinTimeout     = 500 * time.Millisecond
	findMaxTimeout     = 60 * time.Second
	findMaxBytes       = 50 << 10
	findProgressEvery  = 200 * time.Millisecond
)

type findTool struct{}

func (findTool) Name() string { return "find" }
func (findTool) Description() string {
	return "Find files by glob, newest first, gitignore-aware: *.go matches at any depth, src/*.go only in src, a directory means all below it"
}
func (findTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"paths":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}],"description":"Globs, files or directories"},` +
		`"literal":{"type":"boolean","description":"paths are names as written, not globs"},` +
		`"hidden":{"type":"boolean","description":"include hidden files (default true)"},` +
		`"gitignore":{"type":"boolean","description":"respect .gitignore (default true)"},` +
		`"limit":{"type":"number","description":"1-200 (default 200)"},` +
		`"timeout":{"type":"number","description":"seconds, 0.5-60 (default 5)"}` +
		`},"required":["paths"],"additionalProperties":false}`)
}

type findArgs struct {
	Paths     json.RawMessage `json:"paths"`
	Literal   bool            `json:"literal"`
	Hidden    *bool           `json:"hidden"`
	Gitignore *bool           `json:"gitignore"`
	Limit     *float64        `json:"limit"`
	Timeout   *float64        `json:"timeout"`
}

type findDetails struct {
	ScopePath          string   `json:"scopePath"`
	FileCount          int      `json:"fileCount"`
	Files              []string `json:"files"`
	TotalMatches       int      `json:"totalMatches"` // before the limit
	Truncated          bool     `json:"truncated,omitempty"`
	ResultLimitReached bool     `json:"resultLimitReached,omitempty"`
	TimedOut           bool     `json:"timedOut,omitempty"`
	MissingPaths       []string `json:"missingPaths,omitempty"`
	Unreadable         int      `json:"unreadable,omitempty"` // directories the walk could not read
}

type findQuery struct {
	input string
	base  string // root-relative directory
	abs   string
	glob  *search.Glob
	file  bool // exact file input
}

func (findTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a findArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: "find: " + err.Error()}
	}
	entries, err := decodePaths(a.Paths, "globs or paths")
	if err != nil {
		return nil, err
	}
	limit := findDefaultLimit
	if a.Limit != nil {
		l := *a.Limit
		if math.IsNaN(l) || math.IsInf(l, 0) || l < 1 {
			return nil, &Error{Kind: KindUsage, Message: "Limit must be a positive number"}
		}
		limit = int(math.Min(math.Floor(l), findMaxLimit))
	}
	timeout := findDefaultTimeout
	if a.Timeout != nil && !math.IsNaN(*a.Timeout) {
		t := time.Duration(*a.Timeout * float64(time.Second))
		timeout = min(max(t, findMinTimeout), findMaxTimeout)
	}
	if !a.Literal {
		entries = expandDelimitedEntries(env, entries)
	}
	specs := make([]findSpec, len(entries))
	for i, e := range entries {
		specs[i] = findSpec{input: e, base: e}
		if name, rest, ok, _ := names.Cut(e); ok {
			specs[i].base = name + rest // a quoted name is a name, not a glob
		} else if !a.Literal {
			specs[i].base, specs[i].glob = splitGlobPath(e)
		}
	}
	return runFind(ctx, env, specs, a.Hidden == nil || *a.Hidden, a.Gitignore == nil || *a.Gitignore, limit, timeout)
}

// findSpec is one scope of a find: base, a path taken as it is written, and
// glob, matched below it ("" for base itself, or everything under a
// directory). The find tool splits its paths into them; glob and
// search_files' glob mode give base and glob apart, so that a directory
// named a[b] is a name, not a pattern.
type findSpec struct {
	input      string // as the caller wrote it, for messages
	base, glob string
}

// runFind is find, glob and search_files' glob mode: the paths matching
// specs, newest first, grouped by directory. It resolves the specs
// (findQueries), walks them (findWalk) and renders what was found
// (renderFind).
func runFind(ctx context.Context, env *Env, specs []findSpec, hidden, gitignore bool, limit int, timeout time.Duration) (*Result, error) {
	queries, missing, err := findQueries(env, specs)
	if err != nil {
		return nil, err
	}
	f, err := findWalk(ctx, env, queries, hidden, gitignore, timeout)
	if err != nil {
		return nil, err
	}
	f.missing, f.limit, f.timeout = missing, limit, timeout
	return renderFind(f), nil
}

// findings are what a find walk found, and what its text says about it.
type findings struct {
	items    []search.Found // newest first, Rel root-relative
	scopes   []string       // each query's scope, as the details name it
	missing  []string       // paths that do not exist
	timedOut bool
	// unreadable counts the directories the walk could not read.
	unreadable int
	limit      int
	timeout    time.Duration
}

// findQueries resolves specs to the queries a walk runs; missing are the
// specs' paths that do not exist (an error when none does).
func findQueries(env *Env, specs []findSpec) (queries []findQuery, missing []string, err error) {
	for _, sp := range specs {
		e, base, glob := sp.input, sp.base, sp.glob
		p, st, err := statScope(env, e, base)
		if err != nil {
			return nil, nil, err
		}
		if p.Abs == "/" {
			return nil, nil, &Error{Kind: KindUsage, Message: "Searching from root directory '/' is not allowed"}
		}
		if !st.Exists {
			missing = append(missing, e)
			continue
		}
		q := findQuery{input: e, base: p.Rel, abs: p.Abs}
		switch {
		case glob == "" && !st.Dir:
			q.file = true
		case !st.Dir:
			return nil, nil, &Error{Kind: KindUsage, Message: "Path is not a directory: " + base}
		default:
			if glob == "" {
				glob = "**/*"
			}
			g, err := search.CompileGlob(glob)
			if err != nil {
				return nil, nil, &Error{Kind: KindUsage, Message: err.Error()}
			}
			q.glob = g
		}
		queries = append(queries, q)
	}
	if len(queries) == 0 {
		return nil, nil, &Error{Kind: KindNotFound, Message: "Path not found: " + strings.Join(missing, ", ")}
	}
	return queries, missing, nil
}

// findWalk walks queries for at most timeout (a partial result then, not
// an error), with the open buffers the walk cannot see.
func findWalk(ctx context.Context, env *Env, queries []findQuery, hidden, gitignore bool, timeout time.Duration) (*findings, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var mu sync.Mutex
	found := 0
	lastProgress := time.Now()
	onMatch := func(string) {
		mu.Lock()
		defer mu.Unlock()
		found++
		if time.Since(lastProgress) >= findProgressEvery {
			lastProgress = time.Now()
			env.Progress(fmt.Sprintf("find: %d matches", found), found, 0)
		}
	}

	var items []search.Found // Rel is root-relative here
	seen := map[string]bool{}
	merge := len(queries) > 1
	timedOut := false
	unreadable := 0
	var scopes []string
	for _, q := range queries {
		if q.file {
			scopes = append(scopes, q.base)
			if !seen[q.base] {
				seen[q.base] = true
				var mt time.Time
				if st, err := env.WS.Stat(workspace.Path{Abs: q.abs, Rel: q.base}); err == nil {
					mt = st.ModTime
				}
				items = append(items, search.Found{Rel: q.base, ModTime: mt})
			}
			continue
		}
		scopes = append(scopes, joinRel(q.base, q.glob.String()))
		if timedOut {
			continue
		}
		dir, err := env.WS.OpenDir(workspace.Path{Abs: q.abs, Rel: q.base})
		if err != nil {
			return nil, err
		}
		fo := search.FindOptions{Root: q.abs, Dir: dir, Glob: q.glob, Hidden: hidden, Gitignore: gitignore}
		if env.Progress != nil {
			fo.OnMatch = onMatch
		}
		res, err := search.Find(ctx, fo)
		dir.Close()
		if err != nil {
			return nil, &Error{Kind: KindIO, Message: fmt.Sprintf("find %s: %v", q.input, err), Err: err}
		}
		unreadable += res.Unreadable
		if extra := openBuffersFound(env, q, search.WalkOptions{Hidden: hidden, Gitignore: gitignore}, res.Paths); len(extra) > 0 {
			res.Paths = append(res.Paths, extra...)
			search.SortNewestFirst(res.Paths)
		}
		if res.TimedOut {
			if parent := context.Cause(ctx); parent != nil && !errors.Is(parent, context.DeadlineExceeded) {
				return nil, parent // the caller cancelled
			}
			timedOut = true
		}
		if !merge && q.base == "." {
			items = res.Paths // already newest first, paths already root-relative
			continue
		}
		for _, f := range res.Paths {
			f.Rel = joinRel(q.base, f.Rel)
			if merge {
				if seen[f.Rel] {
					continue
				}
				seen[f.Rel] = true
			}
			items = append(items, f)
		}
	}
	if merge {
		search.SortNewestFirst(items)
	}
	return &findings{items: items, scopes: scopes, timedOut: timedOut, unreadable: unreadable}, nil
}

// renderFind is the text and details of what a find found.
func renderFind(f *findings) *Result {
	items, scopes, missing, timedOut, limit, timeout, unreadable := f.items, f.scopes, f.missing, f.timedOut, f.limit, f.timeout, f.unreadable
	d := &findDetails{ScopePath: strings.Join(scopes, ", "), TotalMatches: len(items), MissingPaths: missing, TimedOut: timedOut, Files: []string{}}
	if len(items) > limit {
		items = items[:limit]
		d.ResultLimitReached = true
		d.Truncated = true
	}
	if timedOut {
		d.Truncated = true
	}
	var notes []string
	if timedOut {
		notes = append(notes, fmt.Sprintf("find timed out after %gs; returning %d partial matches — increase timeout or narrow pattern", timeout.Seconds(), len(items)))
	}
	if d.ResultLimitReached {
		notes = append(notes, fmt.Sprintf("Showing the %d newest of %d matches; raise limit (max %d) or narrow the pattern.", limit, d.TotalMatches, findMaxLimit))
	}
	if len(missing) > 0 {
		notes = append(notes, "Skipped missing paths: "+strings.Join(missing, ", "))
	}
	if unreadable > 0 {
		d.Unreadable = unreadable
		notes = append(notes, unreadableNote(unreadable))
	}
	if len(items) == 0 {
		text := "No files found matching pattern"
		if len(notes) > 0 {
			text += "\n" + strings.Join(notes, "\n")
		}
		return &Result{Text: text + "\n", Details: d}
	}

	// Group by directory in order of first appearance (newest first).
	var order []string
	groups := map[string][]string{}
	for _, it := range items {
		shown := it.Rel
		if it.IsDir {
			shown += "/"
		}
		d.Files = append(d.Files, shown)
		dir, name := path.Split(it.Rel)
		dir = strings.TrimSuffix(dir, "/")
		if it.IsDir {
			name += "/"
		}
		if _, ok := groups[dir]; !ok {
			order = append(order, dir)
		}
		groups[dir] = append(groups[dir], name)
	}
	d.FileCount = len(d.Files)
	var sb strings.Builder
	// Root-level matches come first, without a header.
	if names, ok := groups[""]; ok {
		for _, n := range names {
			sb.WriteString(showName(n) + "\n")
		}
	}
	for _, dir := range order {
		if dir == "" {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString("# " + showName(dir) + "/\n")
		for _, n := range groups[dir] {
			sb.WriteString(showName(n) + "\n")
		}
	}
	out := sb.String()
	if len(notes) > 0 {
		out += "\n" + strings.Join(notes, "\n") + "\n"
	}
	if len(out) > findMaxBytes {
		out = truncateHeadBytes(out, findMaxBytes) + fmt.Sprintf("\n[Output truncated at %d KiB; lower limit or narrow the pattern.]\n", findMaxBytes>>10)
		d.Truncated = true
	}
	return &Result{Text: out, Details: d}
}

// openBuffersFound returns the editor's open buffers below q's directory
// that its glob matches and the walk did not find (files not saved yet),
// with hidden names and gitignore applied to them as the walk applies them
// to the disk's (opts), as paths relative to q's directory.
func openBuffersFound(env *Env, q findQuery, opts search.WalkOptions, found []search.Found) []search.Found {
	bufs := openBuffersUnder(env, workspace.Path{Abs: q.abs, Rel: q.base}, opts)
	if len(bufs) == 0 {
		return nil
	}
	have := make(map[string]bool, len(found))
	for _, f := range found {
		have[f.Rel] = true
	}
	var out []search.Found
	for _, b := range bufs {
		if have[b.rel] || (q.glob != nil && !q.glob.Match(b.rel)) {
			continue
		}
		f := search.Found{Rel: b.rel}
		if st, err := env.WS.Stat(b.path); err == nil {
			f.ModTime = st.ModTime
		}
		out = append(out, f)
	}
	return out
}

// joinRel joins a root-relative base ("." for the root) and a relative path.
func joinRel(base, rel string) string {
	if base == "." || base == "" {
		return rel
	}
	return base + "/" + rel
}
