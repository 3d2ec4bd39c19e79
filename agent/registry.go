package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/langserver"
	"github.com/hashls/hashls/treesitter"
	"github.com/hashls/hashls/workspace"
)

// Result is what a tool returns: the text an agent reads, structured
// details, and the files it changed as typed values (transports and editor
// panels read these; they never parse Text).
type Result struct {
	Text    string   `json:"text"`
	Details any      `json:"details,omitempty"`
	Changes []Change `json:"changes,omitempty"`
	// Shown lists the files whose text the result shows under a tag (read,
	// search): what an edit may name next.
	Shown []Shown `json:"shown,omitempty"`
	// Warnings are what the caller should know although the tool
	// succeeded (an editor logs them).
	Warnings []string `json:"warnings,omitempty"`
	// Diagnostics are the language servers' new diagnostics after an edit
	// (the tool's diagnostics argument or setting).
	Diagnostics *DiagnosticsReport `json:"diagnostics,omitempty"`
}

// DetailsWithoutDiffs returns Details without the diffs they repeat from
// Changes (edit, write, apply_patch, the file tools that write, restore and
// revert: each of their diffs is some Changes[].Diff), for a transport
// that sends Changes beside the details (MCP's structuredContent), so each
// diff is sent once. Other details are returned as they are; Details is
// not modified.
func (r *Result) DetailsWithoutDiffs() any {
	switch d := r.Details.(type) {
	case diffRepeater:
		return d.withoutDiffs()
	case map[string]any: // restore's and revert's: "diff" is their change's
		diff, ok := d["diff"].(string)
		if !ok || !slices.ContainsFunc(r.Changes, func(c Change) bool { return c.Diff == diff }) {
			return d
		}
		c := maps.Clone(d)
		delete(c, "diff")
		return c
	}
	return r.Details
}

// diffRepeater is details whose diffs all repeat the result's
// Changes[].Diff: withoutDiffs returns a copy without them.
type diffRepeater interface{ withoutDiffs() any }

// withoutDiff returns a copy of files with the diff each one's field
// points at cleared.
func withoutDiff[T any](files []T, field func(*T) *string) []T {
	c := slices.Clone(files)
	for i := range c {
		*field(&c[i]) = ""
	}
	return c
}

// Shown is one file a result shows, with the tag it was shown under.
type Shown struct {
	Path   string `json:"path"` // root-relative
	Tag    string `json:"tag"`
	SHA256 string `json:"sha256"`
}

// Change is one file a tool changed through the commit path.
type Change struct {
	Path      string  `json:"path"` // root-relative
	Op        string  `json:"op"`   // "create", "update" or "delete"
	MovedFrom string  `json:"movedFrom,omitempty"`
	OldSHA256 string  `json:"oldSha256,omitempty"` // "" when the file did not exist
	NewSHA256 string  `json:"newSha256,omitempty"` // "" for a delete
	OldTag    string  `json:"oldTag,omitempty"`
	NewTag    string  `json:"newTag,omitempty"`
	TrashIDs  []int64 `json:"trashIds,omitempty"`
	AuditID   int64   `json:"auditId,omitempty"`
	Overlay   bool    `json:"overlay,omitempty"` // applied to the editor's open buffer
	Diff      string  `json:"diff,omitempty"`
	Note      string  `json:"note,omitempty"`
	// old and new are the content before and after the change when the
	// run held both (held; in this process only, never on the wire):
	// see Contents.
	old, new []byte
	held     bool
}

// Contents returns the content before the change (nil: the file did not
// exist) and after it (nil: deleted), when the run that made the change
// held both in memory, so that a caller in the same process (the editor's
// review) reads neither again; ok is false otherwise (a change received
// from another process, one a formatter changed after).
func (c Change) Contents() (old, new []byte, ok bool) { return c.old, c.new, c.held }

