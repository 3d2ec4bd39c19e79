//go:build windows

package workspace

import (
	"os"
	"path/filepath"
)

// openRoot opens the workspace root dir for its os.Root. os.OpenRoot opens
// a directory without FILE_SHARE_DELETE, so that while hashls runs nobody
// could rename or delete the root (a long-lived server would hold it for
// the editor's whole session); a Root opened from its parent's is opened
// relative to it, sharing delete like every directory a Root opens. A
// drive's root, which has no parent, is opened as os.OpenRoot does.
func openRoot(dir string) (*os.Root, error) {
	parent := filepath.Dir(dir)
	if parent == dir {
		return os.OpenRoot(dir)
	}
	p, err := os.OpenRoot(parent)
	if err != nil {
		return os.OpenRoot(dir)
	}
	defer p.Close()
	r, err := p.OpenRoot(filepath.Base(dir))
	if err != nil {
		return os.OpenRoot(dir)
	}
	return r, nil
}
