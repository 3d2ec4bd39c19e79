package workspace

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/hashls/hashls/internal/kinded"
)

// Error kinds (see Error.Kind); package agent maps them to tool error kinds.
const (
	KindNotFound   = kinded.NotFound
	KindOutside    = kinded.Outside
	KindBinary     = kinded.Binary
	KindStore      = kinded.Store
	KindStale      = kinded.Stale
	KindPermission = kinded.Permission
	KindIO         = kinded.IO
	// KindInvalid is a malformed path argument (empty, NUL byte): the
	// caller's input is wrong, not the filesystem.
	KindInvalid = kinded.Invalid
	// KindInternal is a broken invariant (a hashls bug).
	KindInternal = kinded.Internal
)

// Error is a workspace error with a kind and a caller-facing message: the
// workspace packages' one error type (package kinded; sqlitedb.Error is
// the same type).
type Error = kinded.Error

// IsKind reports whether err is (or wraps) a *Error of the given kind.
func IsKind(err error, kind string) bool { return kinded.Is(err, kind) }

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
