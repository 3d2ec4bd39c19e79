package treesitter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// Tests of prime (OpenDocument on a text the content cache holds). They
// order events with channels and the package's hooks (primeHook,
// waitHook); the deadlines only turn a hang into a failure.

const primeDeadline = 10 * time.Second

// waitPrimes waits for the goroutine that primes documents to exit.
func waitPrimes(t *testing.T) {
	t.Helper()
	done := make(chan struct{})
	go func() { defaultCache.docs.primeWG.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(primeDeadline):
		t.Fatal("the prime goroutine did not exit")
	}
}

// primeGate holds each prime's parse (primeHook) until release is
// closed; started gets the context of each held parse.
type primeGate struct {
	started chan context.Context
	release chan struct{}
	waiting chan struct{} // a reparse is about to wait for another (waitHook)
}

// holdPrimes installs a primeGate until the test ends (when it releases
// the gate and waits for the primes to end).
func holdPrimes(t *testing.T) *primeGate {
	t.Helper()
	waitPrimes(t) // no prime reads the hooks while they change
	g := &primeGate{started: make(chan context.Context, 64), release: make(chan struct{}), waiting: make(chan struct{}, 64)}
	primeHook = func(ctx context.Context) {
		select {
		case g.started <- ctx:
		case <-g.release:
		}
		<-g.release
	}
	waitHook = func() {
		select {
		case g.waiting <- struct{}{}:
		default:
		}
	}
	t.Cleanup(func() {
		g.open()
		waitPrimes(t)
		primeHook, waitHook = nil, nil
	})
	return g
}

func (g *primeGate) open() {
	select {
	case <-g.release:
	default:
		close(g.release)
	}
}

// recv returns what c gives, failing the test after primeDeadline.
func recv[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(primeDeadline):
		t.Fatalf("no %s", what)
		panic("unreachable")
	}
}

// cachedDoc returns a text of path's language that the content cache
// holds, as when an agent tool parsed it.
func cachedDoc(t *testing.T, path string, text []byte) []byte {
	t.Helper()
	if _, err := DocumentSymbols(context.Background(), path, text); err != nil {
		t.Fatal(err)
	}
	if !defaultCache.holds(LanguageFor(path), text) {
		t.Fatal("the content cache does not hold the text")
	}
	return text
}

// typeX inserts an x before the first "parts" of text.
func typeX(text []byte) (at int, next []byte) {
	at = bytes.Index(text, []byte("parts"))
	return at, append(append(append([]byte(nil), text[:at]...), 'x'), text[at:]...)
}

// typeOnce inserts the byte next has at at into the document key (text
// next afterwards), asks its symbols, and checks that the change reparsed
// the document's tree once (it did not parse whole) and that the symbols
// are a fresh parse's; what names the change in the failure.
func typeOnce(t *testing.T, key, path string, at int, next []byte, what string) {
	t.Helper()
	before := defaultCache.docs.reparses.Load()
	EditDocument(key, at, at, next)
	syms, err := DocumentSymbols(context.Background(), path, next)
	if err != nil {
		t.Fatal(err)
	}
	if n := defaultCache.docs.reparses.Load() - before; n != 1 {
		t.Fatalf("%s made %d incremental reparses, want 1", what, n)
	}
	checkFreshSymbols(t, path, next, syms)
}

type symResult struct {
	syms []Symbol
	err  error
}

// symbolsAsync runs DocumentSymbols on its own goroutine.
func symbolsAsync(ctx context.Context, path string, text []byte) <-chan symResult {
	c := make(chan symResult, 1)
	go func() {
		syms, err := DocumentSymbols(ctx, path, text)
		c <- symResult{syms, err}
	}()
	return c
}

// checkFreshSymbols compares got with the symbols of a parse without the
// cache or any document.
func checkFreshSymbols(t *testing.T, path string, text []byte, got []Symbol) {
	t.Helper()
	tr, err := parseFresh(context.Background(), LanguageFor(path), text)
	if err != nil {
		t.Fatal(err)
	}
	if want := documentSymbols(tr, text); !reflect.DeepEqual(got, want) {
		t.Fatal("symbols differ from a fresh parse's")
	}
}

func yamlSource(items int) (string, []byte) {
	var b strings.Builder
	for i := range items {
		fmt.Fprintf(&b, "item%d:\n  name: parts%d\n  count: %d\n  tags:\n    - a\n    - b\n", i, i, i)
	}
	return "bench.yaml", []byte(b.String())
}

