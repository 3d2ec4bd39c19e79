//go:build windows

package workspace

import (
	"errors"
	"strconv"

	"golang.org/x/sys/windows"
)

// stillActive is GetExitCodeProcess's code for a process that runs.
const stillActive = 259

// processStart returns pid's creation time (100 ns units since 1601) and
// whether it runs.
func processStart(pid int) (string, procState) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		if errors.Is(err, windows.ERROR_INVALID_PARAMETER) { // no such process
			return "", procDead
		}
		return "", procUnknown
	}
	defer windows.CloseHandle(h)
	var code uint32
	if windows.GetExitCodeProcess(h, &code) == nil && code != stillActive {
		return "", procDead
	}
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return "", procAlive
	}
	return strconv.FormatInt(int64(created.HighDateTime)<<32|int64(created.LowDateTime), 10), procAlive
}
