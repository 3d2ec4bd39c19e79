package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/internal/ctxio"
	"github.com/hashls/hashls/workspace"
	"github.com/hashls/hashls/workspace/search"
)

// Search limits (search.md "Limits & Caps").
const (
	searchPerFileMulti    = 20      // matches shown per file in multi-file scopes
	searchPerFileSingle   = 200     // matches shown for a single-file scope
	searchInternalCap     = 2000    // matches rendered per call at most
	searchMaxColumns      = 512     // characters per shown line
	searchNotesReserve    = 2 << 10 // room kept under the cap for the notes
	searchContextBefore   = 1
	searchContextAfter    = 3
	searchMaxRenderedFile = 64 << 20 // larger files are streamed: no context, no snapshot
)

type searchTool struct{}

func (searchTool) Name() string { return "search" }
func (searchTool) Description() string {
	return "Search file contents with a Go RE2 regex, gitignore-aware: files under ¶PATH#TAG headers with *N: match and N: context rows, 20 files a page"
}
func (searchTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"pattern":{"type":"string","description":"Go RE2 regex"},` +
		`"paths":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}],"description":"Files, directories or globs; one file may take :A-B"},` +
		`"literal":{"type":"boolean","description":"pattern is plain text"},` +
		`"i":{"type":"boolean","description":"case-insensitive"},` +
		`"gitignore":{"type":"boolean","description":"respect .gitignore (default true)"},` +
		`"skip":{"type":"number","description":"files to skip: the next page"}` +
		`},"required":["pattern","paths"],"additionalProperties":false}`)
}

type searchArgs struct {
	Pattern   string          `json:"pattern"`
	Paths     json.RawMessage `json:"paths"`
	I         bool            `json:"i"`
	Literal   bool            `json:"literal"`
	Gitignore *bool           `json:"gitignore"`
	Skip      *float64        `json:"skip"`
}

// searchDetails is the structured part of a search result.
type searchDetails struct {
	ScopePath           string         `json:"scopePath"`
	MatchCount          int            `json:"matchCount"`   // matches shown on this page
	FileCount           int            `json:"fileCount"`    // files on this page
	Files               []string       `json:"files"`        // files on this page
	FileMatches         map[string]int `json:"fileMatches"`  // matching lines per file on this page
	TotalMatches        int            `json:"totalMatches"` // matching lines in the whole scope (exact)
	TotalFiles          int            `json:"totalFiles"`   // matching files in the whole scope
	FilesSearched       int            `json:"filesSearched"`
	Skip                int            `json:"skip,omitempty"`
	NextSkip            int            `json:"nextSkip,omitempty"`
	FileLimitReached    bool           `json:"fileLimitReached,omitempty"`
	PerFileLimitReached bool           `json:"perFileLimitReached,omitempty"`
	LinesTruncated      bool           `json:"linesTruncated,omitempty"`
	Truncated           bool           `json:"truncated,omitempty"`
	MissingPaths        []string       `json:"missingPaths,omitempty"`
	ArchiveSkipped      []string       `json:"archiveSkipped,omitempty"` // unreadable archive members
	BinarySkipped       int            `json:"binarySkipped,omitempty"`
	Unreadable          int            `json:"unreadable,omitempty"`
	TooLong             int            `json:"tooLong,omitempty"`
	// matches are the match rows shown, in output order (search_files
	// gives them as data; the search tool's own answer is the text).
	matches []searchMatch
}

// searchMatch is one matching line as the search output shows it: the
// root-relative path ("archive:member" for an archive member), the line
// number and the line's text without its line break, cut at
// searchMaxColumns characters (Cut set).
type searchMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
	Cut  bool   `json:"cut,omitempty"`
	end  int    // where its row ends in the output (bytes), for the output cap
}

// searchTarget is one resolved paths entry.
type searchTarget struct {
	input  string
	path   workspace.Path
	isDir  bool
	glob   *search.Glob // nil: the whole directory, or an exact file
	ranges []workspace.LineRange
	// Archive members: path is the archive, member the selector after ':'
	// ("" for every member; a glob; or a member or member directory).
	archive    bool
	member     string
	memberGlob *search.Glob
}

// exactMember reports whether t names one archive member.
func (t searchTarget) exactMember() bool {
	return t.archive && t.member != "" && t.memberGlob == nil && !strings.HasSuffix(t.member, "/")
}

func (searchTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a searchArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: "search: " + err.Error()}
	}
	skip := 0
	if a.Skip != nil {
		if *a.Skip < 0 || math.IsNaN(*a.Skip) || math.IsInf(*a.Skip, 0) {
			return nil, &Error{Kind: KindUsage, Message: "Skip must be a non-negative number"}
		}
		skip = int(math.Min(math.Floor(*a.Skip), 1<<30))
	}
	entries, err := decodePaths(a.Paths, "paths or globs")
	if err != nil {
		return nil, err
	}
	return runSearch(ctx, env, searchQuery{pattern: a.Pattern, literal: a.Literal, i: a.I, entries: entries, gitignore: a.Gitignore == nil || *a.Gitignore, skip: skip})
}

// searchQuery is one search, as search and search_files ask for it.
type searchQuery struct {
	pattern string // a Go RE2 regex, or text when literal
	literal bool
	i       bool // case-insensitive
	// entries are search's paths: files, directories, globs, line-range
	// selectors, archive members. search_files gives scope instead.
	entries   []string
	scope     *literalScope
	gitignore bool
	skip      int
}

// literalScope is a path taken as it is written (a directory named a[b]
// is a name) and a glob matched below it ("" for all).
type literalScope struct{ path, glob string }

// runSearch is search and search_files' text and regex modes: one engine,
// one walk, one result format. It compiles the query and resolves its
// paths (prepareSearch), finds the matching files (scanTargets), renders a
// page of them (searchPage) and says what the page holds (renderSearch).
func runSearch(ctx context.Context, env *Env, q searchQuery) (*Result, error) {
	m, targets, missing, err := prepareSearch(env, q)
	if err != nil {
		return nil, err
	}
	lim := env.limits()
	skip := q.skip
	gitignore := q.gitignore
	single := len(targets) == 1 && !targets[0].isDir && targets[0].glob == nil && (!targets[0].archive || targets[0].exactMember())

	d := &searchDetails{ScopePath: scopeOf(targets), MissingPaths: missing, FileMatches: map[string]int{}, Files: []string{}}
	if single {
		d.Skip = 0
	} else {
		d.Skip = skip
	}

	// Pass 1: find the matching files (parallel, counts only).
	hits, err := scanTargets(ctx, env, m, targets, gitignore, d)
	if err != nil {
		return nil, err
	}
	d.TotalFiles = len(hits)
	for _, h := range hits {
		d.TotalMatches += h.lines
	}

	// Pass 2: render the page.
	page := hits
	perFile := searchPerFileSingle
	if !single {
		perFile = searchPerFileMulti
		if skip > len(page) {
			skip = len(page)
		}
		page = page[skip:]
		if len(page) > lim.SearchFiles {
			page = page[:lim.SearchFiles]
			d.FileLimitReached = true
			d.NextSkip = skip + lim.SearchFiles
		}
	}
	var ranges []workspace.LineRange
	if single {
		ranges = targets[0].ranges
	}
	o := &searchOutcome{d: d, single: single, skip: skip, maxBytes: lim.SearchBytes}
	if single {
		o.singlePath = targets[0].path.Rel
	}
	if err := searchPage(ctx, env, m, page, perFile, ranges, o); err != nil {
		return nil, err
	}
	return renderSearch(o), nil
}

// searchOutcome is a rendered search page and what its notes say of it.
type searchOutcome struct {
	d          *searchDetails
	text       string   // the page's files, rendered
	notes      []string // what the rendering skipped
	shown      []Shown  // the files shown with a tag
	single     bool     // a search of one file
	singlePath string   // that file
	skip       int      // the files before the page
	pageFiles  int      // the files the page holds
	maxBytes   int      // the page's bound (Limits.SearchBytes)
}

// prepareSearch compiles q's pattern and resolves its paths to targets;
// missing are the paths that do not exist.
func prepareSearch(env *Env, q searchQuery) (m *search.Matcher, targets []searchTarget, missing []string, err error) {
	pattern := strings.TrimSpace(q.pattern)
	if pattern == "" {
		return nil, nil, nil, &Error{Kind: KindUsage, Message: "Pattern must not be empty"}
	}
	if q.literal {
		// Every character as itself, leading and trailing spaces too.
		pattern = regexp.QuoteMeta(q.pattern)
	}
	m, err = search.Compile(pattern, q.i)
	if err != nil {
		return nil, nil, nil, &Error{Kind: KindUsage, Message: err.Error() + `; argument "pattern" is a Go RE2 regex: escape a metacharacter (\ ( [ { . * + ? | ^ $) with \ to match it literally`, Err: err}
	}
	if q.scope != nil {
		targets, err = resolveLiteralScope(env, *q.scope)
	} else {
		targets, missing, err = resolveSearchTargets(env, expandDelimitedEntries(env, q.entries))
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return m, targets, missing, nil
}

// searchPage renders page's files into o, within the page's bounds, and
// records the snapshots it shows. A file that would overflow the page
// starts the next one.
func searchPage(ctx context.Context, env *Env, m *search.Matcher, page []searchHit, perFile int, ranges []workspace.LineRange, o *searchOutcome) error {
	d, single, skip, lim := o.d, o.single, o.skip, env.limits()
	var sb strings.Builder
	budget := searchInternalCap
	var notes []string
	var recs []workspace.Recording // snapshots of the shown files, recorded in one transaction
	var shownFiles []Shown
	// The page's files are rendered ahead in parallel (each is read, tagged
	// and formatted on its own) and taken here in order, so the page is the
	// one rendering them one by one gives: this is the serial tail of every
	// search, after the parallel scan.
	rendered := renderAhead(ctx, env, m, page, perFile, ranges)
	defer rendered.stop()
	for i, h := range page {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fr, rec, err := rendered.get(i)
		if err == nil && fr.shown > budget {
			// Rendered ahead with the per-file cap; the page's remaining
			// budget is smaller: render it again with that.
			var one []workspace.Recording
			fr, err = renderSearchFile(ctx, env, m, h, perFile, min(perFile, budget), ranges, &one)
			rec = one
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("Skipped %s: %v", h.rel, err))
			continue
		}
		if fr.shown == 0 {
			continue // changed since pass 1 (or an editor buffer differs)
		}
		if !single && len(d.Files) > 0 && sb.Len()+len(fr.text) > lim.SearchBytes-searchNotesReserve {
			// The page is full: this file starts the next one, so that no
			// file is skipped. Its snapshot was not shown: not recorded.
			page = page[:i]
			d.NextSkip = skip + i
			d.Truncated = true
			break
		}
		budget -= fr.shown
		recs = append(recs, rec...)
		if fr.seenContent != nil {
			// Its snapshot is the last recording: the rows shown go with it.
			recs[len(recs)-1].Seen = nonNil(fr.seen)
		}
		for _, mt := range fr.matches {
			mt.end += sb.Len()
			d.matches = append(d.matches, mt)
		}
		sb.WriteString(fr.text)
		if fr.tag != "" {
			shownFiles = append(shownFiles, Shown{Path: h.rel, Tag: fr.tag, SHA256: fr.sha256})
		}
		d.Files = append(d.Files, h.rel)
		d.FileMatches[h.rel] = fr.total
		d.MatchCount += fr.shown
		if fr.total > fr.shown {
			d.PerFileLimitReached = true
		}
		if fr.linesTruncated {
			d.LinesTruncated = true
		}
	}
	if err := env.WS.RecordReads(recs); err != nil {
		return err
	}
	d.FileCount = len(d.Files)
	if single && len(ranges) > 0 {
		// Pass 1 counted the whole file; the selector narrows it.
		d.TotalMatches, d.TotalFiles = d.MatchCount, d.FileCount
		for _, n := range d.FileMatches {
			d.TotalMatches = n
		}
	}
	o.text, o.notes, o.shown, o.pageFiles = sb.String(), notes, shownFiles, len(page)
	return nil
}

// renderSearch is the text of a rendered search page: its files, then the
// notes on what it holds and skipped, within the page's bound.
func renderSearch(o *searchOutcome) *Result {
	d, single, skip, notes, missing := o.d, o.single, o.skip, o.notes, o.d.MissingPaths
	// Notes after the results.
	if d.PerFileLimitReached {
		if single {
			notes = append(notes, fmt.Sprintf("Showing the first %d of %d matching lines; narrow the pattern or add a line range (path:A-B) for the rest.", d.MatchCount, d.TotalMatches))
		} else {
			notes = append(notes, fmt.Sprintf("Some files show only their first %d matching lines; search a single file to see up to %d.", searchPerFileMulti, searchPerFileSingle))
		}
	}
	if d.LinesTruncated {
		notes = append(notes, fmt.Sprintf("Lines longer than %d characters were cut (…).", searchMaxColumns))
	}
	if d.NextSkip > 0 {
		notes = append(notes, fmt.Sprintf("Showing files %d-%d of %d (%d matching lines in all). Use skip=%d for the next page.", skip+1, skip+o.pageFiles, d.TotalFiles, d.TotalMatches, d.NextSkip))
	} else if !single && skip > 0 && o.pageFiles > 0 {
		notes = append(notes, fmt.Sprintf("Showing files %d-%d of %d.", skip+1, skip+o.pageFiles, d.TotalFiles))
	}
	if len(missing) > 0 {
		notes = append(notes, "Skipped missing paths: "+strings.Join(missing, ", "))
	}
	if len(d.ArchiveSkipped) > 0 {
		notes = append(notes, "Skipped unreadable archive members: "+strings.Join(d.ArchiveSkipped, "; "))
	}
	if d.Unreadable > 0 {
		notes = append(notes, unreadableNote(d.Unreadable))
	}
	if single && d.BinarySkipped > 0 {
		notes = append(notes, "Skipped "+o.singlePath+": it is a binary file (it holds a NUL byte).")
	}
	if d.TooLong > 0 {
		notes = append(notes, fmt.Sprintf("Skipped %d file%s with a line over 64 MiB.", d.TooLong, plural(d.TooLong)))
	}

	if d.FileCount == 0 {
		text := "No matches found"
		if skip > 0 && d.TotalFiles > 0 {
			text = pastLastPage(skip, d.TotalFiles)
		}
		if len(notes) > 0 {
			text += "\n" + strings.Join(notes, "\n")
		}
		return &Result{Text: text + "\n", Details: d}
	}
	out := o.text
	if len(notes) > 0 {
		out += "\n" + strings.Join(notes, "\n") + "\n"
	}
	if len(out) > o.maxBytes {
		out = truncateHeadBytes(out, o.maxBytes)
		// The data holds what the text shows.
		d.matches = slices.DeleteFunc(d.matches, func(mt searchMatch) bool { return mt.end > len(out) })
		out += fmt.Sprintf("\n[Output truncated at %d KiB. Narrow the pattern or the paths, or use skip.]\n", o.maxBytes>>10)
		d.Truncated = true
	}
	return &Result{Text: out, Details: d, Shown: o.shown}
}

// pastLastPage is the text of a search page whose skip is past the last
// of total matching files: what to pass instead.
func pastLastPage(skip, total int) string {
	if total == 1 {
		return fmt.Sprintf("No matches on this page: skip=%d is past the only matching file. Leave skip out (or pass skip=0) to see it.", skip)
	}
	return fmt.Sprintf("No matches on this page: skip=%d is past the last of the %d matching files. Leave skip out (or pass skip=0) to see them from the first; skip=%d shows the last.", skip, total, total-1)
}

// decodePaths accepts a string or an array of strings; entries are trimmed
// and stripped of surrounding quotes; empty ones are rejected.
func decodePaths(raw json.RawMessage, what string) ([]string, error) {
	var list []string
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		list = []string{one}
	} else if err := json.Unmarshal(raw, &list); err != nil {
		return nil, &Error{Kind: KindUsage, Message: "`paths` must be a string or an array of strings"}
	}
	if len(list) == 0 {
		return nil, &Error{Kind: KindUsage, Message: "`paths` must contain non-empty " + what}
	}
	for i, p := range list {
		p = strings.TrimSpace(p)
		if len(p) >= 2 && (p[0] == '"' || p[0] == '\'' || p[0] == '`') && p[len(p)-1] == p[0] {
			p = strings.TrimSpace(p[1 : len(p)-1])
		}
		p = strings.ReplaceAll(p, "\\", "/")
		if p == "" {
			return nil, &Error{Kind: KindUsage, Message: "`paths` must contain non-empty " + what}
		}
		list[i] = p
	}
	return list, nil
}

