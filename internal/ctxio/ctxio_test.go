package ctxio

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReader(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := Reader(ctx, strings.NewReader("abcdef"))
	buf := make([]byte, 2)
	if n, err := r.Read(buf); n != 2 || err != nil {
		t.Fatalf("Read = %d, %v", n, err)
	}
	cancel()
	if _, err := r.Read(buf); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read after cancel: %v", err)
	}
	if r := Reader(context.Background(), strings.NewReader("x")); r == nil {
		t.Fatal("nil reader")
	} else if b, _ := io.ReadAll(r); string(b) != "x" {
		t.Fatalf("ReadAll = %q", b)
	}
}
