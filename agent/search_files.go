package agent

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
)

// search_files and glob are the file tools' names for search and find:
// they translate their arguments and run those tools, so there is one
// search engine, one walk and one result format.

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
		return nil, toolErr(KindUsage, "", "search_files: %v", err)
	}
	if a.Pattern == "" {
		return nil, toolErr(KindUsage, "", "search_files: pattern is empty; give the text, regex or glob to look for")
	}
	switch a.Mode {
	case "glob":
		if a.Include != "" || a.CaseSensitive != nil || a.Skip != nil {
			return nil, toolErr(KindUsage, "Leave out include, caseSensitive and skip in glob mode, or use mode text or regex.", "search_files: include, caseSensitive and skip apply to text and regex modes, not glob")
		}
		return runGlob(ctx, env, "search_files", a.Pattern, a.Path, nil, a.Gitignore, a.Limit)
	case "", "text", "regex":
	default:
		return nil, toolErr(KindUsage, "", "search_files: mode %q is not one of text, regex, glob", shortQuote(a.Mode))
	}
	if a.Limit != nil {
		return nil, toolErr(KindUsage, "Leave out limit (results are paged 20 files at a time: use skip), or use mode glob.", "search_files: limit applies to glob mode only")
	}
	mode, pattern := "regex", a.Pattern
	if a.Mode != "regex" {
		mode, pattern = "text", literalPattern(a.Pattern)
	}
	scope := joinRel(defaultDot(a.Path), a.Include)
	if a.Include == "" {
		scope = defaultDot(a.Path)
	}
	args := map[string]any{"pattern": pattern, "paths": scope, "i": a.CaseSensitive != nil && !*a.CaseSensitive}
	if a.Gitignore != nil {
		args["gitignore"] = *a.Gitignore
	}
	if a.Skip != nil {
		args["skip"] = *a.Skip
	}
	res, err := runInner(ctx, env, searchTool{}, args)
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
		return nil, toolErr(KindUsage, "", "glob: %v", err)
	}
	if a.Pattern == "" {
		return nil, toolErr(KindUsage, "", "glob: pattern is empty; give a glob such as **/*.go")
	}
	return runGlob(ctx, env, "glob", a.Pattern, a.Path, a.Hidden, a.Gitignore, a.Limit)
}

// runGlob runs the find tool for pattern under dir.
func runGlob(ctx context.Context, env *Env, tool, pattern, dir string, hidden, gitignore *bool, limit *int) (*Result, error) {
	if strings.HasPrefix(pattern, "/") || strings.HasPrefix(pattern, "../") || pattern == ".." {
		return nil, toolErr(KindUsage, "Give the directory as path and a relative pattern.", "%s: pattern %q must be relative to path", tool, shortQuote(pattern))
	}
	args := map[string]any{"paths": joinRel(defaultDot(dir), pattern)}
	if hidden != nil {
		args["hidden"] = *hidden
	}
	if gitignore != nil {
		args["gitignore"] = *gitignore
	}
	if limit != nil {
		args["limit"] = *limit
	}
	res, err := runInner(ctx, env, findTool{}, args)
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
		return nil, toolErr(KindInternal, "", "%s: encoding arguments: %v", t.Name(), err)
	}
	return t.Run(ctx, env, raw)
}

// literalPattern is a regex matching s literally. The search tool trims its
// pattern, so leading and trailing blanks are escaped to survive that.
func literalPattern(s string) string {
	q := regexp.QuoteMeta(s)
	core := strings.TrimLeft(q, " \t")
	lead := q[:len(q)-len(core)]
	trimmed := strings.TrimRight(core, " \t")
	trail := core[len(trimmed):]
	esc := strings.NewReplacer(" ", `\x20`, "\t", `\t`)
	return esc.Replace(lead) + trimmed + esc.Replace(trail)
}

// defaultDot is dir, or "." when it is empty.
func defaultDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}
