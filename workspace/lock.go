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

// Process-wide lock table: flock locks belong to open file descriptions, so
// two goroutines of one process would not exclude each other through flock
// alone. Each key has a one-slot channel used as a mutex that honours ctx.
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

// lockPoll is how often a waiting Lock retries flock.
const lockPoll = 5 * time.Millisecond

// Lock takes an exclusive lock on paths, shared by every hashls process using
// the same state directory (flock on <state>/locks/<hash>.lock) and by every
// goroutine of this process. Locks are taken in sorted order, so callers
// locking overlapping sets cannot deadlock. It waits until the locks are free
// or ctx is done. The returned unlock releases them all and is safe to call
// more than once. Locks are not reentrant: taking a path's lock again before
// unlocking it waits until ctx is done.
func (w *Workspace) Lock(ctx context.Context, paths ...Path) (unlock func(), err error) {
	keys := make([]string, 0, len(paths))
	seen := map[string]bool{}
	for _, p := range paths {
		if !seen[p.Abs] {
			seen[p.Abs] = true
			keys = append(keys, p.Abs)
		}
	}
	sort.Strings(keys)
	dir := filepath.Join(w.stateDir, "locks")
	if len(keys) > 0 {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, &Error{Kind: KindStore, Msg: fmt.Sprintf("cannot create the lock directory %s: %v; set HASHLS_STATE_DIR to a writable directory", dir, err), Err: err}
		}
	}
	var held []func()
	release := func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i]()
		}
		held = nil
	}
	for _, k := range keys {
		r, err := lockOne(ctx, dir, k)
		if err != nil {
			release()
			return nil, err
		}
		held = append(held, r)
	}
	var once sync.Once
	return func() { once.Do(release) }, nil
}

// lockOne takes the in-process mutex and then the flock for key.
func lockOne(ctx context.Context, dir, key string) (func(), error) {
	mu := keyMutex(key)
	select {
	case mu <- struct{}{}:
	case <-ctx.Done():
		return nil, lockCancelled(key, ctx.Err())
	}
	name := filepath.Join(dir, shortHash(key)+".lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		<-mu
		return nil, &Error{Kind: KindStore, Msg: fmt.Sprintf("cannot open the lock file %s: %v; set HASHLS_STATE_DIR to a writable directory", name, err), Err: err}
	}
	if err := flockWait(ctx, f); err != nil {
		f.Close()
		<-mu
		if ctx.Err() != nil {
			return nil, lockCancelled(key, ctx.Err())
		}
		return nil, &Error{Kind: KindStore, Msg: fmt.Sprintf("cannot lock %s (%s): %v", key, name, err), Err: err}
	}
	return func() {
		unlockFile(f)
		f.Close()
		<-mu
	}, nil
}

func lockCancelled(key string, err error) *Error {
	return &Error{Kind: KindIO, Msg: fmt.Sprintf("gave up waiting for the lock on %s: %v; another hashls process is editing it, retry later", key, err), Err: err}
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
