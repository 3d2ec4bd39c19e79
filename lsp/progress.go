package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hashls/hashls/agent"
)

// MethodActivity is the custom notification sent after every tool run, for
// agent panels in the editor plugins.
const MethodActivity = "hashls/activity"

// progressDelay is how long a tool runs before the server shows generic
// progress for it on its own (tools that report progress show it at once).
var progressDelay = 400 * time.Millisecond

// progressMinInterval throttles $/progress reports.
const progressMinInterval = 50 * time.Millisecond

var progressSeq atomic.Int64

// progress reports one tool run as work-done progress: with the client's
// workDoneToken when it sent one, else with a token created through
// window/workDoneProgress/create when the client supports it.
type progress struct {
	s     *server
	ctx   context.Context
	title string
	timer *time.Timer

	mu      sync.Mutex
	token   protocol.ProgressToken
	enabled bool
	begun   bool
	ended   bool
	last    time.Time
}

func (s *server) startProgress(ctx context.Context, title string, token protocol.ProgressToken) *progress {
	s.mu.Lock()
	enabled := s.settings.Progress && (token != nil || s.caps.workDoneProgress)
	s.mu.Unlock()
	p := &progress{s: s, ctx: ctx, title: title, token: token, enabled: enabled}
	if enabled {
		p.timer = time.AfterFunc(progressDelay, func() { p.report("working…", 0, 0) })
	}
	return p
}

// report is the agent.Progress callback.
func (p *progress) report(message string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.enabled || p.ended {
		return
	}
	now := time.Now()
	if p.begun && now.Sub(p.last) < progressMinInterval && (total == 0 || done < total) {
		return
	}
	p.last = now
	if p.token == nil {
		tok := protocol.String(fmt.Sprintf("hashls-%d", progressSeq.Add(1)))
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		err := p.s.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: tok})
		cancel()
		if err != nil {
			p.s.logf("lsp: window/workDoneProgress/create: %v", err)
			p.enabled = false
			return
		}
		p.token = tok
	}
	var pct *uint32
	if total > 0 {
		v := uint32(min(100, max(0, done*100/total)))
		pct = &v
	}
	msg := &message
	if message == "" {
		msg = nil
	}
	var value any
	if !p.begun {
		p.begun = true
		no := false
		value = &protocol.WorkDoneProgressBegin{Kind: "begin", Title: p.title, Cancellable: &no, Message: msg, Percentage: pct}
	} else {
		value = &protocol.WorkDoneProgressReport{Kind: "report", Message: msg, Percentage: pct}
	}
	p.send(value)
}

func (p *progress) send(value any) {
	raw, err := protocol.Marshal(value)
	if err != nil {
		return
	}
	if err := p.s.client.Progress(context.WithoutCancel(p.ctx), &protocol.ProgressParams{Token: p.token, Value: raw}); err != nil {
		p.s.logf("lsp: $/progress: %v", err)
	}
}

