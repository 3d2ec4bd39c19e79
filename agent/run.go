package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/hashls/hashls/edit"
)

// Run validates args against tool name's schema (an object with known
// fields) and runs it. Every failure is an *Error; a panic inside a tool is
// recovered and reported as KindInternal.
func (ts *Toolset) Run(ctx context.Context, name string, args json.RawMessage, call Call) (res *Result, err error) {
	t, ok := ts.Lookup(name)
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
	env := &Env{WS: ts.deps.WS, Resolver: ts.deps.Resolver, Progress: call.Progress, Transport: call.Transport, Edit: ts.deps.Edit}
	if err := checkArgs(t, args); err != nil {
		return nil, AsError(err)
	}
	defer func() {
		if r := recover(); r != nil {
			res = nil
			err = AsError(&Error{Kind: KindInternal, Message: fmt.Sprintf("internal error in tool %s: %v (this is a hashls bug; please report it with the input)\n%s", name, r, debug.Stack())})
		}
	}()
	res, err = t.Run(ctx, env, args)
	if err != nil {
		return nil, AsError(err)
	}
	return res, nil
}

// checkArgs rejects invalid JSON, non-objects and unknown fields.
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
		return &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: %s; see `hashls tool %s --schema`", t.Name(), msg, t.Name())}
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
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
			return &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: unknown argument %q; known arguments: %s", t.Name(), k, strings.Join(known, ", "))}
		}
	}
	for _, k := range schema.Required {
		if _, ok := obj[k]; !ok {
			return &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: missing required argument %q; see `hashls tool %s --schema`", t.Name(), k, t.Name())}
		}
	}
	return nil
}

// AsError converts any error into an *Error: an *Error is kept, any other
// error gets its kind from KindOf. The result always has a suggested
// action: the tool's own, else the kind's default (SuggestedAction).
func AsError(err error) *Error {
	var ae *Error
	if !errors.As(err, &ae) {
		ae = &Error{Kind: KindOf(err), Message: err.Error(), Err: err}
	}
	if ae.SuggestedAction == "" {
		c := *ae
		c.SuggestedAction = SuggestedAction(c.Kind)
		ae = &c
	}
	return ae
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
