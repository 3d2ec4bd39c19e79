//go:build !(linux && (amd64 || arm64))

package search

import (
	"errors"
	"io"
	"os"
	"time"
)

// readDir lists a directory into out (reused).
func readDir(path string, buf []byte, out []dirent) ([]dirent, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return out, buf, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	for _, e := range ents {
		out = append(out, dirent{name: e.Name(), typ: e.Type()})
	}
	if err != nil && len(ents) == 0 {
		return out, buf, err
	}
	return out, buf, nil
}

func readDirFD(path string, buf []byte, out []dirent) ([]dirent, []byte, int, error) {
	out, buf, err := readDir(path, buf, out)
	return out, buf, -1, err
}

func modTimeAt(dirfd int, name string) (time.Time, error) {
	return time.Time{}, errors.ErrUnsupported
}

func closeFD(int) {}

// openEntry opens a regular file the walk met.
func openEntry(e *Entry) (io.ReadCloser, error) { return openPath(e.Abs) }
