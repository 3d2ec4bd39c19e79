package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxFrame bounds one JSON-RPC frame (a stdio line, an HTTP body): a
// longer one is answered with an error and skipped, never buffered whole.
var maxFrame = 16 << 20

// batchesFrom is the first protocol version without JSON-RPC batches
// (2025-06-18 removed them): a batch under it is answered with an error.
const batchesFrom = "2025-06-18"

// frameError is a JSON-RPC error response with a null id, for a frame
// whose request (and so id) could not be read. JSON-RPC asks for "id":
// null there, which the SDK's encoder omits.
func frameError(code int64, format string, args ...any) []byte {
	b, _ := json.Marshal(nullIDError{JSONRPC: "2.0", Error: wireError{Code: code, Message: fmt.Sprintf(format, args...)}})
	return b
}

type nullIDError struct {
	JSONRPC string    `json:"jsonrpc"`
	ID      *int      `json:"id"` // always null
	Error   wireError `json:"error"`
}

type wireError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// decodeFrame reads one frame: a message, or (batch) several. A frame that
// is not JSON, or not JSON-RPC, or a batch the protocol version does not
// allow, gets reply: the error response to send instead, and no messages.
// Within a batch, a member that is not a message gets its error response
// in errs, beside the messages of the others.
func decodeFrame(frame []byte, version string) (msgs []jsonrpc.Message, batch bool, errs [][]byte, reply []byte) {
	frame = bytes.TrimSpace(frame)
	if !json.Valid(frame) {
		return nil, false, nil, frameError(jsonrpc.CodeParseError, "parse error: the frame is not JSON (%s); send one JSON-RPC message per line", preview(frame))
	}
	if frame[0] != '[' {
		msg, err := jsonrpc.DecodeMessage(frame)
		if err != nil {
			return nil, false, nil, frameError(jsonrpc.CodeInvalidRequest, "invalid request: %v", err)
		}
		return []jsonrpc.Message{msg}, false, nil, nil
	}
	if version >= batchesFrom {
		return nil, true, nil, frameError(jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not part of MCP %s (removed in %s); send the messages one by one", version, batchesFrom)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(frame, &raws); err != nil || len(raws) == 0 {
		return nil, true, nil, frameError(jsonrpc.CodeInvalidRequest, "invalid request: an empty batch")
	}
	for _, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			errs = append(errs, frameError(jsonrpc.CodeInvalidRequest, "invalid request in the batch: %v", err))
			continue
		}
		msgs = append(msgs, msg)
	}
	return msgs, true, errs, nil
}

