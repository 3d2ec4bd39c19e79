//go:build windows

package workspace

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// replaceFile moves tmp onto dst with MoveFileEx(MOVEFILE_REPLACE_EXISTING|
// MOVEFILE_WRITE_THROUGH): one atomic replace on NTFS, flushed before it
// returns (Windows has no directory fsync). Another program holding dst open
// without FILE_SHARE_DELETE (a virus scanner, an indexer, a sync client, an
// editor) makes it fail with a sharing violation or access denied: it is
// retried for about 1.6 s, and the error then says who to blame. A
// read-only dst (the mode hashls keeps) has its read-only attribute cleared
// first, which MoveFileEx would otherwise refuse.
func replaceFile(tmp, dst string) error {
	from, err := windows.UTF16PtrFromString(tmp)
	if err != nil {
		return err
	}
	to, err := windows.UTF16PtrFromString(dst)
	if err != nil {
		return err
	}
	clearedRO := false
	op := func() error {
		err := windows.MoveFileEx(from, to, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH)
		if err != nil && !clearedRO && errors.Is(err, windows.ERROR_ACCESS_DENIED) {
			if attrs, aerr := windows.GetFileAttributes(to); aerr == nil && attrs&windows.FILE_ATTRIBUTE_READONLY != 0 {
				clearedRO = true
				if windows.SetFileAttributes(to, attrs&^windows.FILE_ATTRIBUTE_READONLY) == nil {
					err = windows.MoveFileEx(from, to, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH)
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
		return fmt.Errorf("Windows refused to replace %s (%d attempts over %v): %w; another program (an editor, a virus scanner, an indexer or a sync client) holds it open: close it there and retry (or, when no program does, make the file and its directory writable)", dst, n, busyTotal(), err)
	}
	return &os.LinkError{Op: "MoveFileEx", Old: tmp, New: dst, Err: err}
}

// removeFile removes name, retrying like replaceFile while another program
// holds it open.
func removeFile(name string) error {
	err, n := retryBusy(func() error { return os.Remove(name) }, fileBusy, time.Sleep)
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

// openRead opens name for reading, retrying like replaceFile while the
// open fails with a sharing or lock violation: another process replacing
// the file (a commit's MoveFileEx, an editor's save) holds it for a moment,
// and a read then must wait, not fail.
func openRead(name string) (*os.File, error) {
	var f *os.File
	err, _ := retryBusy(func() (err error) {
		f, err = os.Open(name)
		return err
	}, func(err error) bool {
		return errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_LOCK_VIOLATION)
	}, time.Sleep)
	return f, err
}
