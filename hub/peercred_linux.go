//go:build linux

package hub

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// peerUID returns the user of the process at the other end of the Unix
// socket fd (SO_PEERCRED), and its pid for messages.
func peerUID(fd int) (uid int, who string, err error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, "", err
	}
	return int(cred.Uid), fmt.Sprintf(" (pid %d)", cred.Pid), nil
}
