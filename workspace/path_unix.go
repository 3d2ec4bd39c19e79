//go:build unix && !darwin

package workspace

// osPath is the identity: every byte but NUL and '/' may be in a Unix file
// name.
func osPath(p string) (string, error) { return p, nil }

// uncURIs: a file:// URI with a host names nothing local here.
const uncURIs = false

// canonicalPath is the identity: names are case-sensitive byte strings
// here (a case-folding directory, ext4's casefold, is not handled).
func canonicalPath(real, root string) string { return real }
