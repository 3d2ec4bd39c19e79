//go:build darwin

package workspace

import (
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sys/unix"
)

var bootTime = sync.OnceValue(func() string {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d.%06d", tv.Sec, tv.Usec)
})

// szomb is a zombie's p_stat (sys/proc.h).
const szomb = 5

// processStart returns pid's start time ("BOOT/START", the kernel's
// kern.boottime and the process's p_starttime) and whether it runs; a zombie
// is dead.
func processStart(pid int) (string, procState) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		if errors.Is(err, unix.EIO) || errors.Is(err, unix.ESRCH) { // no such process: an empty answer
			return "", procDead
		}
		return "", procUnknown
	}
	if k.Proc.P_pid != int32(pid) {
		return "", procDead
	}
	if k.Proc.P_stat == szomb {
		return "", procDead
	}
	st := k.Proc.P_starttime
	return fmt.Sprintf("%s/%d.%06d", bootTime(), st.Sec, st.Usec), procAlive
}
