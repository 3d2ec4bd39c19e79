//go:build !linux && !darwin && !windows

package workspace

import (
	"errors"
	"os"
	"syscall"
)

// processStart says only whether pid runs (signal 0): without a start time
// a reused pid counts as alive, which leaves the intent for later.
func processStart(pid int) (string, procState) {
	p, err := os.FindProcess(pid)
	if err != nil {
		return "", procUnknown
	}
	err = p.Signal(syscall.Signal(0))
	switch {
	case err == nil, errors.Is(err, syscall.EPERM):
		return "", procAlive
	case errors.Is(err, os.ErrProcessDone), errors.Is(err, syscall.ESRCH):
		return "", procDead
	}
	return "", procUnknown
}
