//go:build windows

package workspace

import (
	"path/filepath"
	"strings"
)

// osPath applies the Windows path grammar (winpath.go): drive letters, '\',
// the \\?\ and UNC prefixes; refused: drive-relative paths, device paths,
// alternate data streams, reserved device names.
func osPath(p string) (string, error) { return windowsPath(p) }

// uncURIs: file://server/share/a.go names \\server\share\a.go.
const uncURIs = true

// canonicalPath upper-cases the volume (c:\ and C:\ are one drive, \\srv\s
// and \\SRV\S one share); filepath.EvalSymlinks has already replaced each
// existing name by its long name in its stored case (8.3 short names
// included), through FindFirstFile.
func canonicalPath(real, root string) string {
	vol := filepath.VolumeName(real)
	return strings.ToUpper(vol) + real[len(vol):]
}
