package lsp

import (
	"time"
)

// parentPollInterval is how often the server checks that the editor process
// named by initialize's processId is still alive.
var parentPollInterval = 3 * time.Second

// watchParent ends the session (as if exit had been sent) when the process
// pid disappears, as the LSP specification asks: an editor that crashed
// leaves no orphaned server behind. processAlive is per OS (parent_*.go).
func (s *server) watchParent(pid int) {
	if pid <= 0 {
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
