// Package search is hashls's file search engine: a parallel, gitignore-aware
// directory walk (Walk), regex content search with a literal prefilter
// (Compile, Matcher, Scan) and path search by glob (Find). It is pure: it
// works on absolute directories and never imports package workspace; the
// agent tools glue it to the workspace (confinement, overlays, snapshots).
//
// Entry points: Walk, Compile + Scan, Find, CompileGlob.
package search

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashls/hashls/workspace/ignore"
)

// WalkOptions configures Walk.
type WalkOptions struct {
	Hidden    bool // include names starting with "."
	Gitignore bool // apply .gitignore, .git/info/exclude and the global excludes file
	Threads   int  // 0: GOMAXPROCS
	// Descend, when set, is asked about each directory (rel to the walk
	// root); false skips its contents.
	Descend func(rel string) bool
}

// Entry is one path found by Walk.
type Entry struct {
	Rel   string      // slash-separated, relative to the walk root
	Abs   string      // absolute
	Type  fs.FileMode // type bits only: 0 regular, fs.ModeDir, fs.ModeSymlink, ...
	dirfd int         // the open parent directory during the callback, or -1
	name  string
}

// Info returns the entry's lstat information.
func (e *Entry) Info() (fs.FileInfo, error) { return os.Lstat(e.Abs) }

// ModTime returns the entry's modification time (not following symlinks);
// during the Walk callback it stats relative to the open parent directory.
func (e *Entry) ModTime() (time.Time, error) {
	if e.dirfd >= 0 {
		if t, err := modTimeAt(e.dirfd, e.name); err == nil {
			return t, nil
		}
	}
	fi, err := os.Lstat(e.Abs)
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}

// dirent is one directory entry as readDir lists it.
type dirent struct {
	name string
	typ  fs.FileMode
}

// walkBuf is a worker's scratch space for reading directories.
type walkBuf struct {
	raw  []byte
	ents []dirent
}

// WalkStats counts what a walk met.
type WalkStats struct {
	Dirs       int64 // directories read
	Unreadable int64 // directories that could not be read
}

type dirWork struct {
	abs, rel string
	frame    *ignore.Frame
}

// workQueue is an unbounded LIFO of directories with a count of directories
// not yet finished; pop blocks until work arrives or everything is done.
type workQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	items   []dirWork
	pending int
	stopped bool
}

func (q *workQueue) push(d dirWork) {
	q.mu.Lock()
	q.items = append(q.items, d)
	q.pending++
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *workQueue) pop() (dirWork, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && q.pending > 0 && !q.stopped {
		q.cond.Wait()
	}
	if q.stopped || len(q.items) == 0 {
		return dirWork{}, false
	}
	d := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return d, true
}

func (q *workQueue) done() {
	q.mu.Lock()
	q.pending--
	if q.pending == 0 {
		q.cond.Broadcast()
	}
	q.mu.Unlock()
}

func (q *workQueue) stop() {
	q.mu.Lock()
	q.stopped = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// ignoreBase prepares gitignore matching for a walk rooted at root: the
// matcher of the enclosing repository (or of root itself outside one) and
// root's path relative to the matcher's top ("" or "dir/"); the frame of
// root is m.Frame(prefix).
func ignoreBase(root string) (m *ignore.Matcher, prefix string) {
	top, ok := ignore.FindTop(root)
	if !ok {
		top = root
	}
	m = ignore.New(top)
	rel, err := filepath.Rel(top, root)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return m, ""
	}
	return m, filepath.ToSlash(rel) + "/"
}

// skipName reports whether Walk skips every entry of this name: ".git"
// always, hidden names unless hidden.
func skipName(name string, hidden bool) bool {
	return name == ".git" || (!hidden && name != "" && name[0] == '.')
}

// Filter decides, for paths below one walk root, what Walk with the same
// options decides for the entries it meets: a ".git" element or (without
// Hidden) a hidden one skips a path, and (with Gitignore) so does a rule of
// any .gitignore from the repository's top down, applied to the path and
// to each directory between root and it. Tools use it for paths Walk does
// not see, such as the editor's unsaved buffers. It is safe for
// concurrent use.
type Filter struct {
	hidden bool
	m      *ignore.Matcher // nil without Gitignore
	prefix string          // root relative to m's top: "" or "dir/"
}

