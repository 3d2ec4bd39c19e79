//go:build darwin

package workspace

// osPath is the identity: every byte but NUL and '/' may be in a macOS file
// name.
func osPath(p string) (string, error) { return p, nil }

// uncURIs: a file:// URI with a host names nothing local here.
const uncURIs = false

// canonicalPath gives each existing element of the resolved path real the
// name its directory stores: APFS and HFS+ find "Main.go" for "main.go", and
// "café" whether its é is one code point (NFC) or two (NFD), so without this
// two spellings would be two files to the overlays, the locks and the store.
// Below root, which is canonical already, only the rest is walked.
func canonicalPath(real, root string) string { return canonicalNames(real, root, osNames{}) }
