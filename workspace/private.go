package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The state directory is the user's own. What hashls keeps there (the
// store, with the content of files and the journal that recovery acts on;
// the hub's socket, which receives every forwarded call; the lock files)
// must be nobody else's to read or change. So the directories hashls
// makes there are made owner-only (0700) and the store's files 0600, and
// before use (private_*.go):
//
//   - the state directory must belong to the user and be writable by no
//     other user (its group may write it only when it is the user's own
//     group), and no directory above it may let other users rename it away
//     (writable by them without the sticky bit);
//   - each directory hashls keeps in it (roots, hub, locks) must belong to
//     the user: one looser than 0700 is made 0700;
//   - the store's files must belong to the user and not be writable by
//     others; one readable by others (0644, what hashls made before) is
//     made 0600.
//
// Anything else is refused with a KindStore error that says what is wrong
// and what to do. On Windows, where a directory's ACL says who may use it
// and %LOCALAPPDATA% is the user's own, none of this is checked (the hub's
// named pipe checks its own owner).

// ensureStateSub creates (0700) and checks the directory sub of the state
// directory, dir = <state>/<sub>, and the state directory above it.
func ensureStateSub(dir string) error {
	state := filepath.Dir(dir)
	if err := os.MkdirAll(state, 0o700); err != nil {
		return stateDirErr(state, err)
	}
	if err := checkStateDir(state); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return stateDirErr(dir, err)
	}
	return checkOwnDir(dir)
}

func stateDirErr(dir string, err error) *Error {
	if cause := storeCause(err); cause != "" {
		return &Error{Kind: KindStore, Msg: fmt.Sprintf("state directory %s: %v: %s", dir, err, cause), Err: err}
	}
	return &Error{Kind: KindStore, Msg: fmt.Sprintf("cannot create the state directory %s: %v; set HASHLS_STATE_DIR to a directory of your own", dir, err), Err: err}
}

// notPrivate is the error for a path of the state directory that others
// could read or change.
func notPrivate(path, why string) *Error {
	return &Error{Kind: KindStore, Msg: fmt.Sprintf("refusing the state directory: %s %s, so other users could read or change what hashls keeps there (file contents, the commit journal, the hub's socket); set HASHLS_STATE_DIR to a directory only you can write (hashls creates it 0700 when it is missing), or fix its owner and mode", path, why)}
}
