//go:build unix

package lsp

import (
	"errors"
	"os"
	"syscall"
)

// processAlive reports whether the process pid exists (signal 0).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
