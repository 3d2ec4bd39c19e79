package hub

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/workspace"
)

// Direct runs a call in the caller's own process (today's path, without a
// hub). fb says why: fb.Retry when a hub accepted the call and was lost
// before answering (the run must be agent.Call{ID: id, Retry: true}), and
// fb.Why when a hub was there and did not run it, which the caller logs
// (its user expected the editor to run the call).
type Direct func(ctx context.Context, fb Fallback) (*agent.Result, error)

// Fallback is why a call runs in the caller's process.
type Fallback struct {
	// Retry: a hub accepted the call and was lost before answering.
	Retry bool
	// Why a hub that was there did not run the call: it refused it, this
	// caller refused it (another user's), it closed the connection before
	// accepting it, or it was lost (Retry). "" when no hub runs, the
	// ordinary case, which needs no word.
	Why string
}

// Message is what the caller of tool on root logs for fb (its user
// expected the editor to run the call); "" when no hub runs.
func (fb Fallback) Message(root, tool string) string {
	switch {
	case fb.Retry:
		return fmt.Sprintf("the hub of %s (an editor's hashls serve) was lost during %s (%s); running the call here (the store keeps it from being applied twice)", root, tool, fb.Why)
	case fb.Why != "":
		return fmt.Sprintf("the hub of %s (an editor's hashls serve) did not run %s (%s); running the call here, on the files on disk", root, tool, fb.Why)
	}
	return ""
}

// lostWait bounds the wait for a lost hub's lock (its process exiting).
const lostWait = 10 * time.Second

// Forward runs req through the root's hub when there is one, else with
// direct. It applies the rule of the package doc: direct without retry when
// the hub never acknowledged the call, direct with retry (deduplicated by
// req.ID in the store) when it acknowledged it and was lost, and never
// direct after the caller's own cancellation. viaHub reports whether a hub
// answered.
func Forward(ctx context.Context, stateDir, root string, req Request, direct Direct) (res *agent.Result, viaHub bool, err error) {
	ep, eerr := endpointOf(stateDir, root)
	if eerr != nil {
		res, err = direct(ctx, Fallback{})
		return res, false, err
	}
	res, err = call(ctx, ep, req)
	var nh *noHub
	var lost *lostHub
	switch {
	case errors.As(err, &nh):
		var fb Fallback
		if nh.refused || nh.reached {
			fb.Why = nh.why
		}
		res, err = direct(ctx, fb)
		if nh.refused && res != nil {
			res.Warnings = append(res.Warnings, nh.why+"; nothing was sent to it: the call ran in this process")
		}
		return res, false, err
	case errors.As(err, &lost):
		// Wait until the hub's process is gone (its lock is free), so
		// that its half-done commit, if any, is recovered by our open.
		if release, lerr := workspace.LockFileWait(ep.lock, lostWait); lerr == nil {
			ep.clear()
			release()
		}
		res, err = direct(ctx, Fallback{Retry: true, Why: lost.Error()})
		return res, false, err
	}
	return res, true, err
}

// noHub: the call was not accepted by any hub (none runs, or it refused
// the call before its ack): running it directly is safe. refused: there
// is an endpoint, and this caller refused it (another user's): nothing was
// sent to it, and the result says so. reached: a hub was connected and
// did not accept the call (it refused it, or closed the connection).
type noHub struct {
	why     string
	refused bool
	reached bool
}

func (e *noHub) Error() string { return "no hub: " + e.why }

// lostHub: the hub acknowledged the call and the connection ended before
// its result.
type lostHub struct{ err error }

func (e *lostHub) Error() string {
	return fmt.Sprintf("the hub accepted the call and stopped before answering: %v", e.err)
}

// call sends req to the hub at ep and reads its answer.
func call(ctx context.Context, ep endpoint, req Request) (*agent.Result, error) {
	c, err := ep.dial(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, cancelled(req.Tool, ctx.Err())
		}
		var nh *noHub
		if errors.As(err, &nh) {
			return nil, nh
		}
		removeStale(ep)
		return nil, &noHub{why: err.Error()}
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()

	req.Hub = Version
	if err := writeLine(c, req); err != nil {
		if ctx.Err() != nil {
			return nil, cancelled(req.Tool, ctx.Err())
		}
		return nil, &noHub{why: fmt.Sprintf("sending the call to the hub: %v", err), reached: true}
	}
	br := bufio.NewReaderSize(c, 64<<10)
	dec := json.NewDecoder(br)
	var first reply
	if err := dec.Decode(&first); err != nil {
		if ctx.Err() != nil {
			return nil, cancelled(req.Tool, ctx.Err())
		}
		return nil, &noHub{why: fmt.Sprintf("the hub closed the connection before accepting the call: %v", err), reached: true}
	}
	if first.Ack != req.ID {
		return nil, &noHub{why: "the hub refused the call: " + first.Refused, reached: true}
	}
	var r reply
	if err := dec.Decode(&r); err != nil {
		if ctx.Err() != nil {
			// The hub cancels the call when we close the connection.
			return nil, cancelled(req.Tool, ctx.Err())
		}
		return nil, &lostHub{err}
	}
	if r.Error != nil {
		return nil, r.Error
	}
	if r.Result == nil {
		return nil, &lostHub{errors.New("an answer without a result or an error")}
	}
	res := &agent.Result{Text: r.Result.Text, Changes: r.Result.Changes, Shown: r.Result.Shown, Warnings: r.Result.Warnings}
	if len(r.Result.Details) > 0 {
		res.Details = r.Result.Details
	}
	return res, nil
}

func cancelled(tool string, err error) error {
	return &agent.Error{Kind: agent.KindIO, Message: fmt.Sprintf("%s: cancelled while the hub ran it (%v); it may or may not have been applied", tool, err), Err: err,
		SuggestedAction: "Check whether it was applied[ ({audit} lists the changes)] before you call it again."}
}

// removeStale clears the endpoint when no live hub holds its lock.
func removeStale(ep endpoint) {
	release, ok, err := workspace.TryLockFile(ep.lock)
	if err != nil || !ok {
		return
	}
	defer release()
	ep.clear()
}
