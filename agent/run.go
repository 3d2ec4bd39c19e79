package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/hashls/hashls/edit"
)

// Run validates args against tool name's schema (an object with known
// fields) and runs it. Every failure is an *Error; a panic inside a tool is
// recovered and reported as KindInternal.
func (ts *Toolset) Run(ctx context.Context, name string, args json.RawMessage, call Call) (res *Result, err error) {
	t, ok := ts.Lookup(name)
	if _, exists := ts.byName[name]; exists && !ok {
		return nil, AsError(NotOffered(name, ts.deps.Sets))
	}
	if !ok {
		names := make([]string, 0, len(ts.tools))
		for _, t := range ts.tools {
			names = append(names, t.Name())
		}
		return nil, AsError(&Error{Kind: KindUsage, Message: fmt.Sprintf("unknown tool %q; tools: %s", name, strings.Join(names, ", "))})
	}
	if ts.deps.WS == nil {
		return nil, &Error{Kind: KindInternal, Message: fmt.Sprintf("tool %s: no workspace (the tool set was built for listing only; this is a hashls bug)", name)}
	}
	env := &Env{WS: ts.deps.WS, Resolver: ts.deps.Resolver, Progress: call.Progress, Transport: call.Transport, CallID: call.ID, Who: CleanAttribution(call.Who), Edit: ts.deps.Edit, Limits: ts.deps.Limits.orDefault(), LS: ts.deps.LangServers.For(ts.deps.WS), turnGap: ts.deps.TurnGap,
		Offered: call.Offered, tool: name, sets: ts.deps.Sets}
	if call.Offered != nil {
		env.sets = *call.Offered
	}
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage("{}") // no arguments (optional in MCP): the empty object
	}
	if err := checkArgs(t, args); err != nil {
		return nil, AsError(err)
	}
	if call.Retry {
		if res, err := alreadyApplied(env, name, call.ID); res != nil || err != nil {
			return res, err
		}
	}
	env.after = newAfterEdit(t, ts.deps.Edit, args)
	defer func() {
		if r := recover(); r != nil {
			res = nil
			err = AsError(&Error{Kind: KindInternal, Message: fmt.Sprintf("internal error in tool %s: %v (this is a hashls bug; please report it with the input)\n%s", name, r, debug.Stack())})
		}
	}()
	started := time.Now()
	res, err = t.Run(ctx, env, args)
	if err == nil && env.LS != nil {
		if names := env.LS.Started(); len(names) > 0 && call.Transport == "cli" {
			// A CLI call has no long-lived process: its servers start cold.
			if env.after == nil {
				env.after = &afterEdit{}
			}
			env.after.warn = append(env.after.warn, fmt.Sprintf("started %s for this call (%s in all, slow: a cold start); `hashls serve` or `hashls mcp` keep language servers warm",
				strings.Join(names, ", "), time.Since(started).Round(10*time.Millisecond)))
		}
	}
	// What the workspace found wrong with the store (lost, rolled back,
	// unwritable) reaches the caller once, with the next result.
	notices := env.WS.Notices()
	if err != nil {
		ae := AsError(err)
		if len(notices) > 0 {
			c := *ae
			c.Message += "\nNote: " + strings.Join(notices, "\nNote: ")
			ae = &c
		}
		return nil, ae
	}
	if ae := env.after; ae != nil && (ae.report != nil || len(ae.warn) > 0) {
		r := *res
		if r.Text != "" && !strings.HasSuffix(r.Text, "\n") {
			r.Text += "\n"
		}
		if ae.report != nil {
			r.Diagnostics = ae.report
			r.Text += ae.report.text()
		}
		for _, w := range ae.warn {
			r.Warnings = append(r.Warnings, w)
			r.Text += "Warning: " + w + "\n"
		}
		res = &r
	}
	if len(notices) > 0 {
		r := *res
		r.Warnings = append(append([]string(nil), notices...), r.Warnings...)
		r.Text = "Warning: " + strings.Join(notices, "\nWarning: ") + "\n" + r.Text
		res = &r
	}
	return res, nil
}

