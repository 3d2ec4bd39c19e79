package search

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashls/hashls/internal/ctxio"
)

// ScanOptions configures Scan.
type ScanOptions struct {
	Root string   // absolute directory to walk ("" when only Files)
	Dir  *os.Root // Root already open (WalkOptions.Dir)
	// Files are absolute files searched whatever the ignore rules say,
	// each opened with OpenFile (by its path when OpenFile is nil).
	Files     []string
	OpenFile  func(abs string) (io.ReadCloser, error)
	Glob      *Glob // filter on paths relative to Root (nil: every file)
	Hidden    bool
	Gitignore bool
	Threads   int // 0: GOMAXPROCS
	// Progress, when set, is called about every 100 ms during the scan
	// (from one goroutine) with the files searched and matched so far.
	Progress func(searched, matched int)
}

// Hit is one file with matches.
type Hit struct {
	Abs   string
	Rel   string // relative to Root, slash-separated; Abs for explicit files outside Root
	Lines int    // matching lines
}

// ScanResult summarises a scan.
type ScanResult struct {
	Hits       []Hit // sorted by Rel
	Lines      int   // matching lines in all hits
	Searched   int   // files searched
	Binary     int   // files skipped because they hold a NUL byte
	Unreadable int   // files or directories that could not be read
	TooLong    int   // files with a line (multiline: a file) over 64 MiB
}

// Scan searches every file under opts.Root (walked in parallel with the
// ignore rules) and every file in opts.Files with m, counting matching
// lines per file. Files stream through per-worker buffers; binary files are
// dropped at the first NUL byte. When ctx ends, Scan returns what it found
// with ctx.Err().
func Scan(ctx context.Context, m *Matcher, opts ScanOptions) (*ScanResult, error) {
	threads := opts.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	sc := &scanner{ctx: ctx, m: m, workers: make([]scanWorker, threads)}
	stop := sc.progress(opts.Progress)
	var walkErr error
	var stats WalkStats
	if len(opts.Files) > 0 {
		openFile := opts.OpenFile
		if openFile == nil {
			openFile = openPath
		}
		sc.files(opts.Files, openFile)
	}
	if opts.Root != "" {
		wo := WalkOptions{Hidden: opts.Hidden, Gitignore: opts.Gitignore, Threads: threads, Dir: opts.Dir}
		if opts.Glob != nil {
			wo.Descend = opts.Glob.CouldMatchUnder
		}
		stats, walkErr = Walk(ctx, opts.Root, wo, func(wi int, e *Entry) bool {
			if e.Type != 0 { // directories, symlinks, devices, ...
				return true
			}
			if opts.Glob != nil && !opts.Glob.Match(e.Rel) {
				return true
			}
			f, err := e.open()
			sc.searchFile(&sc.workers[wi], f, err, e.Abs, e.Rel)
			return true
		})
	}
	stop()
	res := sc.result()
	res.Unreadable += int(stats.Unreadable)
	if walkErr == nil {
		walkErr = ctx.Err()
	}
	return res, walkErr
}

// scanner is one Scan: its workers and what they counted.
type scanner struct {
	ctx               context.Context
	m                 *Matcher
	workers           []scanWorker
	searched, matched atomic.Int64
}

// scanWorker is what one goroutine of a scan owns.
type scanWorker struct {
	buf  []byte
	hits []Hit
	res  ScanResult
	_    [64]byte // keep workers on separate cache lines
}

// searchFile searches one opened file (err: it could not be opened) and
// counts the outcome in w.
func (sc *scanner) searchFile(w *scanWorker, f io.ReadCloser, err error, abs, rel string) {
	if err != nil {
		w.res.Unreadable++
		return
	}
	var fr FileResult
	// A huge file notices a cancellation at its next read.
	fr, w.buf, err = sc.m.ScanReader(ctxio.Reader(sc.ctx, f), w.buf, nil)
	f.Close()
	sc.searched.Add(1)
	w.res.Searched++
	switch {
	case errors.Is(err, ErrTooLong):
		w.res.TooLong++
	case sc.ctx.Err() != nil:
		// Cancelled: Scan returns ctx.Err().
	case err != nil:
		w.res.Unreadable++
	case fr.Binary:
		w.res.Binary++
	case fr.Lines > 0:
		sc.matched.Add(1)
		w.hits = append(w.hits, Hit{Abs: abs, Rel: rel, Lines: fr.Lines})
		w.res.Lines += fr.Lines
	}
}

// progress calls report about every 100 ms (nil: never) until stop is
// called.
func (sc *scanner) progress(report func(searched, matched int)) (stop func()) {
	if report == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				report(int(sc.searched.Load()), int(sc.matched.Load()))
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// files searches the explicit files, one worker each goroutine, each file
// opened with openFile.
func (sc *scanner) files(files []string, openFile func(abs string) (io.ReadCloser, error)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for i := range sc.workers {
		wg.Add(1)
		go func(w *scanWorker) {
			defer wg.Done()
			for {
				j := int(next.Add(1)) - 1
				if j >= len(files) || sc.ctx.Err() != nil {
					return
				}
				f, err := openFile(files[j])
				sc.searchFile(w, f, err, files[j], files[j])
			}
		}(&sc.workers[i])
	}
	wg.Wait()
}

// result sums the workers' counts, the hits sorted by path.
func (sc *scanner) result() *ScanResult {
	res := &ScanResult{}
	for i := range sc.workers {
		w := &sc.workers[i]
		res.Hits = append(res.Hits, w.hits...)
		res.Lines += w.res.Lines
		res.Searched += w.res.Searched
		res.Binary += w.res.Binary
		res.Unreadable += w.res.Unreadable
		res.TooLong += w.res.TooLong
	}
	sort.Slice(res.Hits, func(i, j int) bool { return res.Hits[i].Rel < res.Hits[j].Rel })
	return res
}

// openPath opens a file by its absolute path (as an io.ReadCloser holding
// no typed nil on error).
func openPath(abs string) (io.ReadCloser, error) {
	f, err := openRaw(abs)
	if err != nil {
		return nil, err
	}
	return f, nil
}
