package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/hashls/hashls/internal/gcfloor"
	"github.com/hashls/hashls/langserver"
	"github.com/hashls/hashls/lsp"
)

// serve runs the language server on stdin/stdout. Nothing but protocol
// frames is written to stdout; logs go to stderr.
func (c *cli) serve(args []string) int {
	for _, a := range args {
		if a != "--stdio" && a != "-stdio" {
			return c.usageError(fmt.Sprintf("serve: unknown argument %q (serve speaks LSP on stdin/stdout)", a))
		}
	}
	gcfloor.Start(gcfloor.Default) // a long-lived process: see the package doc
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	servers := langserver.NewPool(langserver.Options{Logf: c.logf})
	defer servers.Close()
	err := lsp.Serve(ctx, stdio{c.stdin, c.stdout}, lsp.Options{
		Root:    c.opts.Root,
		Tools:   c.opts.Tools(c.sets, servers),
		Hub:     !c.opts.NoHub,
		Version: version(),
		Logf:    c.logf,
	})
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, lsp.ErrExitWithoutShutdown):
		return exitTool
	default:
		fmt.Fprintf(c.stderr, "hashls serve: %v\n", err)
		return exitTool
	}
}

// stdio joins stdin and stdout into the connection Serve reads and writes.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }
