package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Header names of Streamable HTTP.
const (
	sessionHeader  = "Mcp-Session-Id"
	versionHeader  = "Mcp-Protocol-Version"
	unversionedMCP = "2025-03-26" // the version a request without versionHeader is read as
	sessionless    = "2026-07-28" // from this version on requests carry no session: the SDK answers them
)

// httpFront is what stands before the SDK's Streamable HTTP handler: it
// reads a POST body within opts.BodyTimeout and maxFrame, answers what the
// SDK would answer with a plain-text error or not at all with a JSON-RPC
// error (a malformed frame, a batch the protocol version does not allow, a
// request without a session), and keeps the sessions to opts.MaxSessions.
type httpFront struct {
	s    *Server
	sdk  http.Handler
	opts HTTPOptions

	mu   sync.Mutex
	seen map[string]*httpSession // by session id
}

// httpSession is what httpFront knows of a session: when it was last used
// and how many of its POSTs are in flight.
type httpSession struct {
	last     time.Time
	inFlight int
}

func (f *httpFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get(sessionHeader)
	if r.Method != http.MethodPost {
		if sid != "" {
			f.touch(sid, 0)
		}
		if r.Method == http.MethodDelete {
			defer f.forget(sid)
		}
		f.sdk.ServeHTTP(w, r)
		return
	}
	body, ok := f.readBody(w, r)
	if !ok {
		return
	}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	version := r.Header.Get(versionHeader)
	if version == "" {
		version = unversionedMCP
	}
	msgs, _, errs, reply := decodeFrame(body, version)
	switch {
	case reply != nil:
		writeFrame(w, http.StatusBadRequest, reply)
		return
	case len(errs) > 0:
		writeFrame(w, http.StatusBadRequest, joinArray(errs))
		return
	}
	if sid != "" {
		f.touch(sid, 1)
		defer f.touch(sid, -1)
		f.sdk.ServeHTTP(w, r)
		return
	}
	if version >= sessionless || carriesVersion(msgs) {
		f.sdk.ServeHTTP(w, r)
		return
	}
	req, isInit := msgs[0].(*jsonrpc.Request)
	if len(msgs) != 1 || !isInit || req.Method != "initialize" {
		id := "null"
		if isInit && req.ID.IsValid() {
			b, _ := json.Marshal(req.ID.Raw())
			id = string(b)
		}
		writeFrame(w, http.StatusBadRequest, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"invalid request: no %s header; start a session with initialize, then send the %s it answers with on every request"}}`,
			id, jsonrpc.CodeInvalidRequest, sessionHeader, sessionHeader))
		return
	}
	if !f.admit() {
		writeFrame(w, http.StatusServiceUnavailable, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":"hashls mcp holds %d sessions, each with a request in flight; retry later"}}`,
			jsonrpc.CodeInternalError, f.opts.MaxSessions))
		return
	}
	f.sdk.ServeHTTP(w, r)
	if id := w.Header().Get(sessionHeader); id != "" {
		f.register(id)
	}
}

// readBody reads r's body within opts.BodyTimeout and maxFrame, or
// answers the request itself (ok false).
func (f *httpFront) readBody(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(f.opts.BodyTimeout))
	if c, ok := r.Context().Value(connKey{}).(*limitedConn); ok {
		c.l.wait(c, true)
		defer c.l.wait(c, false)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, int64(maxFrame)+1))
	if err == nil && len(body) <= maxFrame {
		// Only a body that arrived lifts the deadline: after a refusal the
		// server must not wait for the rest of one that did not.
		rc.SetReadDeadline(time.Time{})
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, os.ErrDeadlineExceeded):
		w.Header().Set("Connection", "close")
		writeFrame(w, http.StatusRequestTimeout, frameError(jsonrpc.CodeInvalidRequest, "invalid request: the request body did not arrive within %v", f.opts.BodyTimeout))
		return nil, false
	case err != nil:
		w.Header().Set("Connection", "close")
		writeFrame(w, http.StatusBadRequest, frameError(jsonrpc.CodeInvalidRequest, "invalid request: reading the request body: %v", err))
		return nil, false
	case len(body) > maxFrame:
		w.Header().Set("Connection", "close")
		writeFrame(w, http.StatusRequestEntityTooLarge, frameError(jsonrpc.CodeInvalidRequest, "invalid request: a request body over %d MiB; send smaller messages", maxFrame>>20))
		return nil, false
	}
	return body, true
}

// carriesVersion reports whether a message names its protocol version in
// _meta, as requests of protocols without sessions do.
func carriesVersion(msgs []jsonrpc.Message) bool {
	for _, m := range msgs {
		if req, ok := m.(*jsonrpc.Request); ok && bytes.Contains(req.Params, []byte(`"io.modelcontextprotocol/protocolVersion"`)) {
			return true
		}
	}
	return false
}

