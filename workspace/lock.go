package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// Locks live with the files. A commit locks the directory of every file it
// changes, the directory itself as the file system knows it (its device
// and inode, or volume and file index: dirlock_*.go), not a path spelling
// and not a store: two hashls processes changing one file serialize whatever
// their state directory (HASHLS_STATE_DIR) and whatever path they reached
// the root by (a bind mount, a symlink). A directory's identity survives
// the atomic renames that replace its files (a lock on a file would be on
// the inode the rename replaces). The lock covers every file of the
// directory: commits of two files in one directory take turns.
//
// On Unix the lock is flock(2) on the directory itself; on a file system
// that cannot lock a directory (NFS) it is a lock file in the state
// directory named by the directory's identity (dirlock_unix.go). On Windows,
// which cannot lock a directory, it is a lock file named by the directory's
// volume and file index in a per-user directory, %LOCALAPPDATA%\hashls\locks
// (not the state directory, so that stores elsewhere see it too). The OS
// releases them all when the process dies.
//
// A directory is opened beneath the root, locked, and then found again by
// its name: when the name now leads to another directory (it was removed
// or replaced meanwhile), the lock is let go and taken again. The directory
// stays open while it is locked, and the commit does everything in it
// through that handle (rootfs.go).

// Process-wide lock table: a goroutine waiting for a directory another
// goroutine of this process has locked waits here, honouring its ctx, not
// in the OS. Each key (a directory's identity) has a one-slot channel used
// as a mutex.
var (
	locksMu sync.Mutex
	locks   = map[string]chan struct{}{}
)

func keyMutex(key string) chan struct{} {
	locksMu.Lock()
	defer locksMu.Unlock()
	ch, ok := locks[key]
	if !ok {
		ch = make(chan struct{}, 1)
		locks[key] = ch
	}
	return ch
}

// lockPoll is how often a waiting lock retries the OS lock.
const lockPoll = 5 * time.Millisecond

// maxLockRetries bounds how often a lock is taken again because its
// directory was replaced while it waited.
const maxLockRetries = 100

// heldDir is one directory a lockSet holds: open beneath the root, locked.
type heldDir struct {
	rel     string   // root-relative, slash-separated ("." for the root)
	root    *os.Root // the directory: the commit works through it
	f       *os.File // the directory open (the handle the lock is on, on Unix)
	key     string   // its identity
	release func()
}

func (h *heldDir) close() {
	if h.release != nil {
		h.release()
	}
	h.f.Close()
	h.root.Close()
}

// lockSet is the directories of a set of files, locked.
type lockSet struct {
	dirs map[string]*heldDir // by root-relative directory (two names may share one)
	held []*heldDir
	once sync.Once
}

// at returns the file rel (root-relative) in its locked directory; a
// directory that did not exist when it was locked gives a fileAt without
// one (the file does not exist).
func (l *lockSet) at(rel string) fileAt {
	d, base := splitRel(rel)
	if h := l.dirs[d]; h != nil {
		return fileAt{dir: h.root, name: base}
	}
	return fileAt{name: base}
}

// holds reports whether the directory rel is one the set holds.
func (l *lockSet) holds(dirRel string) bool { return l.dirs[dirRel] != nil }

// unlock releases every lock; it is safe to call more than once.
func (l *lockSet) unlock() {
	l.once.Do(func() {
		for _, h := range l.held {
			h.close()
		}
	})
}

// Lock takes an exclusive lock on the directories of paths, shared by every
// hashls process on the same files (whatever their state directory and the
// path they reached them by) and by every goroutine of this process. Locks
// are taken in the order of the directories' identities, so callers
// locking overlapping sets cannot deadlock. It waits until the locks are
// free or ctx is done. The returned unlock releases them all and is safe to
// call more than once. Locks are not reentrant: taking a directory's lock
// again before unlocking it waits until ctx is done.
func (w *Workspace) Lock(ctx context.Context, paths ...Path) (unlock func(), err error) {
	l, err := w.lockFiles(ctx, paths)
	if err != nil {
		return nil, err
	}
	return l.unlock, nil
}

// lockFiles locks the directories of paths (each directory that exists;
// the caller makes the directories of the files it creates first).
func (w *Workspace) lockFiles(ctx context.Context, paths []Path) (*lockSet, error) {
	var rels []string
	file := map[string]string{} // a file of each directory, for messages
	for _, p := range paths {
		d, _ := splitRel(p.Rel)
		if p.Rel == "." || p.Rel == "" {
			d = "."
		}
		if _, ok := file[d]; !ok {
			file[d] = p.Rel
			rels = append(rels, d)
		}
	}
	for attempt := 0; ; attempt++ {
		l, retry, err := w.tryLockDirs(ctx, rels, file)
		if err != nil || !retry {
			return l, err
		}
		if attempt >= maxLockRetries {
			return nil, &Error{Kind: KindIO, Msg: fmt.Sprintf("cannot lock the directories of %s: they are being replaced again and again (%d times); retry later", describe(paths), attempt)}
		}
	}
}