// preview quotes the start of a frame for an error message.
func preview(b []byte) string {
	if len(b) > 40 {
		return fmt.Sprintf("%q… (%d bytes)", b[:40], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// lineTransport is stdio: newline-delimited JSON-RPC, as the SDK's
// IOTransport, except that a malformed frame gets a JSON-RPC error and the
// session goes on, a frame over maxFrame is refused without being held,
// and batches are answered as the negotiated protocol version says.
type lineTransport struct {
	r io.ReadCloser
	w io.Writer
}

func (t *lineTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{r: t.r, w: t.w, in: make(chan []byte), closed: make(chan struct{}), batches: map[jsonrpc.ID]*batch{}}
	go c.readLines()
	return c, nil
}

type lineConn struct {
	r      io.ReadCloser
	w      io.Writer
	in     chan []byte // frames (and the errors to answer them with)
	readEr error       // set before in is closed
	closed chan struct{}
	once   sync.Once

	queue []jsonrpc.Message // the rest of the last batch (Read is not concurrent)

	mu        sync.Mutex // guards what follows and writes to w
	version   string     // the negotiated protocol version ("" before initialize)
	initID    jsonrpc.ID // the initialize request's id, whose response names it
	batches   map[jsonrpc.ID]*batch
	cancelled map[jsonrpc.ID]bool // requests the client cancelled: no response is sent
}

// batch collects the responses of a batch's requests, sent as one array
// once all are there.
type batch struct {
	pending int
	out     [][]byte
}

// readLines sends each line (without its break) to c.in; a line over
// maxFrame is replaced by its error reply, marked with a leading 0 byte.
func (c *lineConn) readLines() {
	defer close(c.in)
	br := bufio.NewReaderSize(c.r, 64<<10)
	for {
		var line []byte
		over := false
		for {
			chunk, err := br.ReadSlice('\n')
			if !over {
				if len(line)+len(chunk) > maxFrame {
					over, line = true, nil
				} else {
					line = append(line, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				if !over && len(bytes.TrimSpace(line)) > 0 {
					c.send(line)
				}
				c.readEr = err
				return
			}
			break
		}
		if over {
			line = append([]byte{0}, frameError(jsonrpc.CodeInvalidRequest, "invalid request: a frame over %d MiB was skipped; send smaller messages", maxFrame>>20)...)
		}
		if !c.send(line) {
			return
		}
	}
}

func (c *lineConn) send(line []byte) bool {
	select {
	case c.in <- line:
		return true
	case <-c.closed:
		return false
	}
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if len(c.queue) > 0 {
			m := c.queue[0]
			c.queue = c.queue[1:]
			return m, nil
		}
		var line []byte
		var ok bool
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case line, ok = <-c.in:
		}
		if !ok {
			if c.readEr == nil || errors.Is(c.readEr, io.EOF) {
				return nil, io.EOF
			}
			return nil, c.readEr
		}
		if len(line) > 0 && line[0] == 0 { // an error reply readLines made
			if err := c.writeRaw(line[1:]); err != nil {
				return nil, err
			}
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		c.mu.Lock()
		version := c.version
		c.mu.Unlock()
		msgs, isBatch, errs, reply := decodeFrame(line, version)
		if reply != nil {
			if err := c.writeRaw(reply); err != nil {
				return nil, err
			}
			continue
		}
		if err := c.track(msgs, isBatch, errs); err != nil {
			return nil, err
		}
		c.queue = msgs
	}
}

// track notes the initialize request's id and, for a batch, the requests
// whose responses make up its answer.
func (c *lineConn) track(msgs []jsonrpc.Message, isBatch bool, errs [][]byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := &batch{out: errs}
	for _, m := range msgs {
		req, ok := m.(*jsonrpc.Request)
		if ok && req.Method == "notifications/cancelled" {
			var p struct {
				RequestID any `json:"requestId"`
			}
			if json.Unmarshal(req.Params, &p) == nil {
				if id, err := jsonrpc.MakeID(p.RequestID); err == nil && id.IsValid() {
					if c.cancelled == nil {
						c.cancelled = map[jsonrpc.ID]bool{}
					}
					c.cancelled[id] = true
				}
			}
		}
		if !ok || !req.ID.IsValid() {
			continue
		}
		if req.Method == "initialize" {
			c.initID = req.ID
		}
		if isBatch {
			if _, dup := c.batches[req.ID]; dup {
				continue // the SDK answers a duplicate id itself
			}
			c.batches[req.ID] = b
			b.pending++
		}
	}
	if isBatch && b.pending == 0 && len(b.out) > 0 {
		return c.writeLocked(joinArray(b.out))
	}
	return nil
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if c.initID.IsValid() && resp.ID == c.initID && resp.Error == nil {
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(resp.Result, &r) == nil {
				c.version = r.ProtocolVersion
			}
		}
		// The client cancelled the request: it reads no response (MCP:
		// "receivers ... SHOULD NOT send a response for the cancelled
		// request").
		dropped := c.cancelled[resp.ID]
		delete(c.cancelled, resp.ID)
		b, inBatch := c.batches[resp.ID]
		switch {
		case inBatch:
			delete(c.batches, resp.ID)
			if !dropped {
				b.out = append(b.out, data)
			}
			if b.pending--; b.pending > 0 || len(b.out) == 0 {
				return nil
			}
			data = joinArray(b.out)
		case dropped:
			return nil
		}
	}
	return c.writeLocked(data)
}

func (c *lineConn) writeRaw(data []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writeLocked(data)
}

func (c *lineConn) writeLocked(data []byte) error {
	select {
	case <-c.closed:
		return io.ErrClosedPipe
	default:
	}
	_, err := c.w.Write(append(data, '\n'))
	return err
}

// joinArray makes a JSON array of encoded messages.
func joinArray(msgs [][]byte) []byte {
	return append(append([]byte{'['}, bytes.Join(msgs, []byte{','})...), ']')
}

func (c *lineConn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		c.r.Close()
	})
	return nil
}

func (c *lineConn) SessionID() string { return "" }
