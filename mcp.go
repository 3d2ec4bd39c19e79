package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/hashls/hashls/internal/gcfloor"
	"github.com/hashls/hashls/internal/options"
	"github.com/hashls/hashls/langserver"
	"github.com/hashls/hashls/mcp"
)

// mcpCmd runs the MCP server: on stdin/stdout by default, over Streamable
// HTTP with --http ADDR. Nothing but protocol frames is written to stdout;
// logs go to stderr (and to the client through MCP logging).
func (c *cli) mcpCmd(args []string) int {
	if err := c.mcpFlags(args); err != nil {
		return c.usageError(err.Error())
	}
	httpAddr, allowRoots, token := c.opts.MCPHTTP, c.opts.AllowRoots, c.opts.MCPToken
	gcfloor.Start(gcfloor.Default) // a long-lived process: see the package doc
	logf := c.logf
	// The language servers' events (started, restarted, failed) go to the
	// MCP clients too, once the server that tells them exists.
	var told atomic.Pointer[mcp.Server]
	servers := langserver.NewPool(langserver.Options{Logf: logf, Notify: func(level, msg string) {
		if s := told.Load(); s != nil {
			s.Notify(level, msg)
		}
	}})
	defer servers.Close()
	srv, err := mcp.New(mcp.Options{Root: c.opts.Root, Version: version(), Logf: logf, NoHub: c.opts.NoHub, Tools: c.opts.Tools(c.sets, servers), AllowRoots: allowRoots})
	if err != nil {
		fmt.Fprintf(c.stderr, "hashls mcp: %v\n", err)
		return exitTool
	}
	told.Store(srv)
	defer func() {
		if err := srv.Close(); err != nil {
			logf("mcp: %v", err)
		}
	}()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if httpAddr == "" {
		err = srv.RunIO(ctx, io.NopCloser(c.stdin), c.stdout)
	} else {
		var ln net.Listener
		ln, err = net.Listen("tcp", httpAddr)
		if err != nil {
			fmt.Fprintf(c.stderr, "hashls mcp: listening on %s: %v; pick a free port\n", httpAddr, err)
			return exitTool
		}
		// Tests and scripts read the bound address (port 0 picks one).
		logf("mcp: listening on http://%s/mcp", ln.Addr())
		err = srv.ServeHTTP(ctx, ln, mcp.HTTPOptions{Token: token})
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "hashls mcp: %v\n", err)
		return exitTool
	}
	return exitOK
}

// mcpFlags reads mcp's own flags into c.opts: the HTTP address ("":
// stdio), --allow-remote, and the roots a client may choose (--allow-roots,
// over HASHLS_MCP_ALLOW_ROOTS), made absolute. An error is a usage error.
func (c *cli) mcpFlags(args []string) error {
	var allowRoots []string
	o := &c.opts
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--http" || a == "-http":
			if i+1 >= len(args) {
				return errors.New("mcp --http needs an address, e.g. --http 127.0.0.1:8765")
			}
			i++
			o.MCPHTTP = args[i]
		case strings.HasPrefix(a, "--http="):
			o.MCPHTTP = strings.TrimPrefix(a, "--http=")
		case a == "--allow-remote" || a == "-allow-remote":
			o.MCPAllowRemote = true
		case a == "--allow-roots" || a == "-allow-roots":
			if i+1 >= len(args) {
				return errors.New("mcp --allow-roots needs directories, e.g. --allow-roots ~/src")
			}
			i++
			allowRoots = append(allowRoots, filepath.SplitList(args[i])...)
		case strings.HasPrefix(a, "--allow-roots="):
			allowRoots = append(allowRoots, filepath.SplitList(strings.TrimPrefix(a, "--allow-roots="))...)
		case a == "--stdio" || a == "-stdio":
		default:
			return fmt.Errorf("mcp: unknown argument %q (usage: hashls [--root DIR] mcp [--http ADDR [--allow-remote]] [--allow-roots DIRS]; 'hashls mcp --help')", a)
		}
	}
	if o.MCPAllowRemote && o.MCPHTTP == "" {
		return errors.New("mcp: --allow-remote applies only with --http ADDR")
	}
	if o.MCPHTTP != "" {
		if err := mcp.CheckHTTPAddr(o.MCPHTTP, o.MCPAllowRemote, o.MCPToken); err != nil {
			return errors.New("mcp: " + err.Error())
		}
	}
	if len(allowRoots) > 0 {
		o.AllowRoots = allowRoots
	}
	for i, d := range o.AllowRoots {
		abs, err := filepath.Abs(d)
		if st, serr := os.Stat(abs); err != nil || serr != nil || !st.IsDir() {
			return fmt.Errorf("mcp: --allow-roots %s is not a directory", d)
		}
		o.AllowRoots[i] = abs
	}
	// Over HTTP any local process may connect, and a client names its
	// root: without --root the user must say which roots it may name.
	if o.MCPHTTP != "" && o.Root == "" && len(o.AllowRoots) == 0 {
		return fmt.Errorf("mcp --http serves the files of its root to every client that connects: pass --root DIR, or --allow-roots DIRS (or %s) for the roots clients may choose", options.EnvMCPAllowRoots)
	}
	return nil
}