// tryLockDirs opens and locks the directories rels; retry is true when one
// was replaced while it was being locked (nothing is held then).
func (w *Workspace) tryLockDirs(ctx context.Context, rels []string, file map[string]string) (_ *lockSet, retry bool, _ error) {
	l := &lockSet{dirs: map[string]*heldDir{}}
	var open []*heldDir
	fail := func(err error) (*lockSet, bool, error) {
		for _, h := range open {
			h.close()
		}
		return nil, false, err
	}
	byKey := map[string]*heldDir{}
	for _, rel := range rels {
		h, err := w.openDir(rel)
		if err != nil {
			return fail(err)
		}
		if h == nil {
			continue // no such directory: nothing in it to lock
		}
		if same := byKey[h.key]; same != nil { // one directory by two names
			h.close()
			l.dirs[rel] = same
			continue
		}
		byKey[h.key] = h
		open = append(open, h)
		l.dirs[rel] = h
	}
	sort.Slice(open, func(i, j int) bool { return open[i].key < open[j].key })
	for _, h := range open {
		mu := keyMutex(h.key)
		select {
		case mu <- struct{}{}:
		case <-ctx.Done():
			return fail(lockCancelled(file[h.rel], ctx.Err()))
		}
		release, err := lockDirOS(ctx, h.f, h.key, w.stateDir)
		if err != nil {
			<-mu
			if ctx.Err() != nil {
				return fail(lockCancelled(file[h.rel], ctx.Err()))
			}
			return fail(&Error{Kind: KindStore, Msg: fmt.Sprintf("cannot lock the directory %s: %v", h.rel, err), Err: err})
		}
		h.release = func() { release(); <-mu }
		// Found again by its name: still the directory locked?
		if again, err := w.openDir(h.rel); err != nil || again == nil || again.key != h.key {
			if again != nil {
				again.close()
			}
			for _, o := range open {
				o.close()
			}
			return nil, true, nil
		} else {
			again.close()
		}
	}
	l.held = open
	return l, false, nil
}

// openDir opens the root-relative directory rel beneath the root; nil when
// it does not exist.
func (w *Workspace) openDir(rel string) (*heldDir, error) {
	r, err := w.openSubRoot(rel)
	if err != nil {
		if isNotExist(err) {
			return nil, nil
		}
		return nil, fsError("open the directory", rel, err)
	}
	f, err := r.Open(".")
	if err != nil {
		r.Close()
		return nil, fsError("open the directory", rel, err)
	}
	key, err := dirKey(f)
	if err != nil {
		f.Close()
		r.Close()
		return nil, fsError("identify the directory", rel, err)
	}
	return &heldDir{rel: rel, root: r, f: f, key: key}, nil
}

// describe names paths for a message.
func describe(paths []Path) string {
	if len(paths) == 1 {
		return paths[0].Rel
	}
	return fmt.Sprintf("%s and %d more", paths[0].Rel, len(paths)-1)
}

func lockCancelled(file string, err error) *Error {
	return &Error{Kind: KindIO, Msg: fmt.Sprintf("gave up waiting for the lock on %s (its directory's): %v; another hashls process is changing a file there, retry later", file, err), Err: err}
}

// lockFileIn locks the lock file for the directory identity key in dir
// (made owner-only), waiting until ctx is done.
func lockFileIn(ctx context.Context, dir, key string) (release func(), err error) {
	if err := ensureStateSub(dir); err != nil {
		return nil, err
	}
	name := filepath.Join(dir, shortHash(key)+".lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := flockWait(ctx, f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		unlockFile(f)
		f.Close()
	}, nil
}

// flockWait takes an exclusive lock on f (flock on Unix, LockFileEx on
// Windows: lockfile_*.go), polling until it is free or ctx is done.
func flockWait(ctx context.Context, f *os.File) error {
	var t *time.Timer
	for {
		locked, err := tryLockFile(f)
		if err != nil {
			return err
		}
		if locked {
			return nil
		}
		if t == nil {
			t = time.NewTimer(lockPoll)
			defer t.Stop()
		} else {
			t.Reset(lockPoll)
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
