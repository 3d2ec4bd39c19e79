package mcp

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TokenEnv names the environment variable holding the bearer token that
// `hashls mcp --http` requires on a non-loopback address.
const TokenEnv = "HASHLS_MCP_TOKEN"

// HTTPOptions configure ServeHTTP.
type HTTPOptions struct {
	// Token, when set, is the bearer token every request must carry
	// (Authorization: Bearer TOKEN).
	Token string
	// SessionTimeout closes sessions idle for this long (0: 1 hour).
	SessionTimeout time.Duration
}

// CheckHTTPAddr decides whether addr may be served: a loopback address
// (127.0.0.0/8, ::1, localhost) always; any other only with allowRemote
// and a token.
func CheckHTTPAddr(addr string, allowRemote bool, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %s: want HOST:PORT, e.g. 127.0.0.1:8765 (%w)", addr, err)
	}
	if isLoopback(host) {
		return nil
	}
	where := host
	if where == "" {
		where = "every interface"
	}
	if !allowRemote {
		return fmt.Errorf("--http %s listens on %s, reachable from other machines: use a loopback address (127.0.0.1:PORT), or pass --allow-remote and set %s to a bearer token", addr, where, TokenEnv)
	}
	if token == "" {
		return fmt.Errorf("--http %s with --allow-remote needs a bearer token: set %s (clients then send Authorization: Bearer TOKEN)", addr, TokenEnv)
	}
	return nil
}

// isLoopback reports whether host names only this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// Handler is the Streamable HTTP handler of the server on every path,
// behind the bearer token check when opts.Token is set. Requests through a
// loopback address with another Host header are refused (DNS rebinding),
// and cross-origin browser requests are refused.
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	timeout := opts.SessionTimeout
	if timeout == 0 {
		timeout = time.Hour
	}
	var h http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, &sdk.StreamableHTTPOptions{
		SessionTimeout: timeout,
		Logger:         s.logger,
	})
	h = http.NewCrossOriginProtection().Handler(h)
	if opts.Token != "" {
		h = requireToken(opts.Token, h)
	}
	return h
}

// requireToken refuses requests without the bearer token.
func requireToken(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hashls"`)
			http.Error(w, "hashls mcp: missing or wrong bearer token; send Authorization: Bearer <the value of "+TokenEnv+">", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ServeHTTP serves Streamable HTTP on ln until ctx ends, then shuts down,
// giving requests in flight a few seconds.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	hs := &http.Server{
		Handler:           s.Handler(opts),
		ReadHeaderTimeout: 10 * time.Second,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serving MCP over HTTP on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil {
			hs.Close()
		}
		return nil
	}
}
