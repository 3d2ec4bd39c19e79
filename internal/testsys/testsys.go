// Package testsys answers, for tests, what the operating system they run on
// can do where that differs between Linux, macOS and Windows (and wine, CI's
// Windows stand-in): SymlinksWork, and OutsidePath, an absolute path outside
// any test's root; on Linux, SwapLoop and TreeSums for the races that swap a
// directory with a symlink; RaceDuration, how long a race runs. Only tests
// import it.
package testsys

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

var symlinkProbe = sync.OnceValue(func() bool {
	dir, err := os.MkdirTemp("", "hashls-symlink-probe")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	if os.Mkdir(filepath.Join(dir, "d"), 0o755) != nil || os.Symlink("d", filepath.Join(dir, "l")) != nil {
		return false
	}
	fi, err := os.Lstat(filepath.Join(dir, "l"))
	return err == nil && fi.Mode()&os.ModeSymlink != 0
})

// SymlinksWork reports whether this system makes usable symbolic links:
// Windows refuses them without Developer Mode or the privilege, and wine 8.0
// answers CreateSymbolicLink with success but makes nothing.
func SymlinksWork() bool { return symlinkProbe() }

// NoSymlinks is the reason a test about symbolic links skips where
// SymlinksWork is false.
const NoSymlinks = "this system makes no symbolic links (Windows without Developer Mode; wine 8.0 stubs CreateSymbolicLink)"

// OutsidePath is an absolute path of an existing file outside any test's
// root: /etc/hostname, or C:\Windows\win.ini on Windows (where "/etc/..." is
// not absolute but rooted on the current drive, refused as invalid).
func OutsidePath() string {
	if runtime.GOOS == "windows" {
		return `C:\Windows\win.ini`
	}
	return "/etc/hostname"
}

// RaceDuration is how long a race test runs: the seconds in the
// environment variable env (bench/races.sh sets them), else 1 s with
// -short and 5 s without.
func RaceDuration(env string) time.Duration {
	if s, err := strconv.Atoi(os.Getenv(env)); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if testing.Short() {
		return time.Second
	}
	return 5 * time.Second
}
