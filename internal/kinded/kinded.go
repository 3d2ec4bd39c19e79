// Package kinded is the one error type of the packages under agent that
// may not import each other (workspace, its workspace/sqlitedb, and
// langserver): an Error with a kind the caller decides on, a
// caller-facing message that says what to do next, and the cause. Each of
// those packages names it Error (an alias) and names the kinds it returns;
// package agent maps every kind to a tool error kind in one switch
// (agent.KindOf).
package kinded

import "errors"

// The kinds an Error may have.
const (
	NotFound   = "not_found"         // a missing file, directory, table or row
	Outside    = "outside_root"      // a path that leaves the workspace root
	Binary     = "binary"            // binary content where text is needed
	Store      = "store"             // the store is corrupt, locked or unavailable
	Stale      = "stale"             // the content changed since it was read
	Permission = "permission_denied" // the OS refused access
	IO         = "io"                // any other filesystem or SQLite failure
	Invalid    = "invalid_path"      // a malformed path argument (empty, NUL byte)
	IsDir      = "is_directory"      // a directory where a file is needed
	Internal   = "internal"          // a broken invariant (a hashls bug)
	Usage      = "usage"             // a malformed selector or payload
	TooLarge   = "too_large"         // past a size or time budget
)

// Error is an error with a kind and a caller-facing message.
type Error struct {
	Kind string
	Msg  string
	Err  error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether err is (or wraps) an *Error of the given kind.
func Is(err error, kind string) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == kind
}
