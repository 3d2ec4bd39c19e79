package agent

import (
	"errors"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/workspace"
)

// KindOf decides the tool error kind of any error, in one place: a tool's
// *Error keeps its kind, edit and workspace errors are mapped, anything
// else is KindIO.
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
	var we *workspace.Error
	if errors.As(err, &we) {
		switch we.Kind {
		case workspace.KindNotFound:
			return KindNotFound
		case workspace.KindOutside:
			return KindOutside
		case workspace.KindBinary:
			return KindBinary
		case workspace.KindStore:
			return KindStore
		case workspace.KindStale:
			return KindStale
		case workspace.KindPermission:
			return KindPermission
		case workspace.KindInvalid, workspace.KindIsDir:
			return KindUsage
		case workspace.KindInternal:
			return KindInternal
		default:
			return KindIO
		}
	}
	return KindIO
}
