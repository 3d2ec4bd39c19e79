package lsp

import (
	"errors"
	"os"
	"runtime"
	"syscall"
	"time"
)

// parentPollInterval is how often the server checks that the editor process
// named by initialize's processId is still alive.
var parentPollInterval = 3 * time.Second

// watchParent ends the session (as if exit had been sent) when the process
// pid disappears, as the LSP specification asks: an editor that crashed
// leaves no orphaned server behind. It is a no-op on Windows, where signal 0
// is not available.
func (s *server) watchParent(pid int) {
	if pid <= 0 || runtime.GOOS == "windows" {
		return
	}
	go func() {
		t := time.NewTicker(parentPollInterval)
		defer t.Stop()
		for {
			select {
			case <-s.exited:
				return
			case <-t.C:
			}
			if !processAlive(pid) {
				s.logf("lsp: the editor process %d is gone; exiting", pid)
				s.exitOnce.Do(func() { close(s.exited) })
				return
			}
		}
	}()
}

func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
