//go:build linux

package workspace

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"sync"
)

var bootID = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return string(bytes.TrimSpace(b))
})

// processStart returns pid's start time ("BOOTID/TICKS": the boot and the
// clock ticks since it, /proc/PID/stat's 22nd field) and whether it runs. A
// zombie (killed, not yet waited for) is dead: it holds no lock and writes
// nothing.
func processStart(pid int) (string, procState) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", procDead
		}
		return "", procUnknown
	}
	// "PID (COMM) STATE PPID ..." where COMM may hold spaces and ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", procUnknown
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 {
		return "", procUnknown
	}
	if s := f[0]; len(s) == 1 && (s[0] == 'Z' || s[0] == 'X' || s[0] == 'x') {
		return "", procDead
	}
	return bootID() + "/" + string(f[19]), procAlive
}