// TestOpenCachedTextPrimes: a document opened on a text the content cache
// holds has its requests answered from the cache and is parsed in the
// background (prime), so that its first change reparses instead of
// parsing whole: once prime is done ("primed", and "trimmed" for a
// language whose symbols prime leaves to the complete tree, as
// docSymbols does), and while it still runs ("during"), when the change
// waits for it and reuses its tree.
func TestOpenCachedTextPrimes(t *testing.T) {
	goPath, goText := genSource("go", 400)
	yamlPath, yamlText := yamlSource(100)
	for _, c := range []struct {
		name       string
		path       string
		text       []byte
		during     bool // type while prime's parse is held
		wantSymbol bool // prime computed and kept the symbols
	}{
		{"primed", goPath, goText, false, true},
		{"trimmed", yamlPath, yamlText, false, false},
		{"during", goPath, goText, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			key := "test://primed/" + c.name
			defaultCache.purge()
			g := holdPrimes(t)
			if !c.during {
				g.open()
			}
			text := cachedDoc(t, c.path, c.text)
			OpenDocument(key, c.path, text)
			t.Cleanup(func() { CloseDocument(key) })
			if _, err := DocumentSymbols(ctx, c.path, text); err != nil { // from the cache
				t.Fatal(err)
			}
			d := defaultCache.docs.lookup(key)
			at, next := typeX(text)
			before := defaultCache.docs.reparses.Load()
			var got []Symbol
			if c.during {
				recv(t, g.started, "prime")
				EditDocument(key, at, at, next)
				res := symbolsAsync(ctx, c.path, next)
				recv(t, g.waiting, "wait for prime's parse")
				g.open()
				r := recv(t, res, "symbols")
				if r.err != nil {
					t.Fatal(r.err)
				}
				got = r.syms
			} else {
				waitPrimes(t)
				d.mu.Lock()
				tree, syms := d.tree != nil, d.symSrc.src != nil
				d.mu.Unlock()
				if !tree || syms != c.wantSymbol {
					t.Fatalf("after prime: tree %v, symbols kept %v (want %v)", tree, syms, c.wantSymbol)
				}
				EditDocument(key, at, at, next)
				var err error
				if got, err = DocumentSymbols(ctx, c.path, next); err != nil {
					t.Fatal(err)
				}
			}
			if n := defaultCache.docs.reparses.Load() - before; n != 1 {
				t.Fatalf("the first change made %d incremental reparses, want 1", n)
			}
			checkFreshSymbols(t, c.path, next, got)
		})
	}
}

// TestWaitForPrimeEnds: a request waiting for prime's parse stops waiting
// when its context ends ("cancelled": it fails with the context's error)
// or when the document closes ("closed": it parses on its own), without
// waiting for the parse; closing also cancels prime's parse, its
// goroutine exits and the closed document keeps no tree. The key opened
// again is primed afresh.
func TestWaitForPrimeEnds(t *testing.T) {
	path, text := genSource("go", 300)
	for _, c := range []struct {
		name  string
		close bool // close the document, else cancel the request
	}{
		{"cancelled", false},
		{"closed", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			key := "test://prime-ends/" + c.name
			defaultCache.purge()
			g := holdPrimes(t)
			cachedDoc(t, path, text)
			OpenDocument(key, path, text)
			t.Cleanup(func() { CloseDocument(key) })
			d := defaultCache.docs.lookup(key)
			primeCtx := recv(t, g.started, "prime")
			at, next := typeX(text)
			EditDocument(key, at, at, next)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			res := symbolsAsync(ctx, path, next)
			recv(t, g.waiting, "wait for prime's parse")
			if c.close {
				CloseDocument(key)
			} else {
				cancel()
			}
			r := recv(t, res, "end of the wait while prime's parse is held")
			if c.close {
				if r.err != nil {
					t.Fatal(r.err)
				}
				checkFreshSymbols(t, path, next, r.syms)
				if primeCtx.Err() == nil {
					t.Fatal("closing the document did not cancel prime's parse")
				}
			} else {
				if !errors.Is(r.err, context.Canceled) {
					t.Fatalf("a cancelled request waiting for prime returned %v", r.err)
				}
				if primeCtx.Err() != nil {
					t.Fatal("a request's context cancelled prime's parse")
				}
				CloseDocument(key)
			}

			// Opened again on the cached text while the old prime is held:
			// primed after it.
			OpenDocument(key, path, text)
			g.open()
			waitPrimes(t)
			ds := &defaultCache.docs
			ds.mu.Lock()
			kept := slices.Contains(ds.trees, d)
			ds.mu.Unlock()
			d.mu.Lock()
			closedTree := d.tree != nil
			d.mu.Unlock()
			if kept || closedTree {
				t.Fatalf("the closed document: in the kept trees %v, holds a tree %v", kept, closedTree)
			}
			typeOnce(t, key, path, at, next, "the reopened document's first change")
		})
	}
}

