package search

import (
	"os"

	"github.com/hashls/hashls/workspace/archive"
)

// The archive reader lives in package workspace/archive (shared with the
// read and write tools); these are the names the search tool uses.

// SplitArchivePath splits "bundle.zip:src/foo.ts" into the archive path and
// the member ("" when p names no member). ok is false when p does not hold
// an archive name followed by ':'.
func SplitArchivePath(p string) (archivePath, member string, ok bool) {
	return archive.SplitArchivePath(p)
}

// ArchiveMember is one regular file read from an archive.
type ArchiveMember = archive.Member

// ReadArchive reads the regular members of the archive f (opened by the
// caller: Workspace.OpenReader) whose names
// satisfy want, each up to maxBytes (larger ones are listed as skipped).
// Zip (and jar), tar and gzip-compressed tar are understood.
func ReadArchive(f *os.File, want func(name string) bool, maxBytes int64) ([]ArchiveMember, error) {
	var out []ArchiveMember
	err := EachArchiveMember(f, want, maxBytes, func(m ArchiveMember) { out = append(out, m) })
	return out, err
}

// EachArchiveMember is ReadArchive calling fn with one member at a time, so
// that only what fn keeps stays in memory.
func EachArchiveMember(f *os.File, want func(name string) bool, maxBytes int64, fn func(ArchiveMember)) error {
	return archive.Each(f, want, maxBytes, fn)
}

// IsArchiveName reports whether p ends in an archive extension.
func IsArchiveName(p string) bool { return archive.IsArchiveName(p) }
