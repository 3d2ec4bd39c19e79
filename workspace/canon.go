package workspace

import (
	"os"
	"path/filepath"
	"strings"
)

// nameFS is what canonicalNames needs of a file system: the names in a
// directory, and whether two names in it are one file. osNames is the real
// one; tests use a fake case-insensitive, normalising one.
type nameFS interface {
	names(dir string) ([]string, error)
	same(dir, a, b string) bool
}

// canonicalNames rewrites each existing element of the clean absolute path
// abs to the name its directory stores, for file systems that find a file
// under several spellings (macOS: any case, NFC or NFD). An element whose
// exact name is not in its directory is matched to the entry the file
// system resolves it to (the same file); the first element that does not
// exist ends the walk, and the rest is kept as written. The part of abs
// under known (a canonical directory, such as the workspace root) is not
// walked again when abs starts with it exactly.
func canonicalNames(abs, known string, fsys nameFS) string {
	sep := string(filepath.Separator)
	dir, rest := filepath.VolumeName(abs)+sep, abs[len(filepath.VolumeName(abs)):]
	if known != "" && (abs == known || strings.HasPrefix(abs, strings.TrimSuffix(known, sep)+sep)) {
		dir, rest = known, abs[len(known):]
	}
	elems := strings.Split(strings.Trim(rest, sep), sep)
	for i, name := range elems {
		if name == "" {
			continue
		}
		real, ok := storedName(dir, name, fsys)
		if !ok {
			return filepath.Join(append([]string{dir}, elems[i:]...)...)
		}
		dir = filepath.Join(dir, real)
	}
	return dir
}

// storedName returns the entry of dir that name designates, ok false when
// there is none (or dir cannot be listed).
func storedName(dir, name string, fsys nameFS) (string, bool) {
	names, err := fsys.names(dir)
	if err != nil {
		return "", false
	}
	for _, n := range names {
		if n == name {
			return n, true
		}
	}
	// Likely candidates first (another case), then every entry (another
	// Unicode normalisation, or a fold EqualFold does not know).
	for _, pass := range []bool{true, false} {
		for _, n := range names {
			if strings.EqualFold(n, name) == pass && fsys.same(dir, n, name) {
				return n, true
			}
		}
	}
	return "", false
}

// osNames is nameFS over the real file system.
type osNames struct{}

func (osNames) names(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

func (osNames) same(dir, a, b string) bool {
	sa, err := os.Lstat(filepath.Join(dir, a))
	if err != nil {
		return false
	}
	sb, err := os.Lstat(filepath.Join(dir, b))
	return err == nil && os.SameFile(sa, sb)
}
