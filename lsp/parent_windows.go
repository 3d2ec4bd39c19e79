//go:build windows

package lsp

import (
	"errors"

	"golang.org/x/sys/windows"
)

// processAlive reports whether the process pid is still running: it can be
// opened and has no exit code yet. A process this user may not query
// counts as alive (it exists).
func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_ACCESS_DENIED)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}

// stillActive is the exit code GetExitCodeProcess reports for a running
// process (STILL_ACTIVE, 259).
const stillActive = 259
