package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// maxSocketPath bounds a hub socket's path: sun_path holds 108 bytes on
// Linux and Windows, 104 on macOS (with the terminating NUL).
const maxSocketPath = 103

// HubSocket returns the Unix socket where the hub of root (the `hashls serve`
// of an editor open on it) is advertised: <stateDir>/hub/<first 16 hex of
// sha256(canonical root)>.sock, with stateDir resolved as StateDir does. The
// hub creates the directory owner-only (MkdirHub, 0700), so only its owner can
// reach the socket. It fails when the path would be too long for a socket address
// (a very deep state directory): there is no hub then, and every process
// works directly on the store.
func HubSocket(stateDir, root string) (string, error) {
	dir, err := StateDir(stateDir)
	if err != nil {
		return "", err
	}
	real, err := CanonicalRoot(root)
	if err != nil {
		return "", err
	}
	sock := filepath.Join(dir, "hub", shortHash(real)+".sock")
	if len(sock) > maxSocketPath {
		return "", &Error{Kind: KindInvalid, Msg: fmt.Sprintf("hub socket path %s is %d bytes, longer than a socket address holds (%d); set HASHLS_STATE_DIR to a shorter directory to use the hub", sock, len(sock), maxSocketPath)}
	}
	return sock, nil
}

// MkdirHub creates the directory of a hub socket, owner-only.
func MkdirHub(sock string) error {
	dir := filepath.Dir(sock)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fsError("hub directory", dir, err)
	}
	return os.Chmod(dir, 0o700)
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
