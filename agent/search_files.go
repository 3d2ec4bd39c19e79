package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// search_files and glob are the file tools' faces of search and find: they
// run the same cores (runSearch, runFind), so there is one search engine,
// one walk and one result format. Their path is taken as it is written (a
// directory named a[b] is a name), and their pattern or include is the
// glob below it; one without '/' matches at any depth. A $'…' quoted
// element of the path is read as the name it spells (argPath), as every
// path argument is.

type searchFilesTool struct{}
type globTool struct{}

func (searchFilesTool) Name() string { return "search_files" }
func (searchFilesTool) Description() string {
	return "Search files: mode text (default) or regex (Go RE2) over contents, under ¶PATH#TAG headers with *N: rows; mode glob matches paths; gitignore-aware"
}
func (searchFilesTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"pattern":{"type":"string","description":"text, regex or glob"},` +
		`"mode":{"type":"string","enum":["text","regex","glob"]},` +
		`"path":{"type":"string","description":"directory or file (default the root)"},` +
		`"include":{"type":"string","description":"text, regex: only paths matching this glob"},` +
		`"caseSensitive":{"type":"boolean","description":"default true"},` +
		`"gitignore":{"type":"boolean","description":"respect .gitignore (default true)"},` +
		`"skip":{"type":"integer","minimum":0,"description":"text, regex: files to skip (20 a page)"},` +
		`"limit":{"type":"integer","minimum":1,"description":"glob: 1-200 (default 200)"}` +
		`},"required":["pattern"],"additionalProperties":false}`)
}

func (globTool) Name() string { return "glob" }
func (globTool) Description() string {
	return "Match files and folders against a glob (** crosses directories; *.go matches at any depth), newest first, gitignore-aware"
}
func (globTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"pattern":{"type":"string","description":"glob: * ? [ab] {a,b} **"},` +
		`"path":{"type":"string","description":"directory to match under (default the root)"},` +
		`"hidden":{"type":"boolean","description":"include hidden files (default true)"},` +
		`"gitignore":{"type":"boolean","description":"respect .gitignore (default true)"},` +
		`"limit":{"type":"integer","minimum":1,"description":"1-200 (default 200)"}` +
		`},"required":["pattern"],"additionalProperties":false}`)
}

// searchFilesDetails is search_files' data in text and regex modes: the
// search tool's details, the mode and the matching lines it shows, bounded
// by the same caps (files per page, lines per file, lines per call, output
// bytes, characters per line: cut). MatchesTruncated says that the list
// does not hold every matching line of the scope (a cap, or a page: see
// nextSkip).
type searchFilesDetails struct {
	Mode string `json:"mode"`
	*searchDetails
	Matches          []searchMatch `json:"matches"`
	MatchesTruncated bool          `json:"matchesTruncated"`
}

// globDetails is glob's data (and search_files' in glob mode): the find
// tool's details and the mode.
type globDetails struct {
	Mode string `json:"mode"`
	*findDetails
}

func (searchFilesTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a struct {
		Pattern       string `json:"pattern"`
		Mode          string `json:"mode"`
		Path          string `json:"path"`
		Include       string `json:"include"`
		CaseSensitive *bool  `json:"caseSensitive"`
		Gitignore     *bool  `json:"gitignore"`
		Skip          *int   `json:"skip"`
		Limit         *int   `json:"limit"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("search_files: %v", err)}
	}
	if a.Pattern == "" {
		return nil, &Error{Kind: KindUsage, Message: "search_files: pattern is empty; give the text, regex or glob to look for"}
	}
	switch a.Mode {
	case "glob":
		if a.Include != "" || a.CaseSensitive != nil || a.Skip != nil {
			return nil, &Error{Kind: KindUsage, Message: "search_files: include, caseSensitive and skip apply to text and regex modes, not glob", SuggestedAction: "Leave out include, caseSensitive and skip in glob mode, or use mode text or regex."}
		}
		return runGlob(ctx, env, "search_files", a.Pattern, a.Path, nil, a.Gitignore, a.Limit)
	case "", "text", "regex":
	default:
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("search_files: mode %q is not one of text, regex, glob", shortQuote(a.Mode))}
	}
	if a.Limit != nil {
		return nil, &Error{Kind: KindUsage, Message: "search_files: limit applies to glob mode only", SuggestedAction: "Leave out limit (results are paged 20 files at a time: use skip), or use mode glob."}
	}
	mode := "regex"
	if a.Mode != "regex" {
		mode = "text"
	}
	skip := 0
	if a.Skip != nil {
		skip = *a.Skip
	}
	res, err := runSearch(ctx, env, searchQuery{pattern: a.Pattern, literal: mode == "text", i: a.CaseSensitive != nil && !*a.CaseSensitive,
		scope: &literalScope{path: a.Path, glob: a.Include}, gitignore: a.Gitignore == nil || *a.Gitignore, skip: skip})
	if err != nil {
		return nil, err
	}
	if d, ok := res.Details.(*searchDetails); ok {
		matches := d.matches
		if matches == nil {
			matches = []searchMatch{}
		}
		res.Details = &searchFilesDetails{Mode: mode, searchDetails: d, Matches: matches, MatchesTruncated: len(matches) < d.TotalMatches}
	}
	return res, nil
}

func (globTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a struct {
		Pattern   string `json:"pattern"`
		Path      string `json:"path"`
		Hidden    *bool  `json:"hidden"`
		Gitignore *bool  `json:"gitignore"`
		Limit     *int   `json:"limit"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("glob: %v", err)}
	}
	if a.Pattern == "" {
		return nil, &Error{Kind: KindUsage, Message: "glob: pattern is empty; give a glob such as **/*.go"}
	}
	return runGlob(ctx, env, "glob", a.Pattern, a.Path, a.Hidden, a.Gitignore, a.Limit)
}

// runGlob is glob and search_files' glob mode: find's core over dir, taken
// as it is written, and pattern below it (a pattern without '/' matches at
// any depth).
func runGlob(ctx context.Context, env *Env, tool, pattern, dir string, hidden, gitignore *bool, limit *int) (*Result, error) {
	if strings.HasPrefix(pattern, "/") || strings.HasPrefix(pattern, "../") || pattern == ".." {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: pattern %q must be relative to path", tool, shortQuote(pattern)), SuggestedAction: "Give the directory as path and a relative pattern."}
	}
	if !strings.Contains(pattern, "/") {
		pattern = "**/" + pattern
	}
	n := findDefaultLimit
	if limit != nil {
		n = min(max(*limit, 1), findMaxLimit)
	}
	base, err := argPath(defaultDot(dir))
	if err != nil {
		return nil, err
	}
	res, err := runFind(ctx, env, []findSpec{{input: joinRel(defaultDot(dir), pattern), base: base, glob: pattern}}, hidden == nil || *hidden, gitignore == nil || *gitignore, n, findDefaultTimeout)
	if err != nil {
		return nil, err
	}
	if d, ok := res.Details.(*findDetails); ok {
		res.Details = &globDetails{Mode: "glob", findDetails: d}
	}
	return res, nil
}

// runInner runs another tool of the set with args built here.
func runInner(ctx context.Context, env *Env, t Tool, args map[string]any) (*Result, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, &Error{Kind: KindInternal, Message: fmt.Sprintf("%s: encoding arguments: %v", t.Name(), err)}
	}
	return t.Run(ctx, env, raw)
}

// defaultDot is dir, or "." when it is empty.
func defaultDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}
