package search

import (
	"context"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// FindOptions configures Find.
type FindOptions struct {
	Root      string   // absolute directory
	Dir       *os.Root // Root already open (WalkOptions.Dir)
	Glob      *Glob    // on paths relative to Root; nil matches everything
	Hidden    bool
	Gitignore bool
	Threads   int
	// OnMatch, when set, is called (serially) with each match as found.
	OnMatch func(rel string)
}

// Found is one path found by Find.
type Found struct {
	Rel     string // slash-separated, relative to Root
	IsDir   bool
	ModTime time.Time
}

// FindResult is Find's answer.
type FindResult struct {
	Paths    []Found // newest first, then by path
	TimedOut bool    // ctx ended: Paths are what was found so far
	// Unreadable counts the directories the walk could not read (no
	// permission, or a path too long to open): what is below them was not
	// searched.
	Unreadable int
}

// SortNewestFirst orders paths by modification time, newest first, then
// by path.
func SortNewestFirst(paths []Found) {
	slices.SortFunc(paths, func(a, b Found) int {
		if c := b.ModTime.Compare(a.ModTime); c != 0 {
			return c
		}
		return strings.Compare(a.Rel, b.Rel)
	})
}

// Find walks opts.Root in parallel and returns every file, directory and
// symbolic link whose relative path matches opts.Glob, newest first. When
// ctx ends (a timeout), it returns the partial result with TimedOut set.
func Find(ctx context.Context, opts FindOptions) (*FindResult, error) {
	threads := opts.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	per := make([][]Found, threads)
	var mu sync.Mutex
	var count atomic.Int64
	wo := WalkOptions{Hidden: opts.Hidden, Gitignore: opts.Gitignore, Threads: threads, Dir: opts.Dir}
	if opts.Glob != nil {
		wo.Descend = opts.Glob.CouldMatchUnder
	}
	stats, err := Walk(ctx, opts.Root, wo, func(w int, e *Entry) bool {
		if opts.Glob != nil && !opts.Glob.Match(e.Rel) {
			return true
		}
		f := Found{Rel: e.Rel, IsDir: e.Type.IsDir()}
		if t, err := e.ModTime(); err == nil {
			f.ModTime = t
		}
		per[w] = append(per[w], f)
		count.Add(1)
		if opts.OnMatch != nil {
			mu.Lock()
			opts.OnMatch(e.Rel)
			mu.Unlock()
		}
		return true
	})
	res := &FindResult{Unreadable: int(stats.Unreadable)}
	for _, p := range per {
		res.Paths = append(res.Paths, p...)
	}
	SortNewestFirst(res.Paths)
	if err != nil && ctx.Err() != nil {
		res.TimedOut = true
		return res, nil
	}
	return res, err
}
