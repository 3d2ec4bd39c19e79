//go:build windows

package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/hashls/hashls/workspace"
)

// endpoint is where a root's hub is reached, on Windows a named pipe (the
// package doc says why not AF_UNIX):
//
//	\\.\pipe\hashls-<8 hex of sha256(user SID)>-<16 hex of sha256(hub path)>
//
// where the hub path is workspace.HubSocket's (state directory and root, as
// on Unix, lower-cased: NTFS names are case-insensitive). Its lock file is
// that path's .lock, as on Unix. The pipe's security descriptor names the
// user as owner and lets only the user and SYSTEM open it; it rejects remote
// clients; the hub creates its first instance with
// FILE_FLAG_FIRST_PIPE_INSTANCE, so that a name another process made first
// is refused, not shared; and a caller talks only to a pipe its own user
// owns.
type endpoint struct {
	lock string
	pipe string
	user *windows.SID
}

func endpointOf(stateDir, root string) (endpoint, error) {
	path, err := workspace.HubSocket(stateDir, root)
	if err != nil {
		return endpoint{}, err
	}
	user, err := currentUser()
	if err != nil {
		return endpoint{}, err
	}
	u := sha256.Sum256([]byte(user.String()))
	p := sha256.Sum256([]byte(strings.ToLower(path)))
	pipe := `\\.\pipe\hashls-` + hex.EncodeToString(u[:4]) + "-" + hex.EncodeToString(p[:8])
	return endpoint{lock: path + ".lock", pipe: pipe, user: user}, nil
}

// currentUser returns the SID of the user this process runs as.
func currentUser() (*windows.SID, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("hub: reading this process's user: %w", err)
	}
	return tu.User.Sid.Copy()
}

func (e endpoint) addr() string { return e.pipe }

// clear: a pipe goes away with the last handle to it, so a dead hub leaves
// nothing but its (released) lock file.
func (e endpoint) clear() {}

// pipeBuffer is the pipe's buffer size each way; an ack fits many times.
const pipeBuffer = 64 << 10

// listen creates the pipe's first instance; the caller holds the lock.
func (e endpoint) listen() (net.Listener, error) {
	sd, err := windows.SecurityDescriptorFromString("O:" + e.user.String() + "D:P(A;;GA;;;" + e.user.String() + ")(A;;GA;;;SY)")
	if err != nil {
		return nil, fmt.Errorf("hub pipe %s: making its security descriptor: %w", e.pipe, err)
	}
	sa := &windows.SecurityAttributes{Length: uint32(unsafe.Sizeof(windows.SecurityAttributes{})), SecurityDescriptor: sd}
	l := &pipeListener{ep: e, sa: sa}
	if l.next, err = l.instance(true); err != nil {
		if errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_PIPE_BUSY) {
			return nil, fmt.Errorf("hub pipe %s exists already, made by a process that does not hold the hub lock %s (another program uses the name): %w; no hub for this root until it goes away", e.pipe, e.lock, err)
		}
		return nil, fmt.Errorf("hub pipe %s: %w", e.pipe, err)
	}
	if l.stop, err = windows.CreateEvent(nil, 1, 0, nil); err != nil {
		windows.CloseHandle(l.next)
		return nil, fmt.Errorf("hub pipe %s: %w", e.pipe, err)
	}
	return l, nil
}

// instance creates one instance of the pipe (first: the one that must
// create the name).
func (l *pipeListener) instance(first bool) (windows.Handle, error) {
	name, err := windows.UTF16PtrFromString(l.ep.pipe)
	if err != nil {
		return windows.InvalidHandle, err
	}
	flags := uint32(windows.PIPE_ACCESS_DUPLEX | windows.FILE_FLAG_OVERLAPPED)
	if first {
		flags |= windows.FILE_FLAG_FIRST_PIPE_INSTANCE
	}
	mode := uint32(windows.PIPE_TYPE_BYTE | windows.PIPE_READMODE_BYTE | windows.PIPE_WAIT | windows.PIPE_REJECT_REMOTE_CLIENTS)
	return windows.CreateNamedPipe(name, flags, mode, windows.PIPE_UNLIMITED_INSTANCES, pipeBuffer, pipeBuffer, 0, l.sa)
}

// pipeListener accepts connections on the pipe. One instance (next) always
// waits for a client, and the next one is created before a connected one
// is handed out, so the name exists for as long as the listener is open: a
// caller never mistakes a hub between two calls for no hub.
type pipeListener struct {
	ep   endpoint
	sa   *windows.SecurityAttributes
	stop windows.Handle // set by Close

	mu     sync.Mutex // held by Accept for its whole run, and by Close
	next   windows.Handle
	closed bool
}

func (l *pipeListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.next == windows.InvalidHandle {
		return nil, net.ErrClosed
	}
	ev, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return nil, fmt.Errorf("hub pipe %s: %w", l.ep.pipe, err)
	}
	defer windows.CloseHandle(ev)
	for {
		o := windows.Overlapped{HEvent: ev}
		err := windows.ConnectNamedPipe(l.next, &o)
		if errors.Is(err, windows.ERROR_IO_PENDING) {
			w, werr := windows.WaitForMultipleObjects([]windows.Handle{ev, l.stop}, false, windows.INFINITE)
			if werr != nil || w != windows.WAIT_OBJECT_0 {
				_ = windows.CancelIoEx(l.next, &o)
				var n uint32
				_ = windows.GetOverlappedResult(l.next, &o, &n, true)
				if werr != nil {
					return nil, fmt.Errorf("hub pipe %s: %w", l.ep.pipe, werr)
				}
				return nil, net.ErrClosed
			}
			var n uint32
			err = windows.GetOverlappedResult(l.next, &o, &n, false)
		}
		switch {
		case err == nil, errors.Is(err, windows.ERROR_PIPE_CONNECTED):
		case errors.Is(err, windows.ERROR_NO_DATA), errors.Is(err, windows.ERROR_BROKEN_PIPE):
			// A client came and went before we saw it: wait again.
			_ = windows.DisconnectNamedPipe(l.next)
			_ = windows.ResetEvent(ev)
			continue
		default:
			return nil, fmt.Errorf("hub pipe %s: waiting for a caller: %w", l.ep.pipe, err)
		}
		next, err := l.instance(false)
		if err != nil {
			// No instance for the next caller: this hub stops listening
			// (Server.accept ends). The connected caller has no ack and
			// runs its call directly.
			windows.CloseHandle(l.next)
			l.next = windows.InvalidHandle
			return nil, fmt.Errorf("hub pipe %s: a new instance: %w", l.ep.pipe, err)
		}
		c := l.next
		l.next = next
		return newPipeConn(c, l.ep.pipe), nil
	}
}

func (l *pipeListener) Close() error {
	_ = windows.SetEvent(l.stop)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return net.ErrClosed
	}
	l.closed = true
	if l.next != windows.InvalidHandle {
		windows.CloseHandle(l.next)
	}
	windows.CloseHandle(l.stop)
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr(l.ep.pipe) }

type pipeAddr string

func (a pipeAddr) Network() string { return "pipe" }
func (a pipeAddr) String() string  { return string(a) }

// dialWait bounds how long a caller waits while every instance of the
// hub's pipe is busy (the hub between two Accepts).
const dialWait = 2 * time.Second

// dial connects to the hub's pipe; no pipe is a *noHub, and so is a pipe
// that another user owns (never talked to).
func (e endpoint) dial(ctx context.Context) (net.Conn, error) {
	name, err := windows.UTF16PtrFromString(e.pipe)
	if err != nil {
		return nil, &noHub{why: err.Error()}
	}
	deadline := time.Now().Add(dialWait)
	for {
		// SECURITY_IDENTIFICATION: the server may learn who calls, never
		// act as the caller.
		h, err := windows.CreateFile(name, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING,
			windows.FILE_FLAG_OVERLAPPED|windows.SECURITY_SQOS_PRESENT|windows.SECURITY_IDENTIFICATION, 0)
		switch {
		case err == nil:
			if err := e.ownedByUser(h); err != nil {
				windows.CloseHandle(h)
				return nil, &noHub{why: err.Error(), refused: true}
			}
			return newPipeConn(h, e.pipe), nil
		case errors.Is(err, windows.ERROR_FILE_NOT_FOUND):
			return nil, &noHub{why: "no pipe"}
		case errors.Is(err, windows.ERROR_PIPE_BUSY) && time.Now().Before(deadline):
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		default:
			return nil, fmt.Errorf("hub pipe %s: %w", e.pipe, err)
		}
	}
}

// ownedByUser checks that the pipe h was made by this user.
func (e endpoint) ownedByUser(h windows.Handle) error {
	sd, err := windows.GetSecurityInfo(h, windows.SE_KERNEL_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("hub pipe %s: reading its owner: %w", e.pipe, err)
	}
	owner, _, err := sd.Owner()
	if err != nil || owner == nil || !owner.Equals(e.user) {
		return fmt.Errorf("hub pipe %s is owned by %v, not by this user: not using it", e.pipe, owner)
	}
	return nil
}

// pipeConn is one connected pipe instance (either end). The handle is
// overlapped; os.NewFile puts it on Go's I/O completion port, so reads and
// writes wait without holding a thread, and Close cancels them.
type pipeConn struct {
	*os.File
	addr pipeAddr
}

func newPipeConn(h windows.Handle, name string) *pipeConn {
	return &pipeConn{File: os.NewFile(uintptr(h), name), addr: pipeAddr(name)}
}

func (c *pipeConn) LocalAddr() net.Addr  { return c.addr }
func (c *pipeConn) RemoteAddr() net.Addr { return c.addr }
