package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/hashls/hashls/workspace"
)

var _ workspace.BufferNotifier = (*bufferEditor)(nil)

// NotifyBuffer shows the user a warning about the open document p: a
// failed commit could not undo its edit of p's buffer, which now holds
// text the file on disk does not (the tool's caller, perhaps another
// process, gets the same in its error).
func (b *bufferEditor) NotifyBuffer(ctx context.Context, p workspace.Path, msg string) {
	b.s.showMessage(ctx, protocol.MessageTypeWarning, msg)
}
