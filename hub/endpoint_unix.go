//go:build !windows

package hub

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"

	"github.com/hashls/hashls/workspace"
)

// maxSocketPath bounds a hub socket's path: sun_path holds 108 bytes on
// Linux, 104 on macOS (with the terminating NUL).
const maxSocketPath = 103

// endpoint is where a root's hub is reached, on Unix a socket file:
// workspace.HubSocket's path, in the owner-only hub directory, made 0600.
type endpoint struct {
	lock string // <sock>.lock, held by the live hub
	sock string
}

// endpointOf returns the endpoint of root's hub under stateDir. It fails
// when the socket's path would be too long for a socket address (a very
// deep state directory): there is no hub then.
func endpointOf(stateDir, root string) (endpoint, error) {
	sock, err := workspace.HubSocket(stateDir, root)
	if err != nil {
		return endpoint{}, err
	}
	if len(sock) > maxSocketPath {
		return endpoint{}, fmt.Errorf("hub socket path %s is %d bytes, longer than a socket address holds (%d); set HASHLS_STATE_DIR to a shorter directory to use the hub", sock, len(sock), maxSocketPath)
	}
	return endpoint{lock: sock + ".lock", sock: sock}, nil
}

// addr is the endpoint's address for messages and logs.
func (e endpoint) addr() string { return e.sock }

// listen makes the endpoint; the caller holds the lock, so a socket file
// left here is a dead hub's and is removed first.
func (e endpoint) listen() (net.Listener, error) {
	if err := os.Remove(e.sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("removing the stale hub socket %s: %w", e.sock, err)
	}
	ln, err := net.Listen("unix", e.sock)
	if err != nil {
		return nil, fmt.Errorf("hub socket %s: %w", e.sock, err)
	}
	_ = os.Chmod(e.sock, 0o600) // the directory is 0700 already
	return ln, nil
}

// dial connects to the hub; a missing socket is a *noHub (one stat). So is
// a socket that is not the user's own, or whose listening process runs as
// another user (its credentials, read from the connection before anything
// is sent: the owner of the socket file could be changed under us, the
// peer's credentials cannot), and a state or hub directory that others
// could have put it in (workspace.CheckHub): nothing is sent to it.
func (e endpoint) dial(ctx context.Context) (net.Conn, error) {
	fi, err := os.Lstat(e.sock)
	if err != nil {
		return nil, &noHub{why: "no socket"}
	}
	if err := workspace.CheckHub(e.sock); err != nil {
		return nil, &noHub{why: err.Error(), refused: true}
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return nil, &noHub{why: fmt.Sprintf("hub socket %s is not a socket (%v): not using it", e.sock, fi.Mode().Type()), refused: true}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return nil, &noHub{why: fmt.Sprintf("hub socket %s belongs to the user %d, not to you (%d): not using it", e.sock, st.Uid, os.Geteuid()), refused: true}
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", e.sock)
	if err != nil {
		return nil, err
	}
	if err := peerIsUser(c); err != nil {
		c.Close()
		return nil, &noHub{why: fmt.Sprintf("hub socket %s: %v: not using it", e.sock, err), refused: true}
	}
	return c, nil
}

// clear removes what a hub that is gone left behind (its socket file); the
// caller holds the lock.
func (e endpoint) clear() { _ = os.Remove(e.sock) }
