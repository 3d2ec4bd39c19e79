package edit

// BlockResolver finds the syntactic block that begins on a line. The
// tree-sitter implementation lives in package treesitter and is wired in by
// package agent.
type BlockResolver interface {
	// BlockRange returns the inclusive 1-based line span [start, end] of the
	// block beginning on line (1-based) of text, which is LF-normalised and
	// BOM-free. The language is chosen from path's name. ok is false when no
	// block resolves there (unknown language, blank or closing line, syntax
	// error inside the node).
	BlockRange(path, text string, line int) (start, end int, ok bool)
}

// Snapshot is one version of a file recorded by a snapshot store.
type Snapshot struct {
	Tag    string   // 4 uppercase hex digits, Tag(Content)
	SHA256 [32]byte // sha256 of the exact recorded bytes
	// Content is the exact recorded bytes, or nil when the store did not keep
	// them (very large files): the tag is still checked, recovery is impossible.
	Content []byte
	// Load, when Content is nil, fetches the content on demand (stores that
	// avoid reading large blobs just to check a tag). It returns nil when the
	// content is not kept.
	Load func() ([]byte, error)
	Head bool // the newest version recorded for the path
}

// Snapshots is what the engine needs from a snapshot store.
type Snapshots interface {
	// Lookup returns the newest snapshot recorded for the canonical key with
	// this tag. found is false when the store never minted tag for key.
	Lookup(key, tag string) (snap Snapshot, found bool, err error)
}

// Section is one ¶PATH#TAG section of an edit input, with the bodies of
// sections naming the same path merged.
type Section struct {
	Path string // the path as written in the header
	Tag  string // upper-case 4-hex tag, or "" when the header had none
	Body string // the section's lines after the header, joined by "\n"
}

// File is the live state of the file a section targets.
type File struct {
	Path  string // display path (as in the header, used in messages)
	Key   string // canonical store key (e.g. the resolved absolute path)
	Bytes []byte // the live bytes: disk content or an open editor buffer
}

// Options configures ApplySection.
type Options struct {
	Resolver  BlockResolver // nil: block ops fail with the "no resolver" error
	Snapshots Snapshots     // nil: tags validate purely by hash, no recovery
}

// BlockResolution records how a block op resolved (echoed in the response).
type BlockResolution struct {
	Op         string // "replace block", "delete block", "insert after block"
	AnchorLine int
	Start, End int
}

// Result is the outcome of applying one section.
type Result struct {
	Path     string
	Old, New []byte // exact bytes before and after (BOM and line endings kept)
	OldTag   string
	NewTag   string
	// NoOp is true when the section applied but changed nothing; New == Old.
	NoOp             bool
	Warnings         []string
	Blocks           []BlockResolution
	Text             string // the response text for this section
	Diff             string // unified diff Old → New (LF view), with a/ b/ headers
	FirstChangedLine int    // 1-based first changed line in New, 0 if none
}

// Error kinds reported by the engine (Error.Kind).
const (
	KindParse    = "invalid_input" // the input is malformed
	KindApply    = "invalid_edit"  // the edit does not fit the file (bounds, overlap, unresolved block)
	KindStale    = "stale"         // the tag does not prove the live content and recovery failed
	KindNoChange = "no_change"     // the edit changed nothing (hard error in multi-section inputs)
)

// Error is an engine error with a kind and the caller-facing message.
type Error struct {
	Kind string
	Msg  string
	Err  error // optional wrapped cause
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }
