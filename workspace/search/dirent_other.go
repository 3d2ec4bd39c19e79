//go:build !linux

package search

import "os"

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
