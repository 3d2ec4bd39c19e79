package workspace

import (
	"errors"
	"fmt"
	"io/fs"
)

// Error kinds (see Error.Kind); package agent maps them to tool error kinds.
const (
	KindNotFound   = "not_found"
	KindOutside    = "outside_root"
	KindBinary     = "binary"
	KindStore      = "store"
	KindStale      = "stale"
	KindPermission = "permission_denied"
	KindIO         = "io"
	// KindInvalid is a malformed path argument (empty, NUL byte): the
	// caller's input is wrong, not the filesystem.
	KindInvalid = "invalid_path"
	// KindInternal is a broken invariant (a hashls bug).
	KindInternal = "internal"
)

// Error is a workspace error with a kind and a caller-facing message.
type Error struct {
	Kind string
	Msg  string
	Err  error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// IsKind reports whether err is (or wraps) a *Error of the given kind.
func IsKind(err error, kind string) bool {
	var we *Error
	return errors.As(err, &we) && we.Kind == kind
}

// fsError turns an os error about rel into a *Error with a message telling
// the caller what to do.
func fsError(op, rel string, err error) *Error {
	switch {
	case escapesRoot(err):
		return &Error{Kind: KindOutside, Msg: fmt.Sprintf("%s %s: a symbolic link on its way leads out of the workspace root (it changed since the path was checked); nothing was done outside the root: check the path and retry (%v)", op, rel, err), Err: err}
	case errors.Is(err, fs.ErrNotExist):
		return &Error{Kind: KindNotFound, Msg: fmt.Sprintf("%s %s: not found (%v)", op, rel, err), Err: err}
	case errors.Is(err, fs.ErrPermission):
		return &Error{Kind: KindPermission, Msg: fmt.Sprintf("%s %s: permission denied; check the file's permissions (%v)", op, rel, err), Err: err}
	default:
		return &Error{Kind: KindIO, Msg: fmt.Sprintf("%s %s: %v", op, rel, err), Err: err}
	}
}
