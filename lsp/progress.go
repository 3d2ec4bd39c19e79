package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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

// Activity is the hashls/activity notification's params.
type Activity struct {
	Tool       string   `json:"tool"`
	Paths      []string `json:"paths"`
	Outcome    string   `json:"outcome"` // "ok" or "error"
	ErrorKind  string   `json:"errorKind,omitempty"`
	Message    string   `json:"message,omitempty"` // the error message
	AuditIDs   []int64  `json:"auditIds,omitempty"`
	Diff       string   `json:"diff,omitempty"`
	DurationMs float64  `json:"durationMs"`
}

// reportActivity sends hashls/activity for one tool run.
func (s *server) reportActivity(ctx context.Context, tool string, args []byte, res *agent.Result, err error, d time.Duration) {
	if !s.currentSettings().Activity {
		return
	}
	a := Activity{Tool: tool, Outcome: "ok", DurationMs: float64(d.Microseconds()) / 1000}
	var c collector
	c.walk("", decodeAny(args))
	if err != nil {
		a.Outcome = "error"
		a.ErrorKind = agent.KindInternal
		var je *jsonrpc2.Error
		if errors.As(toolError(tool, err), &je) {
			var d struct {
				Kind string `json:"kind"`
			}
			if json.Unmarshal(je.Data, &d) == nil && d.Kind != "" {
				a.ErrorKind = d.Kind
			}
		}
		a.Message = err.Error()
	} else if res != nil && res.Details != nil {
		if b, jerr := json.Marshal(res.Details); jerr == nil {
			c.walk("", decodeAny(b))
		}
	}
	a.Paths = c.pathList()
	a.AuditIDs = c.audits
	a.Diff = strings.Join(c.diffs, "\n")
	if a.Paths == nil {
		a.Paths = []string{}
	}
	raw, merr := json.Marshal(&a)
	if merr != nil {
		return
	}
	if nerr := s.conn.Notify(context.WithoutCancel(ctx), MethodActivity, jsonrpc2.RawMessage(raw)); nerr != nil {
		s.logf("lsp: %s: %v", MethodActivity, nerr)
	}
}

func decodeAny(b []byte) any {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	return v
}

// collector gathers paths, audit ids, diffs and warnings from a tool's
// arguments and details, whatever their exact shape: keys named path/paths,
// audit_id/auditId(s), diff and warnings, at any depth.
type collector struct {
	paths     map[string]bool
	audits    []int64
	diffs     []string // the diffs found at the shallowest depth
	diffDepth int
	warnings  []string
	depth     int
}

func (c *collector) addPath(p string) {
	if p == "" {
		return
	}
	if c.paths == nil {
		c.paths = map[string]bool{}
	}
	c.paths[p] = true
}

func (c *collector) walk(key string, v any) {
	k := strings.ToLower(strings.ReplaceAll(key, "_", ""))
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for kk := range x {
			keys = append(keys, kk)
		}
		sort.Strings(keys)
		c.depth++
		for _, kk := range keys {
			c.walk(kk, x[kk])
		}
		c.depth--
	case []any:
		for _, e := range x {
			c.walk(key, e)
		}
	case string:
		switch k {
		case "path", "paths", "file", "files":
			c.addPath(x)
		case "input":
			// An edit input names its files in ¶PATH#TAG headers.
			for _, line := range strings.Split(x, "\n") {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "¶"); ok {
					if i := strings.LastIndexByte(rest, '#'); i >= 0 {
						rest = rest[:i]
					}
					c.addPath(strings.TrimSpace(rest))
				}
			}
		case "diff":
			// A whole-result diff wins over the per-file ones it repeats.
			switch {
			case x == "":
			case len(c.diffs) == 0 || c.depth < c.diffDepth:
				c.diffs, c.diffDepth = []string{x}, c.depth
			case c.depth == c.diffDepth:
				c.diffs = append(c.diffs, x)
			}
		case "warning", "warnings":
			c.warnings = append(c.warnings, x)
		}
	case float64:
		switch k {
		case "auditid", "auditids", "audit":
			c.audits = append(c.audits, int64(x))
		}
	}
}

func (c *collector) pathList() []string {
	if len(c.paths) == 0 {
		return nil
	}
	out := make([]string, 0, len(c.paths))
	for p := range c.paths {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// logWarnings sends a tool result's warnings as window/logMessage.
func (s *server) logWarnings(ctx context.Context, tool string, res *agent.Result) {
	if res == nil || res.Details == nil {
		return
	}
	b, err := json.Marshal(res.Details)
	if err != nil {
		return
	}
	var c collector
	c.walk("", decodeAny(b))
	for _, w := range c.warnings {
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