// splitGlobPath splits p at its first path element holding a glob
// metacharacter: base is the directory before it ("." when the first
// element has one), glob the rest ("" when p has none). A glob in the first
// element is made recursive ("*.go" → "**/*.go").
func splitGlobPath(p string) (base, glob string) {
	if !search.HasGlobMeta(p) {
		return p, ""
	}
	p = strings.TrimPrefix(p, "./")
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if !search.HasGlobMeta(s) {
			continue
		}
		if i == 0 {
			if strings.HasPrefix(p, "**/") || p == "**" {
				return ".", p
			}
			return ".", "**/" + p
		}
		base = strings.Join(segs[:i], "/")
		if base == "" {
			base = "/"
		}
		return base, strings.Join(segs[i:], "/")
	}
	return p, ""
}

// entryExists reports whether the base path of a paths entry exists inside
// the root (line-range selectors peeled).
func entryExists(env *Env, entry string) bool {
	pathStr, _, err := workspace.SplitSelector(entry)
	if err != nil {
		pathStr = entry
	}
	base, _ := splitGlobPath(pathStr)
	p, err := env.WS.Resolve(base)
	return err == nil && env.WS.Exists(p)
}

// expandDelimitedEntries splits entries that were accidentally joined with
// commas, semicolons or whitespace: an entry that exists stays whole; a
// comma/semicolon split is kept when at least one part exists, a
// whitespace split only when every part exists.
func expandDelimitedEntries(env *Env, entries []string) []string {
	var out []string
	for _, e := range entries {
		// A glob's base directory existing says nothing about the entry:
		// "src/*.go,pkg/*.py" has the base src. Such an entry stays whole
		// only when it exists as it is written.
		whole := pathExists(env, e) || (!search.HasGlobMeta(e) && entryExists(env, e))
		if !strings.ContainsAny(e, ",; \t\n") || whole {
			out = append(out, e)
			continue
		}
		// Braces hold commas of their own: leave globs with braces alone.
		if strings.ContainsAny(e, "{}") {
			out = append(out, e)
			continue
		}
		parts := strings.FieldsFunc(e, func(r rune) bool { return r == ',' || r == ';' })
		if len(parts) > 1 {
			var kept []string
			anyExists := false
			for _, p := range parts {
				if p = strings.TrimSpace(p); p != "" {
					kept = append(kept, p)
					if entryExists(env, p) {
						anyExists = true
					}
				}
			}
			if anyExists {
				out = append(out, kept...)
				continue
			}
		}
		fields := strings.Fields(e)
		if len(fields) > 1 {
			all := true
			for _, f := range fields {
				if !entryExists(env, f) {
					all = false
					break
				}
			}
			if all {
				out = append(out, fields...)
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// statScope resolves base, the path of the paths entry e that search and
// find read, and stats it.
func statScope(env *Env, e, base string) (workspace.Path, workspace.Info, error) {
	p, err := env.WS.Resolve(base)
	if err != nil {
		return p, workspace.Info{}, err
	}
	st, err := env.WS.Stat(p)
	if err != nil {
		return p, st, &Error{Kind: KindIO, Message: fmt.Sprintf("Cannot search %s: %v", e, err), Err: err}
	}
	return p, st, nil
}

// resolveSearchTargets resolves every entry: selector, glob split,
// confinement, existence. Missing entries are skipped unless all are.
func resolveSearchTargets(env *Env, entries []string) ([]searchTarget, []string, error) {
	var targets []searchTarget
	var missing []string
	for _, e := range entries {
		pathStr, sel, err := workspace.SplitSelector(e)
		if err != nil {
			return nil, nil, &Error{Kind: KindUsage, Message: err.Error()}
		}
		archive, member, isArchive := search.SplitArchivePath(pathStr)
		if isArchive && pathExists(env, pathStr) {
			isArchive = false // a file whose name merely holds ".zip:"
		}
		if !isArchive && search.IsArchiveName(pathStr) && !search.HasGlobMeta(pathStr) && isRegularFile(env, pathStr) {
			archive, member, isArchive = pathStr, "", true // a whole archive: every member
		}
		if isArchive {
			t, err := resolveArchiveTarget(env, e, archive, member, sel.Ranges)
			if err != nil {
				return nil, nil, err
			}
			if t == nil {
				missing = append(missing, e)
				continue
			}
			targets = append(targets, *t)
			continue
		}
		base, glob := splitGlobPath(pathStr)
		if len(sel.Ranges) > 0 && glob != "" {
			return nil, nil, &Error{Kind: KindUsage, Message: "Line-range selector requires a single file, not a glob: " + e}
		}
		p, st, err := statScope(env, e, base)
		if err != nil {
			return nil, nil, err
		}
		if !st.Exists {
			if len(sel.Ranges) > 0 {
				return nil, nil, &Error{Kind: KindNotFound, Message: "Path not found for line-range selector: " + e}
			}
			missing = append(missing, e)
			continue
		}
		t := searchTarget{input: e, path: p, isDir: st.Dir, ranges: sel.Ranges}
		if len(sel.Ranges) > 0 && t.isDir {
			return nil, nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("Line-range selector requires a single file: %s is a directory", base)}
		}
		if glob != "" {
			if !t.isDir {
				return nil, nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("Path is not a directory: %s (the part before the glob must be a directory)", base)}
			}
			g, err := search.CompileGlob(glob)
			if err != nil {
				return nil, nil, &Error{Kind: KindUsage, Message: err.Error()}
			}
			t.glob = g
		}
		targets = append(targets, t)
	}
	if len(targets) == 0 {
		return nil, nil, &Error{Kind: KindNotFound, Message: "Path not found: " + strings.Join(missing, ", ")}
	}
	if len(targets) > 1 {
		for _, t := range targets {
			if len(t.ranges) > 0 {
				return nil, nil, &Error{Kind: KindUsage, Message: "Line-range selector requires a single file: " + t.input + " is one of several paths"}
			}
		}
	}
	return targets, missing, nil
}

// resolveLiteralScope resolves search_files' path, as it is written, and
// its include glob below it (one without '/' matches at any depth).
func resolveLiteralScope(env *Env, sc literalScope) ([]searchTarget, error) {
	p, err := resolveArg(env, defaultDot(sc.path))
	if err != nil {
		return nil, err
	}
	st, err := env.WS.Stat(p)
	switch {
	case err != nil:
		return nil, &Error{Kind: KindIO, Message: fmt.Sprintf("Cannot search %s: %v", sc.path, err), Err: err}
	case !st.Exists:
		return nil, &Error{Kind: KindNotFound, Message: "Path not found: " + defaultDot(sc.path)}
	case !st.Dir && sc.glob != "":
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("Path is not a directory: %s (include applies to a directory's files)", sc.path)}
	case !st.Dir && search.IsArchiveName(p.Rel) && st.Regular:
		return []searchTarget{{input: sc.path, path: p, archive: true}}, nil
	}
	t := searchTarget{input: sc.path, path: p, isDir: st.Dir}
	if sc.glob != "" {
		glob := sc.glob
		if !strings.Contains(glob, "/") {
			glob = "**/" + glob
		}
		g, err := search.CompileGlob(glob)
		if err != nil {
			return nil, &Error{Kind: KindUsage, Message: err.Error()}
		}
		t.glob = g
	}
	return []searchTarget{t}, nil
}

// pathExists reports whether p exists inside the root.
func pathExists(env *Env, p string) bool {
	rp, err := env.WS.Resolve(p)
	return err == nil && env.WS.Exists(rp)
}

// isRegularFile reports whether p is a regular file inside the root.
func isRegularFile(env *Env, p string) bool {
	rp, err := env.WS.Resolve(p)
	return err == nil && isRegular(env, rp)
}

// resolveArchiveTarget resolves "archive:member"; nil means the archive is
// missing.
func resolveArchiveTarget(env *Env, input, archive, member string, ranges []workspace.LineRange) (*searchTarget, error) {
	p, err := env.WS.Resolve(archive)
	if err != nil {
		return nil, err
	}
	st, err := env.WS.Stat(p)
	if err != nil {
		return nil, &Error{Kind: KindIO, Message: fmt.Sprintf("Cannot search %s: %v", input, err), Err: err}
	}
	if !st.Exists {
		if len(ranges) > 0 {
			return nil, &Error{Kind: KindNotFound, Message: "Path not found for line-range selector: " + input}
		}
		return nil, nil
	}
	if st.Dir {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("Cannot search archive member(s): %s is a directory, not an archive", archive)}
	}
	t := &searchTarget{input: input, path: p, archive: true, member: member, ranges: ranges}
	if search.HasGlobMeta(member) {
		g, err := search.CompileGlob(member)
		if err != nil {
			return nil, &Error{Kind: KindUsage, Message: err.Error()}
		}
		t.memberGlob = g
	}
	if len(ranges) > 0 && !t.exactMember() {
		return nil, &Error{Kind: KindUsage, Message: "Line-range selector requires a single file, not a glob: " + input}
	}
	return t, nil
}