// NewFilter returns the Filter of a walk of the absolute directory root
// with opts (Threads and Descend do not apply).
func NewFilter(root string, opts WalkOptions) *Filter {
	f := &Filter{hidden: opts.Hidden}
	if opts.Gitignore {
		f.m, f.prefix = ignoreBase(root)
	}
	return f
}

// Skip reports whether Walk leaves out rel (slash-separated, relative to
// the root; isDir when it names a directory).
func (f *Filter) Skip(rel string, isDir bool) bool {
	parts := strings.Split(rel, "/")
	for _, name := range parts {
		if skipName(name, f.hidden) {
			return true
		}
	}
	if f.m == nil {
		return false
	}
	dir := ""
	for i, name := range parts {
		r := name
		if dir != "" {
			r = dir + "/" + name
		}
		if f.m.Frame(f.prefix+dir).Ignored(f.prefix+r, isDir || i < len(parts)-1) {
			return true
		}
		dir = r
	}
	return false
}

// Walk visits every entry below the absolute directory root (not root
// itself) that survives the options, calling fn concurrently from up to
// Threads goroutines (worker is 0..Threads-1, for per-worker buffers).
// Symbolic links are reported but never followed, so link loops cannot
// trap it; ".git" is always skipped; ignored directories are pruned without
// being read. Walk stops early when ctx is done or fn returns false, and
// returns ctx.Err() in the first case.
func Walk(ctx context.Context, root string, opts WalkOptions, fn func(worker int, e *Entry) bool) (WalkStats, error) {
	threads := opts.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	var frame *ignore.Frame
	prefix := ""
	if opts.Gitignore {
		var m *ignore.Matcher
		m, prefix = ignoreBase(root)
		frame = m.Frame(prefix)
	}
	q := &workQueue{}
	q.cond = sync.NewCond(&q.mu)
	q.push(dirWork{abs: root, rel: "", frame: frame})
	var stats WalkStats
	var stopped atomic.Bool
	var wg sync.WaitGroup
	bufs := make([]walkBuf, threads)
	for w := 0; w < threads; w++ {
		wg.Add(1)
		go func(worker int) {
			defer wg.Done()
			for {
				d, ok := q.pop()
				if !ok {
					return
				}
				if ctx.Err() != nil || stopped.Load() {
					q.stop()
					q.done()
					return
				}
				if !walkDir(d, opts, prefix, worker, &bufs[worker], q, &stats, fn) {
					stopped.Store(true)
					q.stop()
				}
				q.done()
			}
		}(w)
	}
	wg.Wait()
	return stats, ctx.Err()
}

// walkDir reads one directory, reports its entries and queues its
// subdirectories. It returns false when fn asked to stop.
func walkDir(d dirWork, opts WalkOptions, prefix string, worker int, wb *walkBuf, q *workQueue, stats *WalkStats, fn func(int, *Entry) bool) bool {
	ents, raw, dirfd, err := readDirFD(d.abs, wb.raw, wb.ents[:0])
	if dirfd >= 0 {
		defer closeFD(dirfd)
	}
	wb.raw = raw
	wb.ents = ents[:0]
	if err != nil && len(ents) == 0 {
		atomic.AddInt64(&stats.Unreadable, 1)
		return true
	}
	atomic.AddInt64(&stats.Dirs, 1)
	frame := d.frame
	if frame != nil && d.rel != "" { // root's own .gitignore is in its frame already
		for _, e := range ents {
			if e.name == ".gitignore" && e.typ.IsRegular() {
				frame = frame.Child(prefix + d.rel) // prefix is "" or ends in "/"; d.rel is not empty
				break
			}
		}
	}
	var e Entry
	for _, de := range ents {
		name := de.name
		if skipName(name, opts.Hidden) {
			continue
		}
		typ := de.typ
		isDir := typ.IsDir()
		rel := name
		if d.rel != "" {
			rel = d.rel + "/" + name
		}
		if frame != nil && frame.Ignored(prefix+rel, isDir) {
			continue
		}
		e = Entry{Rel: rel, Abs: d.abs + string(os.PathSeparator) + name, Type: typ, dirfd: dirfd, name: name}
		if !fn(worker, &e) {
			return false
		}
		if isDir && (opts.Descend == nil || opts.Descend(rel)) {
			q.push(dirWork{abs: e.Abs, rel: rel, frame: frame})
		}
	}
	return true
}
