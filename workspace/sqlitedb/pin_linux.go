package sqlitedb

import (
	"os"
	"strconv"
)

// pinned returns the name of the file name in dir through a descriptor of
// dir (/proc/self/fd/N/NAME) and the release of that descriptor; "" when
// /proc cannot name it.
func pinned(dir *os.Root, name string) (string, func()) {
	f, err := dir.Open(".")
	if err != nil {
		return "", func() {}
	}
	sc, err := f.SyscallConn()
	fd := -1
	if err == nil {
		err = sc.Control(func(d uintptr) { fd = int(d) })
	}
	p := pinnedPrefix + strconv.Itoa(fd)
	if st, serr := os.Stat(p); err != nil || serr != nil || !st.IsDir() {
		f.Close()
		return "", func() {}
	}
	return p + "/" + name, func() { f.Close() }
}
