package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// Limits of the framing layer. A body up to maxBody is read, into a buffer
// that grows with the bytes that actually arrive (never to a size a header
// merely declares); a larger one, up to maxSkip, is read and discarded in
// skipChunk pieces and answered with an error; a header declaring more than
// maxSkip ends the connection (there is no way to find the next message
// short of reading that much, and waiting for it would leave the server
// alive and deaf), with a message on stderr, so the editor restarts the
// server.
const (
	maxHeaderLine = 8 << 10   // one header line
	maxBody       = 512 << 20 // one message body
	maxSkip       = 2 << 30   // the largest body skipped to reach the next message
	skipChunk     = 64 << 10
	bodyChunk     = 1 << 20 // bodies above this are read in growing steps
)

// stream is the LSP base-protocol framing (Content-Length headers) over a
// byte transport, tolerant of bad input: a malformed header, a body that is
// not JSON or not a JSON-RPC message is answered with a JSON-RPC error
// response (id null when unknown) and logged, and reading goes on with the
// next frame, where jsonrpc2's own framer would end the connection. Only a
// transport error or end of input ends Read.
type stream struct {
	in     *bufio.Reader
	out    io.Writer
	closer io.Closer
	logf   func(format string, args ...any)

	body []byte // reused body buffer; a decoded message borrows it until the next Read

	maxBody, maxSkip int // maxBody and maxSkip (smaller in tests)

	wmu  sync.Mutex
	wbuf []byte
}

var _ jsonrpc2.Stream = (*stream)(nil)

func newStream(rwc io.ReadWriteCloser, logf func(string, ...any)) *stream {
	return &stream{in: bufio.NewReaderSize(rwc, 64<<10), out: rwc, closer: rwc, logf: logf, maxBody: maxBody, maxSkip: maxSkip}
}

// errBadHeader marks a malformed header block (recoverable: resynchronise).
var errBadHeader = errors.New("malformed LSP header")

// Read implements jsonrpc2.Stream.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	if cap(s.body) > 4<<20 {
		s.body = nil // the previous message is done with; don't pin a huge buffer
	}
	resync := false
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		length, hdr, err := s.readHeader(resync)
		resync = false
		if errors.Is(err, errBadHeader) {
			s.logf("lsp: %v; skipping to the next Content-Length header", err)
			s.reject(ctx, nil, jsonrpc2.Errorf(jsonrpc2.ParseError, "%v", err))
			resync = true
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		if length > s.maxSkip {
			err := fmt.Errorf("%w: a message declares Content-Length %d, more than the %d bytes the server skips to find the next message; closing the connection (restart the server; messages must be at most %d bytes)", errTooLarge, length, s.maxSkip, s.maxBody)
			s.logf("lsp: %v", err)
			s.reject(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%v", err))
			return nil, 0, err
		}
		if length > s.maxBody {
			s.logf("lsp: message of %d bytes exceeds the %d-byte limit; discarding it in %d-byte chunks", length, s.maxBody, skipChunk)
			if err := skip(s.in, length); err != nil {
				return nil, 0, unexpectedEOF(err)
			}
			s.reject(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "message of %d bytes exceeds the %d-byte limit; it was discarded", length, s.maxBody))
			continue
		}
		body, err := s.readBody(length)
		if err != nil {
			return nil, 0, unexpectedEOF(err)
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			s.logf("lsp: dropped a malformed message (%v): %.200q", err, body)
			var werr *jsonrpc2.Error
			if !errors.As(err, &werr) {
				werr = jsonrpc2.NewError(jsonrpc2.ParseError, err.Error())
			}
			if isNotification(body) {
				continue // a malformed notification has nobody to answer
			}
			s.reject(ctx, body, jsonrpc2.Errorf(werr.Code, "%s: the message is not a valid JSON-RPC 2.0 request or response (batches are not supported)", werr.Message))
			continue
		}
		return msg, int64(hdr + length), nil
	}
}

// errTooLarge ends the connection: a frame too large to skip.
var errTooLarge = errors.New("message too large")

// readBody reads a body of length bytes into the reused buffer. A body
// above bodyChunk is read in steps, the buffer growing with what arrived,
// so a header that declares a large length and then stalls or ends holds
// memory for what was sent, not for what was declared.
func (s *stream) readBody(length int) ([]byte, error) {
	if length <= bodyChunk || cap(s.body) >= length {
		if cap(s.body) < length {
			s.body = make([]byte, length)
		}
		body := s.body[:length]
		_, err := io.ReadFull(s.in, body)
		return body, err
	}
	body := s.body[:0]
	for len(body) < length {
		n := min(length-len(body), max(bodyChunk, len(body)))
		body = slices.Grow(body, n)
		if _, err := io.ReadFull(s.in, body[len(body):len(body)+n]); err != nil {
			return nil, err
		}
		body = body[:len(body)+n]
	}
	s.body = body
	return body, nil
}