// register notes the session an initialize made.
func (f *httpFront) register(id string) {
	f.mu.Lock()
	f.seen[id] = &httpSession{last: time.Now()}
	f.mu.Unlock()
}

// touch marks session id used now, with delta more POSTs in flight. An id
// no initialize made is left to the SDK (which answers 404).
func (f *httpFront) touch(id string, delta int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ss := f.seen[id]; ss != nil {
		ss.last = time.Now()
		ss.inFlight = max(ss.inFlight+delta, 0)
	}
}

// forget drops session id (the client deleted it).
func (f *httpFront) forget(id string) {
	f.mu.Lock()
	delete(f.seen, id)
	f.mu.Unlock()
}

// admit makes room for one more session: it forgets the sessions the SDK
// closed (idle, deleted), and at opts.MaxSessions closes the one idle
// longest. It reports false when every session has a request in flight.
func (f *httpFront) admit() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.seen) < f.opts.MaxSessions {
		return true
	}
	live := map[string]bool{}
	for ss := range f.s.srv.Sessions() {
		live[ss.ID()] = true
	}
	for id := range f.seen {
		if !live[id] {
			delete(f.seen, id)
		}
	}
	if len(f.seen) < f.opts.MaxSessions {
		return true
	}
	var oldest string
	for id, ss := range f.seen {
		if ss.inFlight == 0 && (oldest == "" || ss.last.Before(f.seen[oldest].last)) {
			oldest = id
		}
	}
	if oldest == "" {
		return false
	}
	idle := time.Since(f.seen[oldest].last).Round(time.Second)
	delete(f.seen, oldest)
	for ss := range f.s.srv.Sessions() {
		if ss.ID() == oldest {
			f.s.opts.Logf("mcp: %d sessions are open: closed the one idle longest (%v), for a new one", f.opts.MaxSessions, idle)
			ss.Close()
			break
		}
	}
	return true
}

// writeFrame answers with one JSON-RPC frame.
func writeFrame(w http.ResponseWriter, status int, frame []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(frame)
}

// limitListener accepts at most n connections at once: a connection is
// accepted only when one of the n is closed, so the ones waiting hold no
// file descriptor of this process. When all n are taken, the one that has
// waited longest for its client (an idle keep-alive connection, or one
// still sending its headers or body) for over shedAfter is closed to make
// room: a flood of slow clients cannot keep an ordinary one out for long.
func limitListener(ln net.Listener, n int) *limited {
	return &limited{Listener: ln, slots: make(chan struct{}, n), closed: make(chan struct{}), conns: map[*limitedConn]struct{}{}}
}

// shedAfter is how long a connection must have waited on its client
// before it may be closed for a new one.
var shedAfter = time.Second

type limited struct {
	net.Listener
	slots  chan struct{}
	closed chan struct{}
	once   sync.Once

	mu    sync.Mutex
	conns map[*limitedConn]struct{}
	shed  int // connections closed for new ones
}

func (l *limited) Accept() (net.Conn, error) {
	for {
		select {
		case l.slots <- struct{}{}:
		case <-l.closed:
			return nil, net.ErrClosed
		default:
			if l.shedOne() {
				continue
			}
			// Wait for a slot, and look again for a connection to shed
			// once the ones there may have waited long enough.
			select {
			case l.slots <- struct{}{}:
			case <-l.closed:
				return nil, net.ErrClosed
			case <-time.After(shedAfter / 4):
				continue
			}
		}
		break
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	lc := &limitedConn{Conn: c, l: l, since: time.Now(), waiting: true}
	l.mu.Lock()
	l.conns[lc] = struct{}{}
	l.mu.Unlock()
	return lc, nil
}

// shedOne closes the connection waiting on its client longest, when one
// has waited over shedAfter.
func (l *limited) shedOne() bool {
	l.mu.Lock()
	var oldest *limitedConn
	for c := range l.conns {
		if c.waiting && time.Since(c.since) > shedAfter && (oldest == nil || c.since.Before(oldest.since)) {
			oldest = c
		}
	}
	if oldest != nil {
		l.shed++
	}
	l.mu.Unlock()
	if oldest == nil {
		return false
	}
	oldest.Close()
	return true
}

// wait marks c as waiting on its client (or not), from now.
func (l *limited) wait(c net.Conn, waiting bool) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	lc.waiting, lc.since = waiting, time.Now()
	l.mu.Unlock()
}

// connState follows http.Server's view of each connection: new and idle
// connections wait on their client, active ones are served.
func (l *limited) connState(c net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew, http.StateIdle:
		l.wait(c, true)
	case http.StateActive:
		l.wait(c, false)
	}
}

func (l *limited) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

type limitedConn struct {
	net.Conn
	l       *limited
	once    sync.Once
	waiting bool      // guarded by l.mu
	since   time.Time // guarded by l.mu
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
		<-c.l.slots
	})
	return err
}

// connKey holds a request's connection in its context (http.Server's
// ConnContext), for readBody to mark it as waiting on its client.
type connKey struct{}
