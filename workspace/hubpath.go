package workspace

import (
	"os"
	"path/filepath"
	"time"
)

// HubSocket returns the path of the hub of root (the `hashls serve` of an
// editor open on it): <stateDir>/hub/<first 16 hex of sha256(canonical
// root)>.sock, with stateDir resolved as StateDir does. On Unix the hub
// listens on a socket there; on every OS its lock is that path's .lock
// (package hub decides the endpoint: on Windows a named pipe named after
// this path). The hub creates the directory owner-only (MkdirHub, 0700).
func HubSocket(stateDir, root string) (string, error) {
	dir, err := StateDir(stateDir)
	if err != nil {
		return "", err
	}
	real, err := CanonicalRoot(root)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "hub", shortHash(real)+".sock"), nil
}

// MkdirHub creates the directory of a hub socket, owner-only, and checks
// that it and the state directory are the user's own (private.go).
func MkdirHub(sock string) error {
	return ensureStateSub(filepath.Dir(sock))
}

// CheckHub checks, without creating anything, that the state directory and
// the hub directory holding the socket sock are the user's own and closed
// to others (private.go): a caller sends nothing to a socket another user
// could have put there.
func CheckHub(sock string) error {
	dir := filepath.Dir(sock)
	if err := checkStateDir(filepath.Dir(dir)); err != nil {
		return err
	}
	return checkOwnDir(dir)
}

// TryLockFile takes an exclusive lock on the file name (created 0600) without
// waiting: flock on Unix, LockFileEx on Windows, released by the OS when the
// process dies. ok is false when another process (or open file) holds it.
func TryLockFile(name string) (release func(), ok bool, err error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, err
	}
	locked, err := tryLockFile(f)
	if err != nil || !locked {
		f.Close()
		return nil, false, err
	}
	return func() {
		unlockFile(f)
		f.Close()
	}, true, nil
}

// LockFileWait takes the exclusive lock on the file name, waiting up to
// timeout.
func LockFileWait(name string, timeout time.Duration) (release func(), err error) {
	return lockFile(name, timeout)
}
