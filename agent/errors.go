package agent

import (
	"errors"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/internal/kinded"
)

// KindOf decides the tool error kind of any error, in one place: a tool's
// *Error keeps its kind, edit's and the workspace packages' errors are
// mapped, anything else is KindIO. AsError builds the *Error of any error with it.
func KindOf(err error) string {
	var ae *Error
	if errors.As(err, &ae) {
		return ae.Kind
	}
	var ee *edit.Error
	if errors.As(err, &ee) {
		switch ee.Kind {
		case edit.KindParse:
			return KindInput
		case edit.KindApply:
			return KindEdit
		case edit.KindStale:
			return KindStale
		case edit.KindUnseen:
			// Not stale: the content is the one the caller read, and the
			// refusal shows the lines, so the same edit succeeds next.
			return KindUnseen
		case edit.KindNoChange:
			return KindNoChange
		}
	}
	// The workspace packages' one error type (workspace.Error, which
	// sqlitedb.Error is too).
	var we *kinded.Error
	if errors.As(err, &we) {
		switch we.Kind {
		case kinded.NotFound:
			return KindNotFound
		case kinded.Outside:
			return KindOutside
		case kinded.Binary:
			return KindBinary
		case kinded.Store:
			return KindStore
		case kinded.Stale:
			return KindStale
		case kinded.Permission:
			return KindPermission
		case kinded.Invalid, kinded.IsDir, kinded.Usage:
			return KindUsage
		case kinded.TooLarge:
			return KindTooLarge
		case kinded.Internal:
			return KindInternal
		}
	}
	return KindIO
}

// AsError converts any error into an *Error: an *Error is kept, any other
// error gets its kind from KindOf. The message is bounded (BoundMessage):
// it may quote input, never all of a long one. The result always has a
// suggested action: the tool's own, else the kind's default
// (SuggestedAction).
func AsError(err error) *Error {
	var ae *Error
	if !errors.As(err, &ae) {
		ae = &Error{Kind: KindOf(err), Message: err.Error(), Err: err}
	}
	if msg := BoundMessage(ae.Message); len(msg) != len(ae.Message) || ae.SuggestedAction == "" {
		c := *ae
		c.Message = msg
		if c.SuggestedAction == "" {
			c.SuggestedAction = SuggestedAction(c.Kind)
		}
		ae = &c
	}
	return ae
}
