package treesitter

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashls/hashls/treesitter/internal/reparser"
)

// TestCancelledContextDoesNotPoisonParsers: the binding sets a parser's
// cancellation flag when its context is cancelled, even after the parse
// finished, and never clears it. A context cancelled right after each parse
// must not leave a poisoned parser in the pool.
func TestCancelledContextDoesNotPoisonParsers(t *testing.T) {
	r := &Resolver{}
	for i := 0; i < 2000; i++ {
		src := []byte(fmt.Sprintf("package p\n\nfunc f%d() {\n\treturn\n}\n", i))
		ctx, cancel := context.WithCancel(context.Background())
		if i%2 == 0 {
			go cancel() // races with the end of the parse
		}
		r.BlockRangeCtx(ctx, "a.go", src, 3)
		cancel()
		other := []byte(fmt.Sprintf("package q\n\nfunc g%d() {\n}\n", i))
		if s, e, ok := r.BlockRangeCtx(context.Background(), "a.go", other, 3); !ok || s != 3 || e != 4 {
			t.Fatalf("iteration %d: parse after a cancelled context failed: %d %d %v", i, s, e, ok)
		}
	}
	// A context that is already cancelled fails cleanly and poisons nothing.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, ok := r.BlockRangeCtx(ctx, "a.go", []byte("package z\n\nfunc h() {\n}\n"), 3); ok {
		t.Fatal("resolved under a cancelled context")
	}
	if _, _, ok := r.BlockRangeCtx(context.Background(), "a.go", []byte("package z\n\nfunc h() {\n}\n"), 3); !ok {
		t.Fatal("parse after a cancelled one failed")
	}
}

// TestCancelledReparse: a reparse of an open document fails cleanly under
// a cancelled context, and the next parse of the same text gives a fresh
// parse's results.
func TestCancelledReparse(t *testing.T) {
	path, text := genSource("go", 300)
	const key = "test://cancel-reparse.go"
	OpenDocument(key, path, text)
	defer CloseDocument(key)
	checkLikeFresh(t, path, text, true)
	for i := range 6 {
		at := len(text) / 3
		next := append(append(append([]byte{}, text[:at]...), "// c\n"...), text[at:]...)
		EditDocument(key, at, at, next)
		text = next
		ctx, cancel := context.WithCancel(context.Background())
		if i%2 == 0 {
			cancel()
		} else {
			go cancel() // races with the reparse
		}
		if _, err := DocumentSymbols(ctx, path, text); err != nil && ctx.Err() == nil {
			t.Fatalf("round %d: %v", i, err)
		}
		cancel()
		checkLikeFresh(t, path, text, i%3 == 0)
	}
}

// TestReparserTakesEveryLanguage: reparses use the patched runtime
// (reparser) for every grammar; one it refused would be reparsed by the
// binding's parser, right but without the patch, so this test says so.
func TestReparserTakesEveryLanguage(t *testing.T) {
	for _, l := range langTable().list {
		l.init()
		rp := reparser.New(cLanguage(l.lang))
		if rp == nil {
			t.Errorf("%s: the patched runtime refuses the grammar", l.Name)
			continue
		}
		rp.Close()
	}
}
