//go:build !unix

package search

import "os"

func openRaw(path string) (*os.File, error) { return os.Open(path) }
