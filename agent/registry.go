package agent

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/workspace"
)

// Result is what a tool returns: the text an agent reads and structured details.
type Result struct {
	Text    string `json:"text"`
	Details any    `json:"details,omitempty"`
}

// Error kinds, shared by the CLI (--json) and the LSP server (error data).
const (
	KindUsage      = "usage"             // bad arguments: unknown field, wrong type, invalid JSON
	KindNotFound   = "not_found"         // missing file
	KindOutside    = "outside_root"      // path escapes the workspace root
	KindInput      = "invalid_input"     // malformed edit input
	KindEdit       = "invalid_edit"      // the edit does not fit the file
	KindStale      = "stale"             // content changed since it was read
	KindNoChange   = "no_change"         // edit applied but changed nothing (hard)
	KindBinary     = "binary"            // binary file where text is needed
	KindStore      = "store"             // the store is corrupt, locked or unavailable
	KindPermission = "permission_denied" // the OS refused access
	KindIO         = "io"                // other filesystem errors
	KindInternal   = "internal"          // a broken invariant (a bug): reported, never a panic
)

// Error is a tool error with a kind and a caller-facing message.
type Error struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Err     error  `json:"-"`
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// Progress reports progress of long work: done of total (total 0 = unknown).
type Progress func(message string, done, total int)

// Env is what tools run against.
type Env struct {
	WS       *workspace.Workspace
	Resolver edit.BlockResolver // nil: block ops report "no resolver"
	Progress Progress           // may be nil
}

// Tool is one agent tool.
type Tool interface {
	Name() string
	Description() string     // one line
	Schema() json.RawMessage // JSON schema of the arguments object
	// Run executes the tool; args has been checked against the schema's
	// field names by Run.
	Run(ctx context.Context, env *Env, args json.RawMessage) (*Result, error)
}

var registry = map[string]Tool{}

// register adds a tool; each tool file calls it from init.
func register(t Tool) { registry[t.Name()] = t }

// Tools returns every registered tool, sorted by name.
func Tools() []Tool {
	out := make([]Tool, 0, len(registry))
	for _, t := range registry {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Lookup returns the tool called name.
func Lookup(name string) (Tool, bool) {
	t, ok := registry[name]
	return t, ok
}
