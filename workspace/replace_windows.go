//go:build windows

package workspace

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// replaceFile renames tmp onto name in dir (os.Root's rename on Windows:
// NtSetInformationFile with FILE_RENAME_INFORMATION_EX, replacing the target
// with POSIX semantics, relative to dir's handle: both names in that
// directory), one atomic replace on NTFS. Another program holding the target
// open without FILE_SHARE_DELETE (a virus scanner, an indexer, a sync client,
// an editor) makes it fail with a sharing violation or access denied: it is
// retried for about 1.6 s, and the error then says who to blame. A read-only
// target (the mode hashls keeps) has its read-only attribute cleared first,
// which the rename would otherwise refuse.
func replaceFile(dir *os.Root, tmp, name string) error {
	clearedRO := false
	op := func() error {
		err := dir.Rename(tmp, name)
		if err != nil && !clearedRO && errors.Is(err, windows.ERROR_ACCESS_DENIED) {
			if fi, ferr := dir.Lstat(name); ferr == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o200 == 0 {
				clearedRO = true
				if dir.Chmod(name, fi.Mode().Perm()|0o200) == nil {
					err = dir.Rename(tmp, name)
				}
			}
		}
		return err
	}
	err, n := retryBusy(op, fileBusy, time.Sleep)
	if err == nil {
		return nil
	}
	if fileBusy(err) {
		return fmt.Errorf("Windows refused to replace %s (%d attempts over %v): %w; another program (an editor, a virus scanner, an indexer or a sync client) holds it open: close it there and retry (or, when no program does, make the file and its directory writable)", name, n, busyTotal(), err)
	}
	return err
}

// sameVersion reports whether a and b have the same size and modification
// time (a replaced file gets its replacement's).
func sameVersion(a, b os.FileInfo) bool {
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// removeFile removes the file name in dir, retrying like replaceFile while
// another program holds it open.
func removeFile(dir *os.Root, name string) error {
	err, n := retryBusy(func() error { return dir.Remove(name) }, fileBusy, time.Sleep)
	if err != nil && fileBusy(err) {
		return fmt.Errorf("Windows refused to delete %s (%d attempts over %v): %w; another program (an editor, a virus scanner, an indexer or a sync client) holds it open: close it there and retry (or, when no program does, make the file and its directory writable)", name, n, busyTotal(), err)
	}
	return err
}

// fileBusy reports whether err is Windows refusing a file another handle
// holds.
func fileBusy(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_LOCK_VIOLATION) ||
		errors.Is(err, windows.ERROR_ACCESS_DENIED)
}

// openRead opens name in dir for reading, retrying like replaceFile while the
// open fails with a sharing or lock violation: another process replacing
// the file (a commit's MoveFileEx, an editor's save) holds it for a moment,
// and a read then must wait, not fail.
func openRead(dir *os.Root, name string) (*os.File, error) {
	var f *os.File
	err, _ := retryBusy(func() (err error) {
		f, err = dir.Open(name)
		return err
	}, func(err error) bool {
		return errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_LOCK_VIOLATION)
	}, time.Sleep)
	return f, err
}
