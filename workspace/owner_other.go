//go:build !unix

package workspace

import (
	"io/fs"
	"os"
)

// keepOwner is a no-op where files have no Unix owner.
func keepOwner(f *os.File, old fs.FileInfo) {}
