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

// LineRange is an inclusive 1-based span of lines.
type LineRange struct{ Start, End int }

// SyntaxChecker is the parse proof: it tells the engine where a text has
// syntax errors. The tree-sitter implementation lives in package treesitter
// and is wired in by package agent.
type SyntaxChecker interface {
	// SyntaxErrors returns the line spans of the ERROR and MISSING nodes of
	// text (LF-normalised, BOM-free) parsed as path's language, one span
	// per node. ok is false when the language is not one that is parsed;
	// the engine then keeps its heuristic behaviour.
	SyntaxErrors(path, text string) (errs []LineRange, ok bool)
}

// LanguageKnower is what a SyntaxChecker may offer to say, cheaply, whether
// it parses path's language at all; the engine then skips building the
// text it would check.
type LanguageKnower interface {
	Parses(path string) bool
}

// SeenLines tells the engine which lines of a snapshot the caller was
// shown (by read, search, a previous edit's result or a refusal).
type SeenLines interface {
	// Seen returns the shown lines of the snapshot of key with this sha256.
	// known is false when nothing records what was shown for it (a tag
	// minted by another tool); the engine then does not check.
	Seen(key string, sha [32]byte) (ranges []LineRange, known bool, err error)
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
	// this tag. found is false when the store never minted tag for key. A
	// snapshot is found only under the tag of its own content (Tag of the
	// content it was recorded for): the engine takes a live file whose
	// sha256 is the snapshot's to have that tag without computing it.
	Lookup(key, tag string) (snap Snapshot, found bool, err error)
}

// Section is one ¶PATH#TAG section of an edit input, with the bodies of
// sections naming the same path merged.
type Section struct {
	Path string // the path as written in the header
	Tag  string // upper-case 4-hex tag, or "" when the header had none
	Body string // the section's lines after the header, joined by "\n"
	// Bracket: the header was written [PATH#TAG]. Error messages answer in
	// the form the caller wrote (results in Options.BracketHeaders').
	Bracket bool
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
	// Checker is the parse proof for repairs and the post-edit syntax
	// warning; nil keeps the heuristic repairs unchecked.
	Checker SyntaxChecker
	// Seen, when set, refuses hunks anchored on lines no read of the
	// tagged snapshot displayed (for snapshots it knows about).
	Seen SeenLines
	// BracketHeaders prints result headers as [PATH#TAG] instead of ¶PATH#TAG.
	BracketHeaders bool
}

// BlockResolution records how a block op resolved (echoed in the response).
type BlockResolution struct {
	Op         string // the op as written: "replace block", "delete block", "insert after block", "SWAP.BLK", "DEL.BLK", "INS.BLK.POST"
	AnchorLine int
	Start, End int
}

// Result is the outcome of applying one section.
type Result struct {
	Path     string
	Old, New []byte // exact bytes before and after (BOM and line endings kept)
	OldTag   string
	NewTag   string
	// OldSHA256 is the sha256 of Old, which the engine computed to check
	// the tag: callers use it as the commit's base instead of hashing Old
	// again.
	OldSHA256 [32]byte
	// NewSHA256 is the sha256 of New (zero when Remove is set): callers
	// commit it with New instead of hashing New again.
	NewSHA256 [32]byte
	// NoOp is true when the section applied but changed nothing; New == Old.
	NoOp             bool
	Warnings         []string
	Blocks           []BlockResolution
	Text             string // the response text for this section
	Diff             string // unified diff Old → New (LF view), with a/ b/ headers
	FirstChangedLine int    // 1-based first changed line in New, 0 if none

	// Remove is set for a `REM` section: the file is to be deleted (New is
	// nil). MoveTo is the destination of an `MV` section: New is to be
	// written there and the file deleted. The caller commits both.
	Remove bool
	MoveTo string
	// Seen lists the lines of New the caller has now been shown or wrote,
	// to be recorded for New's snapshot; SeenKnown is false when the
	// tagged snapshot had no record of what was shown (nothing to carry).
	Seen      []LineRange
	SeenKnown bool
}

// Error kinds reported by the engine (Error.Kind).
const (
	KindParse    = "invalid_input" // the input is malformed
	KindApply    = "invalid_edit"  // the edit does not fit the file (bounds, overlap, unresolved block)
	KindStale    = "stale"         // the tag does not prove the live content and recovery failed
	KindNoChange = "no_change"     // the edit changed nothing (hard error in multi-section inputs)
	KindUnseen   = "unseen"        // a hunk is anchored on lines no read of the snapshot displayed
)

// Error is an engine error with a kind and the caller-facing message.
type Error struct {
	Kind string
	Msg  string
	Err  error // optional wrapped cause
	// Shown lists the lines of the live file the message displays (as
	// context rows); the caller records them as seen for the live content
	// so that a retry with the live tag can anchor on them.
	Shown []LineRange
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }
