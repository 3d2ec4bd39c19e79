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

// HTTPOptions configure ServeHTTP. What a client may hold is bounded:
// sessions (each initialize makes one) by number and idle time, a request
// body by size and time, connections by number, below the open-file limit.
type HTTPOptions struct {
	// Token, when set, is the bearer token every request must carry
	// (Authorization: Bearer TOKEN; the scheme in any case).
	Token string
	// SessionTimeout closes sessions idle for this long (0: 30 minutes).
	SessionTimeout time.Duration
	// MaxSessions bounds the open sessions (0: 256). A new session over
	// it closes the one idle longest (its client gets 404 and, as the
	// specification says, initializes again); when every session has a
	// request in flight, the new one is refused with 503.
	MaxSessions int
	// BodyTimeout bounds the time a request body may take to arrive (0:
	// 30 seconds); a slower one is answered 408 and its connection closed.
	BodyTimeout time.Duration
	// MaxConns bounds the connections served at once (0: 256, or half the
	// open-file limit when that is lower); more wait to be accepted.
	MaxConns int
}

// withDefaults fills in the zero fields.
func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = 30 * time.Minute
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 256
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = 30 * time.Second
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 256
		if n := openFileLimit(); n > 0 && n/2 < o.MaxConns {
			o.MaxConns = max(n/2, 8)
		}
	}
	return o
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
// and cross-origin browser requests are refused. In front of the SDK's
// handler, httpFront bounds sessions and request bodies and answers a
// malformed frame, a batch the protocol version does not allow and a
// request without a session with JSON-RPC errors.
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	opts = opts.withDefaults()
	var h http.Handler = &httpFront{s: s, opts: opts, seen: map[string]*httpSession{},
		sdk: sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, &sdk.StreamableHTTPOptions{
			SessionTimeout:      opts.SessionTimeout,
			Logger:              s.logger,
			MaxRequestBodyBytes: int64(maxFrame),
		})}
	h = http.NewCrossOriginProtection().Handler(h)
	if opts.Token != "" {
		h = requireToken(opts.Token, h)
	}
	return h
}

// requireToken refuses requests without the bearer token. The scheme is
// case-insensitive (RFC 9110 §11.1).
func requireToken(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hashls"`)
			http.Error(w, "hashls mcp: missing or wrong bearer token; send Authorization: Bearer <the value of "+TokenEnv+">", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ServeHTTP serves Streamable HTTP on ln until ctx ends, then shuts down,
// giving requests in flight a few seconds. At most opts.MaxConns
// connections are served at once; the others wait to be accepted.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	opts = opts.withDefaults()
	lim := limitListener(ln, opts.MaxConns)
	hs := &http.Server{
		Handler:           s.Handler(opts),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ConnState:         lim.connState,
		ConnContext:       func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) },
	}
	ln = lim
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
