package workspace

import (
	"context"
	"errors"
	"io/fs"
	"time"
)

// TODO(workspace helper): the declarations below are the agreed API; the
// function bodies in this file are stubs to be replaced.

var errTODO = errors.New("workspace: not implemented yet")

// Error kinds (see Error.Kind); package agent maps them to tool error kinds.
const (
	KindNotFound   = "not_found"
	KindOutside    = "outside_root"
	KindBinary     = "binary"
	KindStore      = "store"
	KindStale      = "stale"
	KindPermission = "permission_denied"
	KindIO         = "io"
)

// Error is a workspace error with a kind and a caller-facing message.
type Error struct {
	Kind string
	Msg  string
	Err  error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Options configures Open.
type Options struct {
	// StateDir is where the store lives. "" means $HASHLS_STATE_DIR, else
	// $XDG_STATE_HOME/hashls, else ~/.local/state/hashls.
	StateDir string
	// NoStore opens the workspace without a store (tests, read-only use).
	NoStore bool
}

// Workspace is one root directory with its overlays and store.
type Workspace struct {
	root  string // absolute, symlinks resolved
	store *Store
}

// Open opens the workspace rooted at root (made absolute, symlinks resolved)
// and its store.
func Open(root string, opts Options) (*Workspace, error) { return nil, errTODO }

// Close closes the store.
func (w *Workspace) Close() error { return nil }

// Root returns the absolute, symlink-resolved root.
func (w *Workspace) Root() string { return w.root }

// Store returns the workspace's store (nil with Options.NoStore).
func (w *Workspace) Store() *Store { return w.store }

// Path is a path confined to the root.
type Path struct {
	Abs string // absolute, inside the root (symlinks in existing parents resolved)
	Rel string // slash-separated, relative to the root ("." for the root)
}

// Resolve confines p (relative to the root, or absolute inside it) to the
// root. "..", absolute paths outside the root and symlinks that escape it are
// refused with KindOutside. The file need not exist.
func (w *Workspace) Resolve(p string) (Path, error) { return Path{}, errTODO }

// File is a file's content as tools see it: the overlay when the editor has
// the file open, else the disk.
type File struct {
	Path    Path
	Bytes   []byte
	Mode    fs.FileMode
	ModTime time.Time
	Overlay bool  // content came from an open editor buffer
	Version int32 // the overlay's version
}

// ReadFile reads p: the overlay if one is set, else the disk. A missing file is
// KindNotFound; a directory is an error.
func (w *Workspace) ReadFile(p Path) (*File, error) { return nil, errTODO }

// BufferEditor applies an edit to a file the editor has open (set by the LSP
// server). ApplyEdit replaces the buffer's whole text old → new at version;
// it returns a KindStale error when the buffer moved or the client refused.
type BufferEditor interface {
	ApplyEdit(ctx context.Context, p Path, version int32, old, new []byte, label string) error
}

// SetBufferEditor installs the editor used for writes to overlaid files.
func (w *Workspace) SetBufferEditor(e BufferEditor) {}

// SetOverlay records an open buffer's text at version; CloseOverlay drops it.
func (w *Workspace) SetOverlay(p Path, text []byte, version int32) {}
func (w *Workspace) CloseOverlay(p Path)                           {}

// WriteFile replaces p's content. When the editor has p open and a
// BufferEditor is set, the edit goes to the editor (versioned); otherwise the
// disk write is atomic (temp file in the same directory, fsync, rename) and
// keeps the file's mode. old is the content the caller based the change on
// (nil for a new file); when the current content no longer equals old the
// write fails with KindStale and nothing is written.
func (w *Workspace) WriteFile(ctx context.Context, p Path, old, new []byte, label string) error {
	return errTODO
}

// Store is the persistent record: snapshots, audit log and trash.
type Store struct{}

// OpenStore opens (creating if needed) the store for root under stateDir.
func OpenStore(stateDir, root string) (*Store, error) { return nil, errTODO }

// Close closes the store's connections.
func (s *Store) Close() error { return nil }

// Snapshot is one recorded version of a file.
type Snapshot struct {
	Key     string // canonical path key (absolute, symlinks resolved)
	Tag     string
	SHA256  [32]byte
	Content []byte // nil when not kept (over MaxContentBytes)
	Size    int64
	Time    time.Time
	Head    bool
}

// Record records content for key with its tag (the caller computes it). Recording
// content that is already the newest version only refreshes it.
func (s *Store) Record(key, tag string, content []byte) error { return errTODO }

// Lookup returns the newest snapshot of key with tag.
func (s *Store) Lookup(key, tag string) (Snapshot, bool, error) { return Snapshot{}, false, errTODO }

// AuditEntry is one row of the audit log.
type AuditEntry struct {
	ID           int64
	Tool         string
	Path         string // root-relative
	SHA256Before string // hex, "" when the file did not exist
	SHA256After  string // hex, "" when the file was removed
	Time         time.Time
	Note         string
}

// Audit appends an entry and returns its id.
func (s *Store) Audit(e AuditEntry) (int64, error) { return 0, errTODO }

// Trash keeps content that a tool is about to replace or delete, returning an id.
func (s *Store) Trash(key string, content []byte, reason string) (int64, error) { return 0, errTODO }
