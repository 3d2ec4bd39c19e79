package hub

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"sync"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/workspace"
)

// Version is the protocol version a request carries ("hub").
const Version = 1

// Request is one forwarded tool call.
type Request struct {
	Hub       int             `json:"hub"`
	ID        string          `json:"id"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Transport string          `json:"transport"`
	// TextOnly: the caller shows the result's text alone (the CLI without
	// --json), so the reply leaves out details, changes and shown lines
	// (an edit's details carry its diff, several times the text).
	TextOnly bool `json:"textOnly,omitempty"`
	// Who made the call (the agent, its session and turn), for the audit
	// rows and the editor's review of the change.
	Who workspace.Attribution `json:"who,omitzero"`
	// Toolsets are the caller's (agent.Sets.String; "" from an older
	// caller: every tool): the tools the result's hints may name.
	Toolsets string `json:"toolsets,omitempty"`
}

// reply is one line the hub sends.
type reply struct {
	Ack     string       `json:"ack,omitempty"`
	Refused string       `json:"refused,omitempty"`
	ID      string       `json:"id,omitempty"`
	Result  *wireResult  `json:"result,omitempty"`
	Error   *agent.Error `json:"error,omitempty"`
}

// wireResult is agent.Result on the wire (Details kept as raw JSON).
type wireResult struct {
	Text     string          `json:"text"`
	Details  json.RawMessage `json:"details,omitempty"`
	Changes  []agent.Change  `json:"changes,omitempty"`
	Shown    []agent.Shown   `json:"shown,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
}

// NewCallID returns a new unique call id.
func NewCallID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// Runner runs one forwarded call in the hub's process and returns what
// agent.Toolset.Run returns.
type Runner func(ctx context.Context, req Request) (*agent.Result, error)

// ErrBusy is returned by Listen when another live process is the root's hub.
var ErrBusy = errors.New("another hashls process is already the hub of this root")

// Server is a listening hub.
type Server struct {
	ep      endpoint
	ln      net.Listener
	release func()
	run     Runner
	logf    func(string, ...any)

	wg        sync.WaitGroup
	closeOnce sync.Once
	ctx       context.Context
	cancel    context.CancelFunc
}

// Listen advertises a hub for root (its store under stateDir) and serves
// calls with run until Close. It fails with ErrBusy when another process is
// the hub, and with the reason when the endpoint cannot be made; the caller
// then simply works without a hub.
func Listen(stateDir, root string, run Runner, logf func(string, ...any)) (*Server, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	ep, err := endpointOf(stateDir, root)
	if err != nil {
		return nil, err
	}
	if err := workspace.MkdirHub(ep.lock); err != nil {
		return nil, err
	}
	release, ok, err := workspace.TryLockFile(ep.lock)
	if err != nil {
		return nil, fmt.Errorf("hub lock %s: %w", ep.lock, err)
	}
	if !ok {
		return nil, ErrBusy
	}
	ln, err := ep.listen()
	if err != nil {
		release()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{ep: ep, ln: ln, release: release, run: run, logf: logf, ctx: ctx, cancel: cancel}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr returns the endpoint's address: the socket's path on Unix, the
// pipe's name on Windows.
func (s *Server) Addr() string { return s.ep.addr() }

// Close stops advertising the hub (the endpoint is removed), cancels the calls
// in flight and waits for them, then releases the lock.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		err = s.ln.Close()
		s.cancel()
		s.wg.Wait()
		s.ep.clear()
		s.release()
	})
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if s.ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
				s.logf("hub: accept: %v", err)
			}
			return
		}
		// A caller that runs as another user gets nothing: the socket is
		// the user's only (0600 in a 0700 directory), and its peer's
		// credentials say so again (peercred_*.go).
		if err := peerIsUser(c); err != nil {
			s.logf("hub: refused a connection: %v", err)
			c.Close()
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveConn(c)
		}()
	}
}

// maxRequest bounds one request line (an edit input or a written file rides
// in it).
const maxRequest = 1 << 30

func (s *Server) serveConn(c net.Conn) {
	defer c.Close()
	br := bufio.NewReaderSize(io.LimitReader(c, maxRequest), 64<<10)
	var req Request
	dec := json.NewDecoder(br)
	if err := dec.Decode(&req); err != nil {
		writeLine(c, reply{Refused: fmt.Sprintf("malformed request: %v", err)})
		return
	}
	if req.Hub != Version || req.ID == "" || req.Tool == "" {
		writeLine(c, reply{Refused: fmt.Sprintf("unsupported request (protocol %d, this hub speaks %d; id and tool are required)", req.Hub, Version)})
		return
	}
	// The ack: only once it is written does the call run (see the package
	// doc: a caller without an ack may run the call itself).
	if err := writeLine(c, reply{Ack: req.ID}); err != nil {
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	// The caller closing the connection cancels the call.
	go func() {
		var b [512]byte
		for {
			if _, err := c.Read(b[:]); err != nil {
				cancel()
				return
			}
		}
	}()
	res, err := s.runSafe(ctx, req)
	if err != nil {
		writeLine(c, reply{ID: req.ID, Error: agent.AsError(err)})
		return
	}
	wr := &wireResult{Text: res.Text, Warnings: res.Warnings}
	if req.TextOnly {
		writeLine(c, reply{ID: req.ID, Result: wr})
		return
	}
	wr.Changes, wr.Shown = res.Changes, res.Shown
	if res.Details != nil {
		d, merr := json.Marshal(res.Details)
		if merr != nil {
			writeLine(c, reply{ID: req.ID, Error: &agent.Error{Kind: agent.KindInternal, Message: fmt.Sprintf("encoding the result of %s: %v (this is a hashls bug)", req.Tool, merr)}})
			return
		}
		wr.Details = d
	}
	writeLine(c, reply{ID: req.ID, Result: wr})
}

// runSafe runs the call, turning a panic into an internal error.
func (s *Server) runSafe(ctx context.Context, req Request) (res *agent.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res = nil
			err = &agent.Error{Kind: agent.KindInternal, Message: fmt.Sprintf("internal error running %s in the hub: %v (this is a hashls bug)\n%s", req.Tool, r, debug.Stack())}
		}
	}()
	res, err = s.run(ctx, req)
	if err == nil && res == nil {
		err = &agent.Error{Kind: agent.KindInternal, Message: fmt.Sprintf("tool %s returned no result in the hub (this is a hashls bug)", req.Tool)}
	}
	return res, err
}

func writeLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