// TestPrimeOneAtATime: documents opened on cached texts are primed one at
// a time, in the order opened; one closed before its turn is not.
func TestPrimeOneAtATime(t *testing.T) {
	defaultCache.purge()
	g := holdPrimes(t)
	var docs []*document
	for i := range 4 {
		key := fmt.Sprintf("test://one-at-a-time/%d", i)
		text := cachedDoc(t, "a.go", []byte(fmt.Sprintf("package p\n\nfunc f%d() {}\n", i)))
		OpenDocument(key, "a.go", text)
		t.Cleanup(func() { CloseDocument(key) })
		docs = append(docs, defaultCache.docs.lookup(key))
	}
	recv(t, g.started, "prime")
	CloseDocument("test://one-at-a-time/2")
	ds := &defaultCache.docs
	ds.mu.Lock()
	var queued []*document
	for _, j := range ds.primeQ {
		queued = append(queued, j.d)
	}
	ds.mu.Unlock()
	if want := []*document{docs[1], docs[3]}; !slices.Equal(queued, want) {
		t.Fatalf("while the first prime runs, %d documents wait, want the 2 still open", len(queued))
	}
	for i, d := range docs[1:] {
		d.mu.Lock()
		parsing := d.parsing
		d.mu.Unlock()
		if parsing {
			t.Fatalf("document %d is parsed beside the first", i+1)
		}
	}
	g.open()
	waitPrimes(t)
	for i, d := range docs {
		d.mu.Lock()
		tree := d.tree != nil
		d.mu.Unlock()
		if tree != (i != 2) {
			t.Errorf("document %d: tree %v", i, tree)
		}
	}
}

// TestPrimeKeepsEditedTrees: the trees of primed documents do not free
// the tree of a document being edited: after many documents opened on
// cached texts were primed, its next change still reparses; and the trees
// kept stay within the limits.
func TestPrimeKeepsEditedTrees(t *testing.T) {
	defaultCache.purge()
	waitPrimes(t)
	ctx := context.Background()
	path, text := genSource("go", 200)
	const key = "test://edited.go"
	OpenDocument(key, path, text)
	t.Cleanup(func() { CloseDocument(key) })
	if _, err := DocumentSymbols(ctx, path, text); err != nil { // a whole parse: the document keeps its tree
		t.Fatal(err)
	}
	at, next := typeX(text)
	EditDocument(key, at, at, next)
	if _, err := DocumentSymbols(ctx, path, next); err != nil { // a reparse
		t.Fatal(err)
	}
	text = next
	for i := range maxDocTrees + 4 {
		k := fmt.Sprintf("test://cached/%d", i)
		s := cachedDoc(t, "a.go", []byte(fmt.Sprintf("package p\n\nfunc g%d() {}\n", i)))
		OpenDocument(k, "a.go", s)
		t.Cleanup(func() { CloseDocument(k) })
	}
	waitPrimes(t)
	ds := &defaultCache.docs
	ds.mu.Lock()
	n := len(ds.trees)
	ds.mu.Unlock()
	if n != maxDocTrees {
		t.Errorf("%d trees kept, want the limit, %d", n, maxDocTrees)
	}
	at, next = typeX(text)
	typeOnce(t, key, path, at, next, "the edited document's change after the primes")
}

// TestKeepIgnoresClosed: a reparse that stored its tree before the
// document closed, and records it (keep) after, does not count the closed
// document among the kept trees.
func TestKeepIgnoresClosed(t *testing.T) {
	defaultCache.purge()
	path, text := genSource("go", 50)
	const key = "test://keep-closed.go"
	OpenDocument(key, path, text)
	d := defaultCache.docs.lookup(key)
	if _, err := DocumentSymbols(context.Background(), path, text); err != nil {
		t.Fatal(err)
	}
	CloseDocument(key)
	ds := &defaultCache.docs
	ds.keep(d)
	ds.mu.Lock()
	kept := slices.Contains(ds.trees, d)
	ds.mu.Unlock()
	if kept {
		t.Fatal("a closed document is among the kept trees")
	}
}

// TestParsePanicEndsWait: a document's parse that panics (here in
// primeHook) still ends: a request for its text then parses instead of
// waiting for ever.
func TestParsePanicEndsWait(t *testing.T) {
	defaultCache.purge()
	waitPrimes(t)
	path, text := genSource("go", 50)
	const key = "test://panic.go"
	OpenDocument(key, path, text)
	t.Cleanup(func() { CloseDocument(key) })
	d := defaultCache.docs.lookup(key)
	primeHook = func(context.Context) { panic("test") }
	t.Cleanup(func() { primeHook = nil })
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("no panic")
			}
		}()
		d.mu.Lock()
		d.parseLocked(d.ctx, &defaultCache.docs, text, true)
	}()
	r := recv(t, symbolsAsync(context.Background(), path, text), "symbols after the panicked parse")
	if r.err != nil {
		t.Fatal(r.err)
	}
	checkFreshSymbols(t, path, text, r.syms)
}
