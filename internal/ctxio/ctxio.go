// Package ctxio stops reads when a context ends: work that streams a file
// (a search through one huge file, a read of its last lines) notices a
// cancellation at its next read, within one buffer, instead of at the end
// of the file. The entry point is Reader.
package ctxio

import (
	"context"
	"io"
)

// Reader returns r, whose reads fail with ctx's error once ctx is done.
func Reader(ctx context.Context, r io.Reader) io.Reader {
	if ctx == nil || ctx.Done() == nil {
		return r
	}
	return reader{ctx, r}
}

type reader struct {
	ctx context.Context
	r   io.Reader
}

func (r reader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}
