//go:build windows && wine

package wine

import (
	_ "unsafe" // go:linkname

	"golang.org/x/sys/windows"
)

//go:linkname deleteatFallback internal/syscall/windows.TestDeleteatFallback
var deleteatFallback bool

// Under reports whether this process runs under wine.
func Under() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

func init() {
	if Under() {
		deleteatFallback = true
	}
}
