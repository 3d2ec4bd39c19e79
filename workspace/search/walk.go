// Package search is hashls's file search engine: a parallel, gitignore-aware
// directory walk (Walk), regex content search with a literal prefilter
// (Compile, Matcher, Scan) and path search by glob (Find). It is pure: it
// works on absolute directories and never imports package workspace; the
// agent tools glue it to the workspace (overlays, snapshots) and hand it
// the directory to walk opened beneath the workspace root
// (WalkOptions.Dir, Workspace.OpenDir).
//
// Confinement at the moment of use: the walk opens each directory and
// file relative to its open parent directory, one name at a time, never
// following a symbolic link (on Linux openat(2) with O_NOFOLLOW, and
// O_DIRECTORY for directories; on other systems through os.Root, which
// follows a link only when it stays beneath the directory it was opened
// from). A directory swapped for a link to elsewhere between its listing
// and its opening is not entered: nothing outside Dir is listed or read,
// whatever is renamed meanwhile.
//
// Entry points: Walk, Compile + Scan, Find, CompileGlob.
package search

import (
	"context"
	"errors"
	"io"
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
	// Dir, when set, is the walk root already open (the caller opened it
	// beneath its own root: Workspace.OpenDir); Walk reads everything
	// through it and leaves it open. Without it Walk opens the root by its
	// path first. Either way everything below is opened relative to its
	// open parent, links not followed.
	Dir *os.Root
}

// Entry is one path found by Walk. Info, ModTime and the scan's open of a
// file work relative to the entry's open parent directory, and only
// during the Walk callback.
type Entry struct {
	Rel  string      // slash-separated, relative to the walk root
	Abs  string      // absolute
	Type fs.FileMode // type bits only: 0 regular, fs.ModeDir, fs.ModeSymlink, ...
	dir  dirHandle   // the open parent directory during the callback
	name string
}

// errEntryDone is what an Entry says when asked after its callback.
var errEntryDone = errors.New("search: entry used after its Walk callback")

// Info returns the entry's lstat information.
func (e *Entry) Info() (fs.FileInfo, error) {
	if !e.dir.valid() {
		return nil, &fs.PathError{Op: "lstat", Path: e.Abs, Err: errEntryDone}
	}
	return e.dir.lstat(e.name)
}

// ModTime returns the entry's modification time (not following symlinks).
func (e *Entry) ModTime() (time.Time, error) {
	if !e.dir.valid() {
		return time.Time{}, &fs.PathError{Op: "lstat", Path: e.Abs, Err: errEntryDone}
	}
	return e.dir.modTime(e.name)
}

// open opens the regular file the entry names (not following a link).
func (e *Entry) open() (io.ReadCloser, error) {
	if !e.dir.valid() {
		return nil, &fs.PathError{Op: "open", Path: e.Abs, Err: errEntryDone}
	}
	return e.dir.openFile(e.name)
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

// dirRef is an open directory shared by the work it gives rise to: its
// own reading and the opening of each of its subdirectories (relative to
// it) hold a reference; the last release closes it. A walk so holds open
// about one directory per level it is in, not one per directory queued.
type dirRef struct {
	h    dirHandle
	refs atomic.Int32
}

func newDirRef(h dirHandle) *dirRef {
	d := &dirRef{h: h}
	d.refs.Store(1)
	return d
}

func (d *dirRef) hold() { d.refs.Add(1) }

func (d *dirRef) release() {
	if d.refs.Add(-1) == 0 {
		d.h.close()
	}
}

// dirWork is a directory to read: the walk root (open), or the
// subdirectory name of the open parent.
type dirWork struct {
	open     *dirRef // the walk root
	parent   *dirRef // else the directory name is in
	name     string
	abs, rel string
	frame    *ignore.Frame
}

// drop releases what d holds without reading it (a walk that stopped).
func (d dirWork) drop() {
	if d.open != nil {
		d.open.release()
	}
	if d.parent != nil {
		d.parent.release()
	}
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
	var stats WalkStats
	top, err := openTop(root, opts.Dir)
	if err != nil {
		stats.Unreadable++
		return stats, ctx.Err()
	}
	q := &workQueue{}
	q.cond = sync.NewCond(&q.mu)
	q.push(dirWork{open: newDirRef(top), abs: root, rel: "", frame: frame})
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
					d.drop()
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
	for _, d := range q.items { // left when the walk stopped early
		d.drop()
	}
	return stats, ctx.Err()
}

// walkDir reads one directory, reports its entries and queues its
// subdirectories. It returns false when fn asked to stop.
func walkDir(d dirWork, opts WalkOptions, prefix string, worker int, wb *walkBuf, q *workQueue, stats *WalkStats, fn func(int, *Entry) bool) bool {
	dir := d.open
	if dir == nil {
		var h dirHandle
		err := errPathTooLong
		if len(d.abs) <= maxDirPath {
			h, err = d.parent.h.openDir(d.name)
		}
		d.parent.release()
		if err != nil { // gone, no permission, no longer a directory (a link is not followed), too deep
			atomic.AddInt64(&stats.Unreadable, 1)
			return true
		}
		dir = newDirRef(h)
	}
	defer dir.release()
	ents, raw, err := dir.h.readDir(wb.raw, wb.ents[:0])
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
				// prefix is "" or ends in "/"; d.rel is not empty
				if b, err := readGitignore(dir.h); err == nil {
					frame = frame.ChildFrom(prefix+d.rel, b)
				}
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
		e = Entry{Rel: rel, Abs: d.abs + string(os.PathSeparator) + name, Type: typ, dir: dir.h, name: name}
		more := fn(worker, &e)
		e.dir = noDir // the directory may close once this returns
		if !more {
			return false
		}
		if isDir && (opts.Descend == nil || opts.Descend(rel)) {
			dir.hold()
			q.push(dirWork{parent: dir, name: name, abs: e.Abs, rel: rel, frame: frame})
		}
	}
	return true
}

// maxDirPath is the longest absolute path of a directory Walk enters: the
// longest the system opens by path (Linux's PATH_MAX, less its NUL;
// macOS's; Windows's long paths). The walk opens relative to the parent
// and could go deeper, but the tools name what it finds by path, and the
// paths (and the walk's memory, each entry holding its path) stay bounded:
// a directory past it is skipped and counted unreadable, as before the
// walk opened relative to the parent.
var maxDirPath = func() int {
	switch runtime.GOOS {
	case "darwin":
		return 1023
	case "windows":
		return 32767
	}
	return 4095
}()

var errPathTooLong = errors.New("path too long to open")

// readGitignore reads .gitignore in the open directory h (not following a
// link, as git does not).
func readGitignore(h dirHandle) ([]byte, error) {
	f, err := h.openFile(".gitignore")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ignore.ReadFile(f)
}
