//go:build unix

package workspace

import "os"

// replaceFile renames tmp onto dst, atomically replacing it (rename(2)).
func replaceFile(tmp, dst string) error { return os.Rename(tmp, dst) }

// removeFile removes the file name.
func removeFile(name string) error { return os.Remove(name) }

// openRead opens name for reading.
func openRead(name string) (*os.File, error) { return os.Open(name) }