// scopeOf formats the searched scope.
func scopeOf(targets []searchTarget) string {
	var parts []string
	for _, t := range targets {
		s := t.path.Rel
		if t.archive {
			s += ":" + t.member
		}
		if t.glob != nil {
			if s == "." {
				s = t.glob.String()
			} else {
				s += "/" + t.glob.String()
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

type searchHit struct {
	abs, rel string
	lines    int
	content  []byte // archive members: searched and shown from memory, no tag
}

// scanOverlays matches the text of every open buffer inside a target's
// scope (the file itself, or a file under a directory target that its glob
// admits and that the walk would list: hidden names are searched, gitignore
// applies as to the disk's files) and adds the buffers that match to hits.
func scanOverlays(env *Env, m *search.Matcher, targets []searchTarget, gitignore bool, hits *[]searchHit, seen map[string]bool, d *searchDetails) {
	var inScope []workspace.Path
	for _, t := range targets {
		switch {
		case t.archive:
		case !t.isDir:
			if _, _, ok := env.WS.Overlay(t.path); ok {
				inScope = append(inScope, t.path)
			}
		default:
			for _, b := range openBuffersUnder(env, t.path, search.WalkOptions{Hidden: true, Gitignore: gitignore}) {
				if t.glob == nil || t.glob.Match(b.rel) {
					inScope = append(inScope, b.path)
				}
			}
		}
	}
	for _, p := range inScope {
		if seen[p.Abs] {
			continue
		}
		text, _, ok := env.WS.Overlay(p)
		if !ok {
			continue
		}
		fr, _, err := m.ScanReader(bytes.NewReader(text), nil, nil)
		d.FilesSearched++
		switch {
		case err != nil:
			d.TooLong++
		case fr.Binary:
			d.BinarySkipped++
		case fr.Lines > 0:
			seen[p.Abs] = true
			*hits = append(*hits, searchHit{abs: p.Abs, rel: p.Rel, lines: fr.Lines})
		}
	}
}

// scanTargets runs pass 1 over every target and merges the hits (sorted by
// path, each file once).
func scanTargets(ctx context.Context, env *Env, m *search.Matcher, targets []searchTarget, gitignore bool, d *searchDetails) ([]searchHit, error) {
	var files []string
	filePaths := map[string]workspace.Path{}
	seen := map[string]bool{}
	var hits []searchHit
	progress := func(searched, matched int) {
		if env.Progress != nil {
			env.Progress(fmt.Sprintf("search: %d files searched, %d matching", searched, matched), searched, 0)
		}
	}
	add := func(res *search.ScanResult, relOf func(h search.Hit) string) {
		for _, h := range res.Hits {
			if seen[h.Abs] {
				continue
			}
			seen[h.Abs] = true
			hits = append(hits, searchHit{abs: h.Abs, rel: relOf(h), lines: h.Lines})
		}
		d.FilesSearched += res.Searched
		d.BinarySkipped += res.Binary
		d.Unreadable += res.Unreadable
		d.TooLong += res.TooLong
	}
	// Open buffers are searched as the editor holds them, not as the disk
	// does: pass 1 skips them and scanOverlays matches their text.
	overlays := env.WS.Overlays()
	isOpen := make(map[string]bool, len(overlays))
	for _, p := range overlays {
		isOpen[p.Abs] = true
	}
	var archiveProblems []string
	for _, t := range targets {
		if t.archive {
			found, problems, err := scanArchive(env, m, t, &hits)
			if err != nil {
				return nil, err
			}
			archiveProblems = append(archiveProblems, problems...)
			if !found && t.member != "" && t.memberGlob == nil {
				archiveProblems = append(archiveProblems, t.input+": no such member")
			}
			continue
		}
		if !t.isDir {
			if !isOpen[t.path.Abs] {
				files = append(files, t.path.Abs)
				filePaths[t.path.Abs] = t.path
			}
			continue
		}
		dir, err := env.WS.OpenDir(t.path)
		if err != nil {
			return nil, err
		}
		res, err := search.Scan(ctx, m, search.ScanOptions{Root: t.path.Abs, Dir: dir, Glob: t.glob, Hidden: true, Gitignore: gitignore, Progress: progress})
		dir.Close()
		if err != nil {
			return nil, err
		}
		res.Hits = slices.DeleteFunc(res.Hits, func(h search.Hit) bool { return isOpen[h.Abs] })
		prefix := t.path.Rel
		add(res, func(h search.Hit) string {
			if prefix == "." {
				return h.Rel
			}
			return prefix + "/" + h.Rel
		})
	}
	if len(files) > 0 {
		res, err := search.Scan(ctx, m, search.ScanOptions{Files: files, OpenFile: func(abs string) (io.ReadCloser, error) {
			return env.WS.OpenReader(filePaths[abs])
		}})
		if err != nil {
			return nil, err
		}
		root := env.WS.Root()
		add(res, func(h search.Hit) string {
			rel, err := filepath.Rel(root, h.Abs)
			if err != nil {
				return h.Abs
			}
			return filepath.ToSlash(rel)
		})
	}
	if len(overlays) > 0 {
		scanOverlays(env, m, targets, gitignore, &hits, seen, d)
	}
	if len(archiveProblems) > 0 {
		if len(targets) == 1 && len(hits) == 0 && targets[0].exactMember() {
			return nil, &Error{Kind: KindUsage, Message: "Cannot search archive member(s): " + strings.Join(archiveProblems, "; ")}
		}
		d.ArchiveSkipped = archiveProblems
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].rel < hits[j].rel })
	return hits, nil
}

// scanArchive searches the members of an archive target, keeping the
// content of members that match. Binary, non-UTF-8 and oversized members
// are reported as problems.
func scanArchive(env *Env, m *search.Matcher, t searchTarget, hits *[]searchHit) (found bool, problems []string, err error) {
	want := func(name string) bool {
		switch {
		case t.member == "":
			return true
		case t.memberGlob != nil:
			return t.memberGlob.Match(name)
		default:
			return name == t.member || strings.HasPrefix(name, strings.TrimSuffix(t.member, "/")+"/")
		}
	}
	f, err := env.WS.OpenReader(t.path)
	if err != nil {
		return false, nil, err
	}
	defer f.Close()
	err = search.EachArchiveMember(f, want, searchMaxRenderedFile, func(mem search.ArchiveMember) {
		found = true
		name := t.path.Rel + ":" + mem.Name
		switch {
		case mem.Skipped != "":
			problems = append(problems, name+": "+mem.Skipped)
			return
		case bytes.IndexByte(mem.Data, 0) >= 0 || !utf8.Valid(mem.Data):
			problems = append(problems, name+": binary or not UTF-8")
			return
		}
		if n := m.MatchLines(mem.Data, nil); n > 0 {
			*hits = append(*hits, searchHit{abs: t.path.Abs + ":" + mem.Name, rel: name, lines: n, content: mem.Data})
		}
	})
	if err != nil {
		return false, nil, &Error{Kind: KindIO, Message: fmt.Sprintf("Cannot search archive member(s): %s: %v", t.path.Rel, err), Err: err}
	}
	return found, problems, nil
}

type renderedFile struct {
	text           string
	matches        []searchMatch // end is relative to text
	tag            string        // "" for an archive member (no tag)
	sha256         string
	shown, total   int
	linesTruncated bool
	// The rows shown of a file with a tag, recorded as seen lines.
	seenContent []byte
	seen        []workspace.LineRange
}

// pageRenders are the renders of a page's files, made ahead by
// renderAhead's workers.
type pageRenders struct {
	done  []chan struct{} // closed when the file's render is in
	fr    []*renderedFile
	recs  [][]workspace.Recording
	errs  []error
	cut   atomic.Bool // the page is complete: render no further
	ended sync.WaitGroup
}

// renderAhead renders the files of page with up to GOMAXPROCS workers, in
// page order (a worker takes the next file not yet taken), each with the
// per-file cap. Every file's budget is at least what the page leaves it
// unless earlier files used it up, which the caller checks (get, then
// render again with the smaller budget).
func renderAhead(ctx context.Context, env *Env, m *search.Matcher, page []searchHit, perFile int, ranges []workspace.LineRange) *pageRenders {
	r := &pageRenders{done: make([]chan struct{}, len(page)), fr: make([]*renderedFile, len(page)), recs: make([][]workspace.Recording, len(page)), errs: make([]error, len(page))}
	for i := range page {
		r.done[i] = make(chan struct{})
	}
	var next atomic.Int64
	for range min(runtime.GOMAXPROCS(0), len(page)) {
		r.ended.Add(1)
		go func() {
			defer r.ended.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(page) {
					return
				}
				if err := ctx.Err(); err != nil {
					r.errs[i] = err
				} else if r.cut.Load() {
					r.errs[i] = context.Canceled
				} else {
					r.fr[i], r.errs[i] = renderSearchFile(ctx, env, m, page[i], perFile, perFile, ranges, &r.recs[i])
				}
				close(r.done[i])
			}
		}()
	}
	return r
}

// get waits for the render of the page's file i.
func (r *pageRenders) get(i int) (*renderedFile, []workspace.Recording, error) {
	<-r.done[i]
	return r.fr[i], r.recs[i], r.errs[i]
}

// stop ends the workers: files not yet taken are not rendered.
func (r *pageRenders) stop() {
	r.cut.Store(true)
	r.ended.Wait()
}

// renderSearchFile renders one file's section: the ¶PATH#TAG header (its
// snapshot is appended to recs, for the caller to record) and its match and
// context rows. Content comes from
// the workspace (an open editor buffer wins over the disk); files over
// 64 MiB are streamed instead, without context and without a snapshot.
func renderSearchFile(ctx context.Context, env *Env, m *search.Matcher, h searchHit, perFile, budget int, ranges []workspace.LineRange, recs *[]workspace.Recording) (*renderedFile, error) {
	p := workspace.Path{Abs: h.abs, Rel: h.rel}
	content := h.content
	if content == nil {
		if st, err := env.WS.Stat(p); err == nil && !st.Overlay && st.Size > searchMaxRenderedFile {
			return renderStreamed(ctx, env, m, h, budget, ranges)
		}
		f, err := env.WS.ReadFile(p)
		if err != nil {
			return nil, err
		}
		content = f.Bytes
	}
	if bytes.IndexByte(content, 0) >= 0 {
		return &renderedFile{}, nil
	}
	// Rows are matched and numbered on a view where a lone "\r" (an old
	// Mac line break) is "\n", so N is the line number read and edit use;
	// the tag is still minted over the real content.
	raw := content
	content = loneCRToLF(content)
	matches, total, err := matchSpans(ctx, m, content, ranges, budget)
	if err != nil {
		return nil, err
	}
	if len(matches) == 0 {
		return &renderedFile{}, nil
	}
	rf := &renderedFile{shown: len(matches), total: total}
	var sb strings.Builder
	if h.content != nil {
		// An archive member cannot be edited: no tag, no snapshot.
		sb.WriteString("¶" + showName(h.rel) + "\n")
	} else {
		tag := edit.Tag(raw)
		sum := sha256.Sum256(raw)
		*recs = append(*recs, workspace.Recording{Key: p.Abs, Tag: tag, Content: raw, SHA256: &sum})
		rf.tag, rf.sha256 = tag, hex.EncodeToString(sum[:])
		rf.seenContent = raw
		sb.WriteString(header(h.rel, tag) + "\n")
	}
	writeSearchRows(rf, &sb, h.rel, content, matches)
	rf.text = sb.String()
	return rf, nil
}

// lineSpan is line n of a text, its bytes [s, e).
type lineSpan struct{ n, s, e int }

// matchSpans collects the lines of content m matches within ranges (all
// when none): at most budget of them, and how many there are.
func matchSpans(ctx context.Context, m *search.Matcher, content []byte, ranges []workspace.LineRange, budget int) (matches []lineSpan, total int, err error) {
	inRanges := func(n int) bool {
		if len(ranges) == 0 {
			return true
		}
		for _, r := range ranges {
			if n >= r.Start && (r.End == 0 || n <= r.End) {
				return true
			}
		}
		return false
	}
	lineNo, counted := 1, 0
	err = matchLines(ctx, m, content, func(s, e int) bool {
		lineNo += bytes.Count(content[counted:s], []byte{'\n'})
		counted = s
		if !inRanges(lineNo) {
			return true
		}
		total++
		if len(matches) < budget {
			matches = append(matches, lineSpan{lineNo, s, e})
		}
		return true
	})
	return matches, total, err
}

// writeSearchRows writes the rows of matches (`*N:TEXT`) and their context
// (` N:TEXT`) to sb, noting in rf the matches, the lines shown and whether
// a line was cut.
func writeSearchRows(rf *renderedFile, sb *strings.Builder, rel string, content []byte, matches []lineSpan) {
	last := 0 // last line number written
	writeRow := func(n, s, e int, match bool) {
		line := content[s:e]
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		text, cut := cutLine(line, searchMaxColumns)
		if cut {
			rf.linesTruncated = true
		}
		if match {
			fmt.Fprintf(sb, "*%d:%s\n", n, text)
			rf.matches = append(rf.matches, searchMatch{Path: rel, Line: n, Text: text, Cut: cut, end: sb.Len()})
		} else {
			fmt.Fprintf(sb, " %d:%s\n", n, text)
		}
		last = n
		if rf.seenContent != nil {
			rf.seen = addSeen(rf.seen, n)
		}
	}
	for i, mt := range matches {
		// Before-context: walk back from the match.
		var before []lineSpan
		s := mt.s
		for k := 1; k <= searchContextBefore && mt.n-k > last && s > 0; k++ {
			ps := bytes.LastIndexByte(content[:s-1], '\n') + 1
			before = append(before, lineSpan{mt.n - k, ps, s - 1})
			s = ps
		}
		for j := len(before) - 1; j >= 0; j-- {
			writeRow(before[j].n, before[j].s, before[j].e, false)
		}
		if mt.n > last {
			writeRow(mt.n, mt.s, mt.e, true)
		}
		// After-context, stopping before the next match.
		next := math.MaxInt
		if i+1 < len(matches) {
			next = matches[i+1].n
		}
		e := mt.e
		for k := 1; k <= searchContextAfter && mt.n+k < next && e < len(content); k++ {
			ns := e + 1
			if ns >= len(content) {
				break
			}
			ne := ns + bytes.IndexByte(content[ns:], '\n')
			if ne < ns {
				ne = len(content)
			}
			writeRow(mt.n+k, ns, ne, false)
			e = ne
		}
	}
}

// loneCRToLF returns b with every "\r" not followed by "\n" replaced by
// "\n" (same length, so offsets hold), or b itself when it has none.
func loneCRToLF(b []byte) []byte {
	i := bytes.IndexByte(b, '\r')
	for i >= 0 && i+1 < len(b) && b[i+1] == '\n' {
		j := bytes.IndexByte(b[i+1:], '\r')
		if j < 0 {
			return b
		}
		i += 1 + j
	}
	if i < 0 {
		return b
	}
	out := append([]byte(nil), b...)
	for ; i < len(out); i++ {
		if out[i] == '\r' && (i+1 == len(out) || out[i+1] != '\n') {
			out[i] = '\n'
		}
	}
	return out
}

// matchChunk is how much of a file matchLines matches between two looks at
// its context.
const matchChunk = 4 << 20

// matchLines is m.MatchLines over content in line-aligned chunks of about
// matchChunk bytes, stopping with ctx's error when ctx ends between two
// (a multiline pattern, which may span chunks, takes content whole).
func matchLines(ctx context.Context, m *search.Matcher, content []byte, fn func(start, end int) bool) error {
	if m.Multiline() {
		m.MatchLines(content, fn)
		return ctx.Err()
	}
	for off := 0; off < len(content); {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := len(content)
		if off+matchChunk < end {
			if i := bytes.IndexByte(content[off+matchChunk:], '\n'); i >= 0 {
				end = off + matchChunk + i + 1
			}
		}
		stopped := false
		m.MatchLines(content[off:end], func(s, e int) bool {
			if !fn(off+s, off+e) {
				stopped = true
			}
			return !stopped
		})
		if stopped {
			return nil
		}
		off = end
	}
	return nil
}

// renderStreamed renders a huge file's matching lines without loading it;
// it stops with ctx's error at its next read once ctx ends.
func renderStreamed(ctx context.Context, env *Env, m *search.Matcher, h searchHit, budget int, ranges []workspace.LineRange) (*renderedFile, error) {
	f, err := env.WS.OpenReader(workspace.Path{Abs: h.abs, Rel: h.rel})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rf := &renderedFile{}
	var sb strings.Builder
	sb.WriteString("¶" + showName(h.rel) + " (over 64 MiB: no tag, no context)\n")
	_, _, err = m.ScanReader(ctxio.Reader(ctx, f), nil, func(n int, line []byte) bool {
		if len(ranges) > 0 {
			in := false
			for _, r := range ranges {
				if n >= r.Start && (r.End == 0 || n <= r.End) {
					in = true
				}
			}
			if !in {
				return true
			}
		}
		rf.total++
		if rf.shown < budget {
			text, cut := cutLine(bytes.TrimSuffix(line, []byte("\r")), searchMaxColumns)
			rf.linesTruncated = rf.linesTruncated || cut
			fmt.Fprintf(&sb, "*%d:%s\n", n, text)
			rf.matches = append(rf.matches, searchMatch{Path: h.rel, Line: n, Text: text, Cut: cut, end: sb.Len()})
			rf.shown++
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	rf.text = sb.String()
	return rf, nil
}

// cutLine shortens line to max characters plus "…"; invalid UTF-8 is shown
// with U+FFFD.
func cutLine(line []byte, max int) (string, bool) {
	if len(line) <= max && utf8.Valid(line) {
		return string(line), false
	}
	var sb strings.Builder
	n := 0
	for i := 0; i < len(line); {
		if n == max {
			sb.WriteString("…")
			return sb.String(), true
		}
		r, size := utf8.DecodeRune(line[i:])
		sb.WriteRune(r)
		i += size
		n++
	}
	return sb.String(), false
}

// truncateHeadBytes keeps the head of s up to max bytes, cut at a line end.
func truncateHeadBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndexByte(s[:max], '\n')
	if cut <= 0 {
		cut = max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return s[:cut]
	}
	return s[:cut+1]
}

// unreadableNote says that a walk skipped n files or directories it could
// not read (no permission, or a path too long to open: a tree nested
// thousands deep), as search and find say it.
func unreadableNote(n int) string {
	return fmt.Sprintf("Skipped %d unreadable file%s or director%s (no permission, or a path too long to open).", n, plural(n), map[bool]string{true: "y", false: "ies"}[n == 1])
}
