//go:build !windows

package workspace

import "os"

// openRoot opens the workspace root dir for its os.Root.
func openRoot(dir string) (*os.Root, error) { return os.OpenRoot(dir) }
