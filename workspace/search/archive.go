package search

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
)

// archiveExts are the archive kinds whose members can be searched.
var archiveExts = []string{".tar.gz", ".tgz", ".tar", ".zip", ".jar"}

// SplitArchivePath splits "bundle.zip:src/foo.ts" into the archive path and
// the member ("" when p names no member). ok is false when p does not hold
// an archive name followed by ':'.
func SplitArchivePath(p string) (archive, member string, ok bool) {
	lower := strings.ToLower(p)
	best := -1
	for _, ext := range archiveExts {
		if i := strings.Index(lower, ext+":"); i >= 0 && (best < 0 || i+len(ext) < best) {
			best = i + len(ext)
		}
	}
	if best < 0 {
		return "", "", false
	}
	return p[:best], strings.TrimPrefix(p[best+1:], "/"), true
}

// ArchiveMember is one regular file read from an archive.
type ArchiveMember struct {
	Name string
	Data []byte // nil when Skipped
	// Skipped says why the member was not read ("" when it was): too large.
	Skipped string
}

// ReadArchive reads the regular members of the archive at abs whose names
// satisfy want, each up to maxBytes (larger ones are listed as skipped).
// Zip (and jar), tar and gzip-compressed tar are understood.
func ReadArchive(abs string, want func(name string) bool, maxBytes int64) ([]ArchiveMember, error) {
	var out []ArchiveMember
	err := EachArchiveMember(abs, want, maxBytes, func(m ArchiveMember) { out = append(out, m) })
	return out, err
}

// EachArchiveMember is ReadArchive calling fn with one member at a time, so
// that only what fn keeps stays in memory.
func EachArchiveMember(abs string, want func(name string) bool, maxBytes int64, fn func(ArchiveMember)) error {
	lower := strings.ToLower(abs)
	switch {
	case strings.HasSuffix(lower, ".zip") || strings.HasSuffix(lower, ".jar"):
		return readZip(abs, want, maxBytes, fn)
	case strings.HasSuffix(lower, ".tar"):
		f, err := os.Open(abs)
		if err != nil {
			return err
		}
		defer f.Close()
		return readTar(f, want, maxBytes, fn)
	case strings.HasSuffix(lower, ".tar.gz") || strings.HasSuffix(lower, ".tgz"):
		f, err := os.Open(abs)
		if err != nil {
			return err
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("%s is not a gzip file: %w", abs, err)
		}
		defer zr.Close()
		return readTar(zr, want, maxBytes, fn)
	}
	return fmt.Errorf("%s is not a supported archive (zip, jar, tar, tar.gz, tgz)", abs)
}

func readZip(abs string, want func(string) bool, maxBytes int64, fn func(ArchiveMember)) error {
	zr, err := zip.OpenReader(abs)
	if err != nil {
		return fmt.Errorf("cannot open %s as a zip archive: %w", abs, err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if !f.Mode().IsRegular() || !want(f.Name) {
			continue
		}
		if int64(f.UncompressedSize64) > maxBytes {
			fn(ArchiveMember{Name: f.Name, Skipped: "too large"})
			continue
		}
		rc, err := f.Open()
		if err != nil {
			fn(ArchiveMember{Name: f.Name, Skipped: err.Error()})
			continue
		}
		data, err := io.ReadAll(io.LimitReader(rc, maxBytes+1))
		rc.Close()
		switch {
		case err != nil:
			fn(ArchiveMember{Name: f.Name, Skipped: err.Error()})
		case int64(len(data)) > maxBytes:
			fn(ArchiveMember{Name: f.Name, Skipped: "too large"})
		default:
			fn(ArchiveMember{Name: f.Name, Data: data})
		}
	}
	return nil
}

func readTar(r io.Reader, want func(string) bool, maxBytes int64, fn func(ArchiveMember)) error {
	tr := tar.NewReader(r)
	seen := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if seen > 0 {
				return nil // a truncated archive: keep what was read
			}
			return fmt.Errorf("cannot read the tar archive: %w", err)
		}
		seen++
		name := strings.TrimPrefix(h.Name, "./")
		if h.Typeflag != tar.TypeReg || !want(name) {
			continue
		}
		if h.Size > maxBytes {
			fn(ArchiveMember{Name: name, Skipped: "too large"})
			continue
		}
		data, err := io.ReadAll(io.LimitReader(tr, maxBytes+1))
		if err != nil {
			fn(ArchiveMember{Name: name, Skipped: err.Error()})
			continue
		}
		fn(ArchiveMember{Name: name, Data: data})
	}
}

// IsArchiveName reports whether p ends in an archive extension.
func IsArchiveName(p string) bool {
	lower := strings.ToLower(p)
	for _, ext := range archiveExts {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return false
}