// checkArgs rejects invalid JSON, non-objects, unknown fields and values
// of the wrong JSON type (checkArgType).
func checkArgs(t Tool, args json.RawMessage) error {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		args = []byte("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		msg := "arguments must be one JSON object"
		if err != nil {
			msg += ": " + err.Error()
		}
		return &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: %s", t.Name(), msg), ArgsOf: t.Name()}
	}
	var schema struct {
		Properties map[string]propSchema `json:"properties"`
		Required   []string              `json:"required"`
	}
	if err := json.Unmarshal(t.Schema(), &schema); err != nil {
		return &Error{Kind: KindInternal, Message: fmt.Sprintf("%s: invalid schema: %v", t.Name(), err)}
	}
	for k := range obj {
		if _, ok := schema.Properties[k]; !ok {
			known := make([]string, 0, len(schema.Properties))
			for p := range schema.Properties {
				known = append(known, p)
			}
			sort.Strings(known)
			return &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: unknown argument %s; known arguments: %s", t.Name(), QuoteInput(k), strings.Join(known, ", "))}
		}
	}
	if err := checkArgSizes(t, obj); err != nil {
		return err
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if n := notUnicode(obj[k]); n > 0 {
			hint := "fix the text's encoding"
			if _, ok := schema.Properties["contentBase64"]; ok {
				hint = "send bytes that are not text as contentBase64 instead of content"
			}
			return &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: argument %q holds %d sequence(s) that are not Unicode text (bytes that are not UTF-8, or a lone UTF-16 surrogate such as \\ud800); JSON cannot carry them and decoding would replace each with U+FFFD, so nothing was done. %s", t.Name(), k, n, strings.ToUpper(hint[:1])+hint[1:])}
		}
	}
	for _, k := range keys {
		if err := checkArgType(t.Name(), k, schema.Properties[k], obj[k]); err != nil {
			return err
		}
	}
	for _, k := range schema.Required {
		if _, ok := obj[k]; !ok {
			return &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: missing required argument %q", t.Name(), k), ArgsOf: t.Name()}
		}
	}
	return nil
}

// maxNameArg bounds the arguments that name things (a path with its
// selector, a search pattern): no file name or pattern is that long, and
// resolving, matching and quoting one that is costs time and memory in
// proportion (a 100 MiB path must not take a minute and gigabytes to
// refuse).
const maxNameArg = 64 << 10

// checkArgSizes refuses a path, paths element or pattern longer than
// maxNameArg, quoting a prefix of it.
func checkArgSizes(t Tool, obj map[string]json.RawMessage) error {
	tooLong := func(k string, raw json.RawMessage) error {
		if len(raw) <= maxNameArg {
			return nil
		}
		var s string
		if json.Unmarshal(raw, &s) != nil || len(s) <= maxNameArg {
			return nil // a wrong type is reported by the tool; escapes made it look long
		}
		return &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: argument %q is %d bytes (%s); a path with its selector, or a pattern, is at most %d bytes", t.Name(), k, len(s), QuoteInput(s), maxNameArg)}
	}
	for _, k := range []string{"path", "pattern"} {
		if err := tooLong(k, obj[k]); err != nil {
			return err
		}
	}
	if raw, ok := obj["paths"]; ok && len(raw) > maxNameArg {
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) == nil {
			for _, e := range elems {
				if err := tooLong("paths", e); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// ArgPaths returns the files a tool's arguments name: the top-level path
// and paths fields, the ¶PATH headers of a hashline edit input and the file
// headers of a patch. Transports use it to say which files a failed call
// was about.
func ArgPaths(args json.RawMessage) []string {
	var a struct {
		Path  string          `json:"path"`
		Paths json.RawMessage `json:"paths"`
		Input string          `json:"input"`
	}
	if json.Unmarshal(args, &a) != nil {
		return nil
	}
	var out []string
	if a.Path != "" {
		out = append(out, a.Path)
	}
	var list []string
	var one string
	switch {
	case len(a.Paths) == 0:
	case json.Unmarshal(a.Paths, &list) == nil:
		out = append(out, list...)
	case json.Unmarshal(a.Paths, &one) == nil && one != "":
		out = append(out, one)
	}
	if a.Input != "" {
		if p, err := edit.ParsePatch(a.Input); err == nil {
			for _, op := range p.Ops {
				out = append(out, op.Path)
				if op.MoveTo != "" {
					out = append(out, op.MoveTo)
				}
			}
		} else if secs, err := edit.SplitInput(a.Input); err == nil {
			for _, s := range secs {
				out = append(out, s.Path)
			}
		}
	}
	return out
}

// alreadyApplied returns the result of a retried call whose changes the
// store already holds (audit rows with its call id): the changes, marked
// as applied before, and nothing done again. It returns nil when the call
// changed nothing yet.
func alreadyApplied(env *Env, tool, id string) (*Result, error) {
	st := env.WS.Store()
	if st == nil || id == "" {
		return nil, nil
	}
	rows, err := st.AuditByCall(id)
	if err != nil {
		return nil, AsError(err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: this call (id %s) was already applied by the hub before it stopped; nothing was done again. Read the files before editing them further:\n", tool, id)
	res := &Result{Details: map[string]any{"alreadyApplied": true, "callId": id}}
	for _, r := range rows {
		op := "update"
		switch {
		case r.SHA256Before == "":
			op = "create"
		case r.SHA256After == "":
			op = "delete"
		}
		res.Changes = append(res.Changes, Change{Path: r.Path, Op: op, OldSHA256: r.SHA256Before, NewSHA256: r.SHA256After, AuditID: r.ID, Note: r.Note})
		fmt.Fprintf(&sb, "  %s %s (audit #%d)\n", op, r.Path, r.ID)
	}
	res.Text = sb.String()
	return res, nil
}