// Error kinds: the one taxonomy of every tool, shared by the CLI (--json),
// the LSP server (error data) and MCP. The file-tool contract's are
// stale_file, not_found, already_exists, permission_denied,
// invalid_argument, conflict, too_large, binary_file and outside_root; the
// rest name failures that contract has no word for. Every error also
// carries a suggested action (SuggestedAction, defaulted per kind).
const (
	KindStale         = "stale_file"        // content changed since it was read (sha256 or tag)
	KindUnseen        = "unseen_lines"      // a hashline edit on lines no read showed: the refusal shows them, retry the same edit
	KindNotFound      = "not_found"         // missing file (or trash entry)
	KindAlreadyExists = "already_exists"    // a create or move onto a path that exists
	KindPermission    = "permission_denied" // the OS refused access, or a change under .git/.hg/.svn without allowVcs
	KindUsage         = "invalid_argument"  // bad arguments: unknown field, wrong type, invalid JSON, a directory where a file is needed
	KindEdit          = "conflict"          // the edit does not fit the file: oldText found 0 or 2+ times, a hashline range or patch chunk that does not apply
	KindTooLarge      = "too_large"         // the file or request exceeds a limit
	KindBinary        = "binary_file"       // binary file where text is needed
	KindOutside       = "outside_root"      // path escapes the workspace root
	KindInput         = "invalid_input"     // malformed hashline edit or patch text
	KindNoChange      = "no_change"         // edit applied but changed nothing (hard)
	KindStore         = "store"             // the store is corrupt, locked or unavailable
	KindIO            = "io"                // other filesystem errors
	KindInternal      = "internal"          // a broken invariant (a bug): reported, never a panic
)

// Error is a tool error: a kind, a caller-facing message, and the action
// the caller should take next (AsError fills in the kind's default when a
// tool gave none).
type Error struct {
	Kind            string `json:"kind"`
	Message         string `json:"message"`
	SuggestedAction string `json:"suggestedAction,omitempty"`
	// ArgsOf names the tool whose arguments were wrong: Caller.Explain
	// adds where the caller finds them to the message.
	ArgsOf string `json:"argsOf,omitempty"`
	Err    error  `json:"-"`
}

func (e *Error) Error() string { return e.Message }

// Text is the error as a caller reading text sees it (the CLI's stderr, an
// MCP result's text): the message, its kind and the next step.
func (e *Error) Text() string {
	return fmt.Sprintf("%s\n\nerror kind: %s; next: %s", strings.TrimRight(e.Message, "\n"), e.Kind, e.SuggestedAction)
}
func (e *Error) Unwrap() error { return e.Err }

// Progress reports progress of long work: done of total (total 0 = unknown).
type Progress func(message string, done, total int)

// Deps are what the tools may touch, given once to New.
type Deps struct {
	WS       *workspace.Workspace // nil only for listing tools (names, schemas)
	Resolver edit.BlockResolver   // the language registry's block resolver; nil: block ops report "no resolver"
	Edit     EditSettings         // the edit tool's user settings (zero value: the defaults)
	// LangServers runs the language servers of the lsp tool and of
	// diagnostics after edits (nil: none; the lsp tool says so).
	LangServers *langserver.Pool
	// Limits bound what one call shows (zero value: DefaultLimits).
	Limits Limits
	// Sets are the toolsets offered (zero value: every tool): Tools and
	// Lookup list only those, and Run refuses the others.
	Sets Sets
	// TurnGap is the quiet gap that ends a session's turn (zero value:
	// DefaultTurnGap; see turn.go).
	TurnGap time.Duration
}

// For is the tools over ws with these dependencies, the resolver of the
// language registry (treesitter) when none is given. Each process builds
// one Deps from its options (package options) and every transport builds
// its tool set of each workspace with For.
func (d Deps) For(ws *workspace.Workspace) *Toolset {
	d.WS = ws
	if d.Resolver == nil {
		d.Resolver = treesitter.DefaultResolver
	}
	return New(d)
}

