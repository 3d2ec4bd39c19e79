//go:build !unix

package mcp

// openFileLimit is the process's limit on open files: 0, none to read
// (Windows has no per-process descriptor limit of that kind).
func openFileLimit() int { return 0 }
