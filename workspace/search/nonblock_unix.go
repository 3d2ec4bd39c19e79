//go:build unix

package search

import "syscall"

// oNonblock opens a FIFO without waiting for a writer (a search reads it
// as empty instead of hanging).
const oNonblock = syscall.O_NONBLOCK