// end closes the progress (if it began).
func (p *progress) end() {
	if p.timer != nil {
		p.timer.Stop()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.ended = true
	if p.begun {
		p.send(&protocol.WorkDoneProgressEnd{Kind: "end"})
	}
}

// Activity is the hashls/activity notification's params: one per tool run,
// the server's own (after it ran) and other processes' (seen in the store's
// audit log, External set).
type Activity struct {
	Tool       string   `json:"tool"`
	Paths      []string `json:"paths"`
	Outcome    string   `json:"outcome"` // "ok" or "error"
	ErrorKind  string   `json:"errorKind,omitempty"`
	Message    string   `json:"message,omitempty"` // the error message
	AuditIDs   []int64  `json:"auditIds,omitempty"`
	Diff       string   `json:"diff,omitempty"` // absent for External entries: hashls.audit {"id": N} has it
	DurationMs float64  `json:"durationMs"`
	// Transport is who asked for the run: "lsp" (this editor), or for a
	// call forwarded through the hub and for External entries the audit
	// row's transport: "cli", "mcp", "hub", "recovery" (or "" when an
	// older hashls wrote the row).
	Transport string `json:"transport"`
	// Time is when the run started (RFC 3339, with fractional seconds).
	Time string `json:"time"`
	// External: the run happened in another process; the server saw its
	// audit rows in the store.
	External bool `json:"external,omitempty"`
	// Forwarded: another process (Transport) forwarded the call through
	// the hub and this server ran it (its edits went to the open buffers).
	Forwarded bool `json:"forwarded,omitempty"`
	// CallID names the run; the audit rows it wrote carry it.
	CallID string `json:"callId,omitempty"`
	// Agent names who asked for the run: an MCP client's clientInfo.name,
	// the CLI's HASHLS_AGENT; absent for the person at this editor (and
	// for callers that gave no name).
	Agent string `json:"agent,omitempty"`
	// Turn is the agent turn the run's changes belong to (revert
	// {"turn"} undoes it); absent when it changed nothing or belongs to
	// no turn.
	Turn string `json:"turn,omitempty"`
	// ReadOnly: the tool only reads (read, search, find, ...). Panels hide
	// such runs unless a filter asks for them.
	ReadOnly bool `json:"readOnly,omitempty"`
}

// reportActivity sends hashls/activity for one tool run. Paths, audit ids
// and diffs come from the result's typed changes and shown files; a failed
// run names the paths its arguments gave.
func (s *server) reportActivity(ctx context.Context, tool string, args []byte, res *agent.Result, err error, start time.Time, ri *runInfo) {
	if !s.currentSettings().Activity {
		return
	}
	o := ri.o
	a := Activity{Tool: tool, Outcome: "ok", DurationMs: float64(time.Since(start).Microseconds()) / 1000,
		Transport: o.transport, Time: start.UTC().Format(time.RFC3339Nano), Forwarded: o.forwarded, CallID: o.callID,
		Agent: o.who.Agent, Turn: ri.turn, ReadOnly: s.readOnlyTool(tool)}
	paths := map[string]bool{}
	add := func(p string) { // named paths are bounded: clipped, and at most maxActivityPaths
		if p != "" && len(paths) < maxActivityPaths {
			paths[agent.ClipInput(p)] = true
		}
	}
	if err != nil {
		a.Outcome = "error"
		a.ErrorKind = agent.KindOf(err)
		a.Message = agent.AsError(err).Message // bounded: quotes input, never all of it
		for _, p := range agent.ArgPaths(args) {
			add(p)
		}
	}
	if res != nil {
		var diffs []string
		for _, c := range res.Changes {
			add(c.Path)
			add(c.MovedFrom)
			if c.AuditID != 0 {
				a.AuditIDs = append(a.AuditIDs, c.AuditID)
			}
			if c.Diff != "" {
				diffs = append(diffs, c.Diff)
			}
		}
		for _, f := range res.Shown {
			add(f.Path)
		}
		if len(paths) == 0 {
			for _, p := range agent.ArgPaths(args) {
				add(p)
			}
		}
		a.Diff = boundDiff(strings.Join(diffs, "\n"))
	}
	a.Paths = make([]string, 0, len(paths))
	for p := range paths {
		a.Paths = append(a.Paths, p)
	}
	sort.Strings(a.Paths)
	if !o.forwarded {
		s.notifyActivity(ctx, &a)
		return
	}
	// A forwarded run's caller waits on the hub's socket, not on the
	// editor: an editor that stops reading the server's output must not
	// hold the caller's result. Its notification is written aside, at most
	// maxForwardedNotes at a time; beyond that it is dropped.
	select {
	case s.forwardedNotes <- struct{}{}:
		go func() {
			defer func() { <-s.forwardedNotes }()
			s.notifyActivity(ctx, &a)
		}()
	default:
		s.logf("lsp: %s of a forwarded %s run dropped: the editor has not read the last %d", MethodActivity, tool, maxForwardedNotes)
	}
}

// maxForwardedNotes bounds the forwarded runs' activity notifications
// waiting to be written.
const maxForwardedNotes = 16

// notifyActivity sends one hashls/activity notification.
func (s *server) notifyActivity(ctx context.Context, a *Activity) {
	raw, merr := json.Marshal(a)
	if merr != nil {
		return
	}
	if nerr := s.conn.Notify(context.WithoutCancel(ctx), MethodActivity, jsonrpc2.RawMessage(raw)); nerr != nil {
		s.logf("lsp: %s: %v", MethodActivity, nerr)
	}
}

// boundDiff cuts a diff longer than maxActivityDiff at a line break and says
// how much was left out (the tool's result carries the whole diff).
func boundDiff(d string) string {
	if len(d) <= maxActivityDiff {
		return d
	}
	cut := strings.LastIndexByte(d[:maxActivityDiff], '\n') + 1
	if cut == 0 {
		cut = maxActivityDiff
		for cut > 0 && !utf8.RuneStart(d[cut]) {
			cut--
		}
	}
	return d[:cut] + fmt.Sprintf("… (%d more bytes of diff in the tool's result)\n", len(d)-cut)
}

// Bounds of an activity entry: it names what a tool touched, it does not
// repeat the caller's input (a path is clipped to a prefix and its length).
const (
	maxActivityPaths = 200
	maxActivityDiff  = 256 << 10
)

// logWarnings sends a tool result's warnings as window/logMessage.
func (s *server) logWarnings(ctx context.Context, tool string, res *agent.Result) {
	if res == nil {
		return
	}
	for _, w := range res.Warnings {
		s.logMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("hashls %s: %s", tool, w))
	}
}

// logMessage sends window/logMessage when the level passes the logLevel
// setting.
func (s *server) logMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	limit := map[string]protocol.MessageType{
		"error": protocol.MessageTypeError, "warning": protocol.MessageTypeWarning,
		"info": protocol.MessageTypeInfo, "debug": protocol.MessageTypeLog,
	}[s.currentSettings().LogLevel]
	if limit == 0 {
		limit = protocol.MessageTypeWarning
	}
	if typ > limit {
		return
	}
	if err := s.client.LogMessage(context.WithoutCancel(ctx), &protocol.LogMessageParams{Type: typ, Message: msg}); err != nil {
		s.logf("lsp: window/logMessage: %v", err)
	}
}

// showMessage sends window/showMessage (a message the user sees, for
// problems that need the user: a document out of sync). It ignores the
// logLevel setting: the user must act on it.
func (s *server) showMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	if err := s.client.ShowMessage(context.WithoutCancel(ctx), &protocol.ShowMessageParams{Type: typ, Message: msg}); err != nil {
		s.logf("lsp: window/showMessage: %v", err)
	}
}
