package treesitter

import (
	"context"
	"fmt"
	"testing"
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
