package workspace

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// A commit's intent records its owner, the process that made it, so that
// recovery takes only the intents of processes that are gone (a live
// process's intent is a commit in flight, or one it is still undoing). A pid
// alone is not an owner: pids are reused. The owner is the pid and the
// process's start time as the OS keeps it (process_*.go): /proc's start time
// and boot id on Linux, the kernel's start time on macOS, the creation time
// on Windows; a pid now running a process started at another time is not
// the owner.

// procState is what the OS says of a pid.
type procState uint8

const (
	procUnknown procState = iota // the OS would not say (no permission, no /proc): taken as alive
	procAlive
	procDead // no such process, a zombie, or none the OS can find
)

var selfOwnerOnce = sync.OnceValue(func() string {
	start, _ := processStart(os.Getpid())
	return ownerToken(os.Getpid(), start)
})

// selfOwner is this process's owner token.
func selfOwner() string { return selfOwnerOnce() }

// ownerToken is the owner of pid started at start ("" when the OS does not
// say): "PID@START".
func ownerToken(pid int, start string) string {
	return strconv.Itoa(pid) + "@" + start
}

// ownerAlive reports whether the process that recorded owner (and pid, the
// intents table's own column) may still run. An intent of an older hashls
// has no owner: its pid decides, a process with that pid counting as alive.
// A token this hashls cannot read counts as alive: the intent is left to
// its owner's kind.
func ownerAlive(owner string, pid int) bool {
	if owner == "" {
		_, st := processStart(pid)
		return st != procDead
	}
	ps, start, ok := strings.Cut(owner, "@")
	p, err := strconv.Atoi(ps)
	if !ok || err != nil || p <= 0 {
		return true
	}
	cur, st := processStart(p)
	switch st {
	case procDead:
		return false
	case procAlive:
		return start == "" || cur == "" || cur == start
	}
	return true
}

// ownerString describes owner for a message.
func ownerString(owner string, pid int) string {
	if owner == "" {
		return fmt.Sprintf("pid %d", pid)
	}
	p, _, _ := strings.Cut(owner, "@")
	return "pid " + p
}
