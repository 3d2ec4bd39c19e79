package lsp

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/hashls/hashls/agent"
	"go.lsp.dev/jsonrpc2"
)

// TestForwardedActivityDoesNotWaitForTheEditor: an editor that stops reading
// the server's output does not hold a forwarded run's result (its caller
// waits on the hub's socket): the activity notifications of forwarded runs
// are written aside, at most maxForwardedNotes at a time, and the rest are
// dropped.
func TestForwardedActivityDoesNotWaitForTheEditor(t *testing.T) {
	a, b := net.Pipe() // b is never read: every write to a blocks
	defer a.Close()
	defer b.Close()
	s := newServer(Options{Logf: t.Logf})
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(a), jsonrpc2.WithCodec(codec{}))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 3 * maxForwardedNotes {
			s.reportActivity(context.Background(), "edit", []byte(`{}`), &agent.Result{Text: "ok"}, nil, time.Now(), &runInfo{o: origin{transport: "cli", forwarded: true}, tool: "edit"})
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a forwarded run waited for the editor to read its activity notification")
	}
	if n := len(s.forwardedNotes); n != maxForwardedNotes {
		t.Fatalf("%d notifications waiting to be written, want %d", n, maxForwardedNotes)
	}
}
