package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Options configures Open.
type Options struct {
	// StateDir is where the store lives. "" means $HASHLS_STATE_DIR, else
	// the OS's default (see StateDir).
	StateDir string
	// NoStore opens the workspace without a store (tests, read-only use).
	NoStore bool
	// Limits are the store's retention limits; the zero value means
	// DefaultLimits.
	Limits Limits
	// OneShot says the process makes one call and exits (the CLI): the
	// store reads on its writer connection instead of opening a second
	// one, whose open and parse of the schema would cost as much as the
	// reads.
	OneShot bool
}

// Workspace is one root directory with its overlays and store. Its methods
// are safe for concurrent use.
type Workspace struct {
	root     string   // absolute, symlinks resolved
	fsroot   *os.Root // the root, open: every file operation goes through it (rootfs.go)
	stateDir string   // absolute
	store    *Store

	mu       sync.RWMutex
	overlays map[string]overlay // by Path.Abs
	editor   BufferEditor

	recovered []Recovery // what Open's recovery did
	notices   []string   // what the user must hear about the store, once (Notices)
	storeDown error      // the store could not be opened for a cause of its disk: reads only

	// unrecorded: a read could not be recorded for a cause of the store's
	// disk, and the notices said so (RecordReads).
	unrecorded bool
}

// Open opens the workspace rooted at root (made absolute, symlinks resolved)
// and its store.
func Open(root string, opts Options) (*Workspace, error) {
	real, err := CanonicalRoot(root)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, fsError("workspace root", real, err)
	}
	if !st.IsDir() {
		return nil, &Error{Kind: KindIO, Msg: fmt.Sprintf("workspace root %s is not a directory; pass a directory", real)}
	}
	stateDir, err := StateDir(opts.StateDir)
	if err != nil {
		return nil, err
	}
	fsroot, err := openRoot(real)
	if err != nil {
		return nil, fsError("workspace root", real, err)
	}
	w := &Workspace{root: real, fsroot: fsroot, stateDir: stateDir, overlays: map[string]overlay{}}
	if !opts.NoStore {
		limits := opts.Limits
		if limits == (Limits{}) {
			limits = DefaultLimits()
		}
		path := StorePath(stateDir, real)
		s, err := openStoreFile(path, limits)
		switch {
		case err != nil && storeCause(err) != "":
			// A read-only, unwritable or full state directory: reads need
			// nothing stored, so they go on (unrecorded); changes are refused.
			w.storeDown = err
			w.notices = append(w.notices, degradedStore(path, err))
			return w, nil
		case err != nil:
			return nil, err
		}
		w.store = s
		if opts.OneShot {
			s.readOnWriter()
		}
		if s.notice != "" {
			w.notices = append(w.notices, s.notice)
			_, _ = s.Audit(AuditEntry{Tool: "store", Path: ".", Note: s.notice, Transport: "recovery"})
		}
		// Finish what a crashed process left half done. A failure here
		// leaves the journal for the next open; it does not stop this one.
		w.recovered, _ = w.Recover(context.Background())
	}
	return w, nil
}

// CanonicalRoot returns root as Open keys it: absolute, symlinks resolved,
// spelled as the file system stores it. The store and the hub's endpoint are
// found by this name.
func CanonicalRoot(root string) (string, error) {
	if root == "" {
		return "", &Error{Kind: KindInvalid, Msg: "workspace root is empty; pass the directory to work in"}
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", &Error{Kind: KindIO, Msg: fmt.Sprintf("workspace root %s: %v", root, err), Err: err}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		e := fsError("workspace root", abs, err)
		e.Msg += "; pass an existing directory as the workspace root"
		return "", e
	}
	return canonicalPath(real, ""), nil
}

// Recovered reports the interrupted commits that Open finished.
func (w *Workspace) Recovered() []Recovery { return w.recovered }

// Close closes the store and the root.
func (w *Workspace) Close() error {
	if w == nil {
		return nil
	}
	if w.fsroot != nil {
		w.fsroot.Close()
	}
	if w.store == nil {
		return nil
	}
	return w.store.Close()
}

// Root returns the absolute, symlink-resolved root.
func (w *Workspace) Root() string { return w.root }

// Store returns the workspace's store (nil with Options.NoStore).
func (w *Workspace) Store() *Store { return w.store }

// StateDirPath returns the absolute state directory used for the store and
// the lock files.
func (w *Workspace) StateDirPath() string { return w.stateDir }

// StateDir returns the state directory to use: dir when not empty, else
// $HASHLS_STATE_DIR, else the OS's default (stateHome, statedir_*.go):
// $XDG_STATE_HOME/hashls, else ~/.local/state/hashls on Unix and macOS;
// %LOCALAPPDATA%\hashls, else <home>\AppData\Local\hashls on Windows. The
// result is absolute; it is not created.
func StateDir(dir string) (string, error) {
	if dir == "" {
		dir = os.Getenv("HASHLS_STATE_DIR")
	}
	if dir == "" {
		if x := os.Getenv(stateHome.env); x != "" && filepath.IsAbs(x) {
			dir = filepath.Join(x, "hashls")
		}
	}
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return "", &Error{Kind: KindStore, Msg: fmt.Sprintf("cannot find a state directory for the store: neither %s nor a home directory is set; set HASHLS_STATE_DIR", stateHome.env), Err: err}
		}
		dir = filepath.Join(append([]string{home}, append(stateHome.inHome, "hashls")...)...)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", &Error{Kind: KindStore, Msg: fmt.Sprintf("state directory %s: %v; set HASHLS_STATE_DIR to an absolute directory", dir, err), Err: err}
	}
	return abs, nil
}

// StorePath returns the database file for root under stateDir:
// <stateDir>/roots/<base>-<first 16 hex of sha256(root)>.db.
func StorePath(stateDir, root string) string {
	return filepath.Join(stateDir, "roots", safeBase(root)+"-"+shortHash(root)+".db")
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// safeBase is root's last element restricted to [A-Za-z0-9._-], at most 40
// bytes, "root" when nothing is left.
func safeBase(root string) string {
	b := filepath.Base(root)
	var sb strings.Builder
	for _, r := range b {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
		if sb.Len() >= 40 {
			break
		}
	}
	s := strings.Trim(sb.String(), ".")
	if s == "" {
		s = "root"
	}
	return s
}