// Call qualifies one tool run.
type Call struct {
	Progress  Progress // may be nil
	Transport string   // "cli", "lsp", "mcp", "hub": recorded in the audit log
	// ID names this tool run (unique, chosen by the transport; "" for
	// none): recorded with every audit row the run writes, also when
	// recovery finishes its commit.
	ID string
	// Retry says this run repeats a call with the same ID that may have
	// been applied already (a hub died after accepting it): when the store
	// holds changes of ID, Run returns them, already applied, and does
	// nothing again.
	Retry bool
	// Who made the call (agent, session, turn), recorded with every audit
	// row it writes; see turn.go.
	Who workspace.Attribution
	// Offered are the toolsets of whoever made the call when they are not
	// the Toolset's own (a call another process forwarded through the
	// hub): the tools a result's hints may name. nil: Deps.Sets.
	Offered *Sets
}

// Env is what one tool run sees: the Toolset's dependencies and the call.
type Env struct {
	WS        *workspace.Workspace
	Resolver  edit.BlockResolver
	Progress  Progress // may be nil
	Transport string
	CallID    string // Call.ID
	Edit      EditSettings
	Limits    Limits // zero value: DefaultLimits (read them with limits())
	// LS is the language servers of the workspace's root (nil: none).
	LS *langserver.Manager
	// Who made the call (Call.Who); its turn is decided at the first
	// change (who).
	Who workspace.Attribution
	// Offered is Call.Offered (package lsp carries a forwarded call's
	// toolsets to its run in it).
	Offered *Sets
	// tool is the tool run; sets the caller's toolsets (Call.Offered,
	// else Deps.Sets), which its hints may name (hint).
	tool string
	sets Sets
	// after is the call's diagnostics-after-edit and format-on-write
	// request (nil: none), run by commit.
	after *afterEdit
	// turn is the session turn who chose for this call.
	turn string
	// turnGap is Deps.TurnGap.
	turnGap time.Duration
}

// Tool is one agent tool.
type Tool interface {
	Name() string
	Description() string     // one line
	Schema() json.RawMessage // JSON schema of the arguments object
	// Run executes the tool; args has been checked against the schema's
	// field names by Toolset.Run.
	Run(ctx context.Context, env *Env, args json.RawMessage) (*Result, error)
}

// Toolset is the set of tools and the dependencies they run against.
type Toolset struct {
	deps   Deps
	tools  []Tool          // the chosen toolsets' tools, sorted by name
	byName map[string]Tool // every tool
}

// New builds the tool set. Every tool hashls has is listed here, in one
// place, with what it may touch: the workspace (files, overlays, store and
// commit path) and the block resolver.
func New(d Deps) *Toolset {
	tools := []Tool{
		applyPatchTool{},
		auditTool{},
		editTool{},
		findTool{},
		readTool{},
		restoreTool{},
		revertTool{},
		searchTool{},
		trashTool{},
		writeTool{},
		// The file tools (filetools.go): the sha256-gated contract.
		createFileTool{},
		deleteFileTool{},
		editFileTool{},
		globTool{},
		lspTool{},
		lspEditTool{},
		listDirectoryTool{},
		moveFileTool{},
		readFileTool{},
		restoreFileTool{},
		searchFilesTool{},
		writeFileTool{},
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name() < tools[j].Name() })
	ts := &Toolset{deps: d, byName: map[string]Tool{}}
	for _, t := range tools {
		ts.byName[t.Name()] = t
		if d.Sets.Has(t.Name()) {
			ts.tools = append(ts.tools, t)
		}
	}
	return ts
}

// Tools returns the tools of the chosen toolsets (Deps.Sets), sorted by
// name.
func (ts *Toolset) Tools() []Tool { return append([]Tool(nil), ts.tools...) }

// Lookup returns the tool called name when the chosen toolsets offer it.
func (ts *Toolset) Lookup(name string) (Tool, bool) {
	t, ok := ts.byName[name]
	if !ok || !ts.deps.Sets.Has(name) {
		return nil, false
	}
	return t, ok
}

// Sets are the toolsets the tools were chosen from.
func (ts *Toolset) Sets() Sets { return ts.deps.Sets }

// Workspace returns the workspace the tools run against.
func (ts *Toolset) Workspace() *workspace.Workspace { return ts.deps.WS }
