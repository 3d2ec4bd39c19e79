package agent

import (
	"regexp"
	"slices"
)

// An error's next step names tools, and which tools a caller can call
// depends on who it is: an MCP model has the tools of its toolsets and no
// shell, a CLI user has every tool and `hashls tool NAME --schema`. Tools
// therefore write the tools a suggested action names as jobs ({read},
// {create}, ...), each inside a clause in brackets that is left out when
// the caller has no tool for it ("Check the path[ ({find} lists what
// exists)]"), and mark an argument error with Error.ArgsOf; each
// transport renders the error for its caller once, at its edge
// (Caller.Explain), after it came back from wherever the tool ran (this
// process or the hub). A result's text is final where the tool ran: its
// hints are rendered the same way for the caller's toolsets (Env.hint;
// Call.Offered carries a forwarded caller's). Messages and result texts
// name no other tool by itself (TestHintsNameOfferedTools).

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
	"revert":  {"revert", "revert"},
}

// jobRE matches a job in a suggested action, or {proof}: what proves the
// content the caller saw, the sha256 for the file tools, the ¶PATH#TAG
// header for the others. {revert} is the history's revert.
var jobRE = regexp.MustCompile(`\{(read|write|create|edit|find|list|search|restore|delete|trash|audit|revert|proof)\}`)

// clauseRE matches a clause of a next step that names jobs: "[ ({find}
// lists what exists)]". It is kept (without its brackets) when the caller
// has a tool for each of its jobs, and left out otherwise, so that a next
// step never names a tool the caller cannot call and still reads well.
var clauseRE = regexp.MustCompile(`\[([^\[\]]*\{[a-z]+\}[^\[\]]*)\]`)

// fileFamily reports whether tool is one of the file tools (the
// stale-file toolset).
func fileFamily(tool string) bool { return slices.Contains(setsOf(tool), "stale-file") }

// toolFor names the tool that does job for c, called from tool: the face
// of tool's own family when c's toolsets offer it, else the other family's
// when they offer that; ok false when c has neither.
func (c Caller) toolFor(job, tool string) (name string, ok bool) {
	f, known := faces[job]
	if !known {
		return job, c.Sets.Has(job)
	}
	mine, other := f[0], f[1]
	if fileFamily(tool) {
		mine, other = other, mine
	}
	switch {
	case c.Sets.Has(mine):
		return mine, true
	case c.Sets.Has(other):
		return other, true
	}
	return mine, false
}

// render renders a next step written with jobs (a suggested action, a
// result's hint) for c after a call of tool: each clause in brackets is
// kept when c has a tool for every job it names and left out otherwise,
// and each job becomes the tool c has for it. A job outside a clause is
// one c is sure to have (tool's own set holds it); it is named even when
// c lacks it, which TestHintsNameOfferedTools rules out.
func (c Caller) render(tool, step string) string {
	step = clauseRE.ReplaceAllStringFunc(step, func(m string) string {
		inner := m[1 : len(m)-1]
		for _, j := range jobRE.FindAllStringSubmatch(inner, -1) {
			if _, ok := c.toolFor(j[1], tool); j[1] != "proof" && !ok {
				return ""
			}
		}
		return inner
	})
	return jobRE.ReplaceAllStringFunc(step, func(m string) string {
		switch job := m[1 : len(m)-1]; {
		case job != "proof":
			name, _ := c.toolFor(job, tool)
			return name
		case fileFamily(tool):
			return "sha256"
		default:
			return "¶PATH#TAG"
		}
	})
}

// Explain returns err as an *Error (AsError) rendered for c after a call of
// tool: the jobs its suggested action names become tools c has (render),
// and an argument error names where c finds the tool's arguments.
func (c Caller) Explain(tool string, err error) *Error {
	ae := AsError(err)
	action := c.render(tool, ae.SuggestedAction)
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

// hint renders a next step written with jobs (render) for the caller of
// env's run: what a result's text may say to do next.
func (env *Env) hint(step string) string {
	return Caller{Transport: env.Transport, Sets: env.sets}.render(env.tool, step)
}
