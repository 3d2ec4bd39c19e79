//go:build linux || darwin

package hub

import (
	"fmt"
	"net"
	"os"
)

// peerIsUser checks that the process at the other end of the Unix socket
// c runs as this process's user, from the credentials the kernel keeps for
// the connection (peerUID: what the process was when it connected or
// listened, which it cannot change).
func peerIsUser(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var uid int
	var who string
	var cerr error
	if err := raw.Control(func(fd uintptr) { uid, who, cerr = peerUID(int(fd)) }); err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("reading the peer's credentials: %w", cerr)
	}
	if uid != os.Geteuid() {
		return fmt.Errorf("the process at the other end%s runs as the user %d, not as you (%d)", who, uid, os.Geteuid())
	}
	return nil
}
