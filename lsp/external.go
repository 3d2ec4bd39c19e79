package lsp

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/hub"
	"github.com/hashls/hashls/workspace"
)

// This file connects the server to the other hashls processes on its root:
// the hub endpoint (package hub) through which they forward their tool
// calls, and the audit feed through which their changes reach the editor's
// panel as hashls/activity (External).

// others is the server's side of the other processes.
type others struct {
	mu     sync.Mutex
	own    map[string]time.Time // call ids of runs in this server, for the feed to skip
	hub    *hub.Server
	stop   context.CancelFunc
	done   chan struct{}
	pruned time.Time
}

// ownCallTTL is how long a run's call id is remembered as the server's own
// (its audit rows reach the feed within a poll or two).
const ownCallTTL = 10 * time.Minute

// ownCall remembers id as a run of this server.
func (s *server) ownCall(id string) {
	o := &s.others
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.own == nil {
		o.own = map[string]time.Time{}
	}
	now := time.Now()
	o.own[id] = now
	if now.Sub(o.pruned) > time.Minute {
		o.pruned = now
		for k, t := range o.own {
			if now.Sub(t) > ownCallTTL {
				delete(o.own, k)
			}
		}
	}
}

func (s *server) isOwnCall(id string) bool {
	o := &s.others
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok := o.own[id]
	return ok
}

// startOthers starts the audit feed and, when Options.Hub is set, the hub
// endpoint, once the workspace is open.
func (s *server) startOthers(ws *workspace.Workspace) {
	st := ws.Store()
	if st == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	o := &s.others
	o.stop = cancel
	if feed, err := st.NewAuditFeed(ctx); err != nil {
		s.logf("lsp: following the audit log: %v; changes by other processes will not show as activity", err)
	} else {
		o.done = make(chan struct{})
		go s.followAudit(ctx, feed, o.done)
	}
	if !s.opts.Hub {
		return
	}
	h, err := hub.Listen(ws.StateDirPath(), ws.Root(), s.runForwarded, s.logf)
	switch {
	case errors.Is(err, hub.ErrBusy):
		s.logf("lsp: another hashls process is the hub of %s; this server is not", ws.Root())
	case err != nil:
		s.logf("lsp: no hub for %s: %v", ws.Root(), err)
	default:
		o.mu.Lock()
		o.hub = h
		o.mu.Unlock()
	}
}

// stopOthers closes the hub endpoint and stops the feed.
func (s *server) stopOthers() {
	o := &s.others
	o.mu.Lock()
	h := o.hub
	o.hub = nil
	o.mu.Unlock()
	if h != nil {
		if err := h.Close(); err != nil {
			s.logf("lsp: closing the hub: %v", err)
		}
	}
	if o.stop != nil {
		o.stop()
	}
	if o.done != nil {
		<-o.done
	}
}

// maxFeedBatch bounds the rows read per poll.
const maxFeedBatch = 500

// followAudit polls the feed and reports other processes' runs.
func (s *server) followAudit(ctx context.Context, feed *workspace.AuditFeed, done chan struct{}) {
	defer close(done)
	defer feed.Close()
	t := time.NewTicker(feed.PollInterval())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rows, err := feed.Next(ctx, maxFeedBatch)
		if err != nil {
			if ctx.Err() == nil {
				s.logf("lsp: reading the audit log: %v", err)
			}
			continue
		}
		if len(rows) == 0 {
			continue
		}
		if ws := s.workspace(); ws != nil {
			s.reviewExternal(ws, rows)
		}
		if !s.currentSettings().Activity {
			continue
		}
		for _, a := range externalActivity(rows, s.isOwnCall) {
			s.notifyActivity(ctx, &a)
		}
	}
}

// externalActivity turns audit rows (oldest first) into one activity per
// tool run of another process: consecutive rows with the same call id are
// one run; a row without a call id (an older hashls, a recovery roll-back,
// a store notice) is a run of its own. Rows of the server's own runs are
// skipped (own reports whether a call id is one).
func externalActivity(rows []workspace.AuditEntry, own func(string) bool) []Activity {
	var out []Activity
	var cur *Activity
	var curCall string
	paths := map[string]bool{}
	flush := func() {
		if cur == nil {
			return
		}
		cur.Paths = make([]string, 0, len(paths))
		for p := range paths {
			cur.Paths = append(cur.Paths, p)
		}
		sort.Strings(cur.Paths)
		out = append(out, *cur)
		cur, curCall = nil, ""
		clear(paths)
	}
	for _, r := range rows {
		if r.Call != "" && own(r.Call) {
			flush()
			continue
		}
		if cur == nil || r.Call == "" || r.Call != curCall {
			flush()
			cur = &Activity{Tool: r.Tool, Outcome: "ok", Transport: r.Transport, Time: r.Time.UTC().Format(time.RFC3339Nano),
				External: true, CallID: r.Call, Agent: r.Agent, Turn: r.Turn}
			curCall = r.Call
		}
		cur.AuditIDs = append(cur.AuditIDs, r.ID)
		if len(paths) < maxActivityPaths {
			paths[agent.ClipInput(r.Path)] = true
		}
	}
	flush()
	return out
}
