package agent

import (
	"regexp"
	"slices"
)

// An error's next step names tools, and which tools a caller can call
// depends on who it is: an MCP model has the tools of its toolsets and no
// shell, a CLI user has every tool and `hashls tool NAME --schema`. Tools
// therefore write the tools a suggested action names as jobs ({read},
// {create}, ...), and mark an argument error with Error.ArgsOf; each
// transport renders the error for its caller once, at its edge
// (Caller.Explain), after it came back from wherever the tool ran (this
// process or the hub).

// Caller is who reads a tool's result: its transport ("cli", "lsp",
// "mcp") and the toolsets it was offered (zero value: every tool).
type Caller struct {
	Transport string
	Sets      Sets
}

// faces names the tool that does each job in the hashline family and in
// the file tools' (stale-file) family.
var faces = map[string][2]string{
	"read":    {"read", "read_file"},
	"write":   {"write", "write_file"},
	"create":  {"write", "create_file"},
	"edit":    {"edit", "edit_file"},
	"find":    {"find", "glob"},
	"list":    {"read", "list_directory"},
	"search":  {"search", "search_files"},
	"restore": {"restore", "restore_file"},
	"delete":  {"edit", "delete_file"},
	"trash":   {"trash", "trash"},
	"audit":   {"audit", "audit"},
}

// jobRE matches a job in a suggested action, or {proof}: what proves the
// content the caller saw, the sha256 for the file tools, the ¶PATH#TAG
// header for the others.
var jobRE = regexp.MustCompile(`\{(read|write|create|edit|find|list|search|restore|delete|trash|audit|proof)\}`)

// fileFamily reports whether tool is one of the file tools (the
// stale-file toolset).
func fileFamily(tool string) bool { return slices.Contains(setsOf(tool), "stale-file") }

// toolFor names the tool that does job for c, called from tool: the face
// of tool's own family when c's toolsets offer it, else the other family's
// when they offer that, else the face of tool's family.
func (c Caller) toolFor(job, tool string) string {
	f := faces[job]
	mine, other := f[0], f[1]
	if fileFamily(tool) {
		mine, other = other, mine
	}
	if !c.Sets.Has(mine) && c.Sets.Has(other) {
		return other
	}
	return mine
}

// Explain returns err as an *Error (AsError) rendered for c after a call of
// tool: the jobs its suggested action names become tools c has, and an
// argument error names where c finds the tool's arguments.
func (c Caller) Explain(tool string, err error) *Error {
	ae := AsError(err)
	action := jobRE.ReplaceAllStringFunc(ae.SuggestedAction, func(m string) string {
		switch job := m[1 : len(m)-1]; {
		case job != "proof":
			return c.toolFor(job, tool)
		case fileFamily(tool):
			return "sha256"
		default:
			return "¶PATH#TAG"
		}
	})
	msg := ae.Message
	if ae.ArgsOf != "" {
		msg += "; " + c.schemaHint(ae.ArgsOf)
	}
	if action == ae.SuggestedAction && msg == ae.Message {
		return ae
	}
	r := *ae
	r.SuggestedAction, r.Message, r.ArgsOf = action, msg, ""
	return &r
}

// schemaHint says where c reads tool's arguments.
func (c Caller) schemaHint(tool string) string {
	switch c.Transport {
	case "mcp":
		return "the tool's inputSchema lists its arguments"
	case "lsp":
		return "hashls.toolSchemas lists every tool's arguments"
	}
	return "see `hashls tool " + tool + " --schema`"
}
