package agent

import (
	"fmt"
	"slices"
	"strings"
)

// Toolsets are the named sets of tools a transport offers: a model pays for
// every tool definition in its context on every turn, so a user chooses the
// sets an agent gets (hashls --toolsets, HASHLS_TOOLSETS, the LSP setting
// toolsets). A tool may be in several sets; "all" is every tool.
var toolsets = []toolsetDef{
	{"hashline", "read, edit, write, search, find: hashline edits (¶PATH#TAG + N:TEXT rows)", []string{"read", "edit", "write", "search", "find"}},
	{"history", "trash, restore, audit, revert: what tools replaced, and undoing a change", []string{"trash", "restore", "audit", "revert"}},
	{"stale-file", "the sha256-gated file tools: read_file, list_directory, search_files, glob, create_file, write_file, edit_file, delete_file, restore_file, move_file", []string{"read_file", "list_directory", "search_files", "glob", "create_file", "write_file", "edit_file", "delete_file", "restore_file", "move_file"}},
	{"patch", "apply_patch: Codex-format patches", []string{"apply_patch"}},
	{"lsp", "lsp (read-only queries) and lsp_edit (rename, code actions, format): the project's language servers", []string{"lsp", "lsp_edit"}},
}

type toolsetDef struct {
	Name  string
	Doc   string // one line, for help texts
	Tools []string
}

// AllToolsets names every tool.
const AllToolsets = "all"

// DefaultToolsets are the sets an agent gets over MCP when its user chose
// none: the hashline tools and the history that backs their "nothing is
// lost" promise. The CLI and the language server, whose tool lists no
// model reads, offer every tool by default.
const DefaultToolsets = "hashline,history"

// ToolsetsEnv is the environment variable that chooses the toolsets (the
// env of an mcp.json entry); the --toolsets flag overrides it.
const ToolsetsEnv = "HASHLS_TOOLSETS"

// Sets is a choice of toolsets. The zero value offers every tool.
type Sets struct {
	names []string        // as chosen, deduplicated; nil: all
	tools map[string]bool // nil: all
}

// ParseSets parses a comma- or space-separated list of toolset names
// ("hashline,history"; "all" for every tool). "" is an error: the caller
// decides what an unset choice means.
func ParseSets(spec string) (Sets, error) {
	fields := strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	if len(fields) == 0 {
		return Sets{}, fmt.Errorf("no toolset named in %q; name one or more of %s", spec, ToolsetNames())
	}
	var s Sets
	tools := map[string]bool{}
	for _, f := range fields {
		name := strings.ToLower(strings.TrimSpace(f))
		if name == AllToolsets {
			return Sets{}, nil
		}
		i := slices.IndexFunc(toolsets, func(t toolsetDef) bool { return t.Name == name })
		if i < 0 {
			return Sets{}, fmt.Errorf("unknown toolset %s; toolsets: %s", QuoteInput(f), ToolsetNames())
		}
		if !slices.Contains(s.names, name) {
			s.names = append(s.names, name)
		}
		for _, t := range toolsets[i].Tools {
			tools[t] = true
		}
	}
	s.tools = tools
	return s, nil
}

// MustParseSets is ParseSets for a spec known to be valid (a constant).
func MustParseSets(spec string) Sets {
	s, err := ParseSets(spec)
	if err != nil {
		panic(err)
	}
	return s
}

// All reports whether s offers every tool.
func (s Sets) All() bool { return s.tools == nil }

// Has reports whether s offers the tool called name.
func (s Sets) Has(name string) bool { return s.tools == nil || s.tools[name] }

// String is the choice as a toolsets spec ("hashline,history", "all").
func (s Sets) String() string {
	if s.All() {
		return AllToolsets
	}
	return strings.Join(s.names, ",")
}

// ToolsetNames lists the toolset names, "all" last.
func ToolsetNames() string {
	names := make([]string, 0, len(toolsets)+1)
	for _, t := range toolsets {
		names = append(names, t.Name)
	}
	return strings.Join(append(names, AllToolsets), ", ")
}

// ToolsetsHelp describes every toolset, one per line, for help texts.
func ToolsetsHelp() string {
	var sb strings.Builder
	for _, t := range toolsets {
		fmt.Fprintf(&sb, "  %-11s %s\n", t.Name, t.Doc)
	}
	fmt.Fprintf(&sb, "  %-11s every tool\n", AllToolsets)
	return sb.String()
}

// setsOf returns the names of the toolsets holding the tool called name.
func setsOf(name string) []string {
	var out []string
	for _, t := range toolsets {
		if slices.Contains(t.Tools, name) {
			out = append(out, t.Name)
		}
	}
	return out
}

// NotOffered is the error for a call of the tool called name, which the
// caller's toolsets s do not hold.
func NotOffered(name string, s Sets) *Error {
	in := setsOf(name)
	want := AllToolsets
	if len(in) > 0 {
		want = in[0]
	}
	return &Error{Kind: KindUsage,
		Message:         fmt.Sprintf("tool %s is not offered: the toolsets chosen are %s, and %s is in %s", name, s, name, strings.Join(append(in, AllToolsets), " and ")),
		SuggestedAction: fmt.Sprintf("Use the tools listed, or add the toolset %s (--toolsets %s,%s or %s=%s,%s).", want, s, want, ToolsetsEnv, s, want)}
}