// skip reads and discards n bytes in skipChunk pieces.
func skip(r io.Reader, n int) error {
	var buf [skipChunk]byte
	for n > 0 {
		m, err := io.ReadFull(r, buf[:min(n, len(buf))])
		n -= m
		if err != nil {
			return err
		}
	}
	return nil
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readHeader parses one header block and returns its Content-Length and the
// header's size. With resync it first skips input up to the next
// "Content-Length:" field.
func (s *stream) readHeader(resync bool) (length, size int, err error) {
	haveLength := false
	first := true
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && size > 0 {
				err = io.ErrUnexpectedEOF
			}
			return 0, 0, err
		}
		size += len(line)
		if resync && first {
			i := bytes.Index(bytes.ToLower(line), []byte("content-length:"))
			if i < 0 {
				size = 0
				continue // still skipping garbage
			}
			line = line[i:]
		}
		first = false
		trimmed := bytes.TrimRight(line, "\r\n")
		if len(trimmed) == 0 {
			if len(line) == 0 {
				return 0, 0, fmt.Errorf("%w: header line too long", errBadHeader)
			}
			break
		}
		name, value, ok := bytes.Cut(trimmed, []byte(":"))
		if !ok {
			return 0, 0, fmt.Errorf("%w: header line %.80q has no colon", errBadHeader, trimmed)
		}
		if bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			n, err := strconv.Atoi(string(bytes.TrimSpace(value)))
			if err != nil || n <= 0 {
				return 0, 0, fmt.Errorf("%w: invalid Content-Length %.40q", errBadHeader, value)
			}
			length, haveLength = n, true
		}
	}
	if !haveLength {
		return 0, 0, fmt.Errorf("%w: no Content-Length", errBadHeader)
	}
	return length, size, nil
}

// readLine reads one line including its terminator. An over-long line is
// consumed and returned empty (the caller reports it).
func (s *stream) readLine() ([]byte, error) {
	line, err := s.in.ReadSlice('\n')
	if err == nil {
		return line, nil
	}
	if errors.Is(err, bufio.ErrBufferFull) || len(line) > maxHeaderLine {
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = s.in.ReadSlice('\n')
		}
		if err != nil {
			return nil, err
		}
		return []byte{}, nil
	}
	if err == io.EOF && len(line) > 0 {
		return nil, io.ErrUnexpectedEOF
	}
	return nil, err
}

// isNotification reports whether a malformed body still looks like a
// notification (an object with a method and no id), which gets no reply.
func isNotification(body []byte) bool {
	var probe struct {
		ID     *json.RawMessage `json:"id"`
		Method *string          `json:"method"`
	}
	if json.Unmarshal(body, &probe) != nil {
		return false
	}
	return probe.Method != nil && (probe.ID == nil || string(*probe.ID) == "null")
}

// reject answers a message that cannot be dispatched with an error response
// carrying the message's id when one can be recovered, else null.
func (s *stream) reject(ctx context.Context, body []byte, e *jsonrpc2.Error) {
	id := jsonrpc2.ID{}
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if body != nil && json.Unmarshal(body, &probe) == nil && len(probe.ID) > 0 {
		var n int64
		var str string
		if json.Unmarshal(probe.ID, &n) == nil {
			id = jsonrpc2.NewNumberID(n)
		} else if json.Unmarshal(probe.ID, &str) == nil {
			id = jsonrpc2.NewStringID(str)
		}
	}
	if _, err := s.Write(ctx, jsonrpc2.NewResponse(id, nil, e)); err != nil {
		s.logf("lsp: cannot answer a malformed message: %v", err)
	}
}

// Write implements jsonrpc2.Stream: one header+body frame in one write.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	body, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return 0, fmt.Errorf("encoding a message: %w", err)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.wbuf = append(s.wbuf[:0], "Content-Length: "...)
	s.wbuf = strconv.AppendInt(s.wbuf, int64(len(body)), 10)
	s.wbuf = append(s.wbuf, "\r\n\r\n"...)
	s.wbuf = append(s.wbuf, body...)
	n, err := s.out.Write(s.wbuf)
	if cap(s.wbuf) > 1<<20 {
		s.wbuf = nil // don't pin a huge buffer after one big reply
	}
	return int64(n), err
}

// Close implements jsonrpc2.Stream.
func (s *stream) Close() error { return s.closer.Close() }
