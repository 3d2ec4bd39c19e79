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
	type worker struct {
		buf  []byte
		hits []Hit
		res  ScanResult
		_    [64]byte // keep workers on separate cache lines
	}
	workers := make([]worker, threads)
	var searched, matched atomic.Int64

	searchFile := func(w *worker, f io.ReadCloser, err error, abs, rel string) {
		if err != nil {
			w.res.Unreadable++
			return
		}
		var fr FileResult
		// A huge file notices a cancellation at its next read.
		fr, w.buf, err = m.ScanReader(ctxio.Reader(ctx, f), w.buf, nil)
		f.Close()
		searched.Add(1)
		w.res.Searched++
		switch {
		case errors.Is(err, ErrTooLong):
			w.res.TooLong++
		case ctx.Err() != nil:
			// Cancelled: Scan returns ctx.Err().
		case err != nil:
			w.res.Unreadable++
		case fr.Binary:
			w.res.Binary++
		case fr.Lines > 0:
			matched.Add(1)
			w.hits = append(w.hits, Hit{Abs: abs, Rel: rel, Lines: fr.Lines})
			w.res.Lines += fr.Lines
		}
	}

	stopProgress := make(chan struct{})
	var progressDone sync.WaitGroup
	if opts.Progress != nil {
		progressDone.Add(1)
		go func() {
			defer progressDone.Done()
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stopProgress:
					return
				case <-t.C:
					opts.Progress(int(searched.Load()), int(matched.Load()))
				}
			}
		}()
	}

	var walkErr error
	var stats WalkStats
	if len(opts.Files) > 0 {
		openFile := opts.OpenFile
		if openFile == nil {
			openFile = openPath
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		for i := range workers {
			wg.Add(1)
			go func(w *worker) {
				defer wg.Done()
				for {
					j := int(next.Add(1)) - 1
					if j >= len(opts.Files) || ctx.Err() != nil {
						return
					}
					f, err := openFile(opts.Files[j])
					searchFile(w, f, err, opts.Files[j], opts.Files[j])
				}
			}(&workers[i])
		}
		wg.Wait()
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
			searchFile(&workers[wi], f, err, e.Abs, e.Rel)
			return true
		})
	}
	close(stopProgress)
	progressDone.Wait()

	res := &ScanResult{Unreadable: int(stats.Unreadable)}
	for i := range workers {
		w := &workers[i]
		res.Hits = append(res.Hits, w.hits...)
		res.Lines += w.res.Lines
		res.Searched += w.res.Searched
		res.Binary += w.res.Binary
		res.Unreadable += w.res.Unreadable
		res.TooLong += w.res.TooLong
	}
	sort.Slice(res.Hits, func(i, j int) bool { return res.Hits[i].Rel < res.Hits[j].Rel })
	if walkErr == nil {
		walkErr = ctx.Err()
	}
	return res, walkErr
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
