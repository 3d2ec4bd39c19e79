//go:build unix

package workspace

import (
	"os"
	"syscall"
)

// tryLockFile takes an exclusive flock on f without waiting; locked is
// false when another open file description holds it.
func tryLockFile(f *os.File) (locked bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch err {
	case nil:
		return true, nil
	case syscall.EWOULDBLOCK, syscall.EINTR:
		return false, nil
	}
	return false, err
}

// unlockFile releases the lock tryLockFile took.
func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
