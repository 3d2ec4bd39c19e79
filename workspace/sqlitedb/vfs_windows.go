//go:build windows

package sqlitedb

import (
	"os"

	"golang.org/x/sys/windows"
	sqlite3 "modernc.org/sqlite/lib"
)

// sameFile reports whether the file SQLite opened at pFile (the win32
// VFS's winFile) is name in dir: same volume and file index.
func sameFile(pFile uintptr, dir *os.Root, name string) bool {
	var got, want windows.ByHandleFileInformation
	if windows.GetFileInformationByHandle(windows.Handle((*sqlite3.TwinFile)(cmem(pFile)).Fh), &got) != nil {
		return false
	}
	f, err := dir.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	if windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &want) != nil {
		return false
	}
	return got.VolumeSerialNumber == want.VolumeSerialNumber && got.FileIndexHigh == want.FileIndexHigh && got.FileIndexLow == want.FileIndexLow
}
