//go:build darwin

package hub

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// peerIsUser checks that the process at the other end of the Unix socket
// c runs as this process's user (LOCAL_PEERCRED, what getpeereid reads).
func peerIsUser(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Xucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("reading the peer's credentials: %w", cerr)
	}
	if int(cred.Uid) != os.Geteuid() {
		return fmt.Errorf("the process at the other end runs as the user %d, not as you (%d)", cred.Uid, os.Geteuid())
	}
	return nil
}
