//go:build !unix

package search

// oNonblock: Windows has no O_NONBLOCK (and no FIFOs a walk meets).
const oNonblock = 0
