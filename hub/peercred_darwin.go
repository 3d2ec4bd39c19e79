//go:build darwin

package hub

import "golang.org/x/sys/unix"

// peerUID returns the user of the process at the other end of the Unix
// socket fd (LOCAL_PEERCRED, what getpeereid reads).
func peerUID(fd int) (uid int, who string, err error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, "", err
	}
	return int(cred.Uid), "", nil
}
