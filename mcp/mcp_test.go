package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hashls/hashls/agent"
)

// session is a client connected to a Server over the SDK's in-memory
// transports.
type session struct {
	*sdk.ClientSession
	srv *Server
}

// connect starts a Server with opts (a fresh state directory unless set)
// and connects a client to it with the SDK's latest protocol version.
func connect(t *testing.T, opts Options, copts *sdk.ClientOptions, roots ...*sdk.Root) *session {
	t.Helper()
	return connectVersion(t, "", opts, copts, roots...)
}

// connectVersion is connect with the protocol version the client asks for
// ("" = the SDK's latest).
func connectVersion(t *testing.T, version string, opts Options, copts *sdk.ClientOptions, roots ...*sdk.Root) *session {
	t.Helper()
	if opts.StateDir == "" {
		opts.StateDir = t.TempDir()
	}
	opts.Logf = t.Logf
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	client := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, copts)
	if len(roots) > 0 {
		client.AddRoots(roots...)
	}
	cs, err := client.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		cancel()
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("server Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop within 10s of the client closing")
		}
		if err := srv.Close(); err != nil {
			t.Errorf("server Close: %v", err)
		}
	})
	return &session{ClientSession: cs, srv: srv}
}

// workspaceDir makes a temp root holding files (path → content).
func workspaceDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// call runs a tool and returns its result; a protocol error fails the test.
func (s *session) call(t *testing.T, name string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

// text is a result's single text content.
func text(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("want one content item, got %d", len(res.Content))
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", res.Content[0])
	}
	return tc.Text
}

// structuredOut is a result's text and its typed result from _meta.
type structuredOut struct {
	Text    string
	Details json.RawMessage `json:"details"`
	Changes []agent.Change  `json:"changes"`
	Error   *agent.Error
}

// structured decodes a result: its text content and the typed result in
// _meta. A result carries no structuredContent (a client would show it to
// the model instead of the text).
func structured(t *testing.T, res *sdk.CallToolResult) structuredOut {
	t.Helper()
	if res.StructuredContent != nil {
		t.Errorf("a result carries structuredContent %v", res.StructuredContent)
	}
	out := structuredOut{Text: text(t, res)}
	if v, ok := res.Meta[ResultMeta]; ok {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("_meta %s: %s: %v", ResultMeta, b, err)
		}
	}
	if v, ok := res.Meta[ErrorMeta]; ok {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &out.Error); err != nil {
			t.Fatalf("_meta %s: %s: %v", ErrorMeta, b, err)
		}
	}
	return out
}

// ok checks a successful result and returns its structured output.
func ok(t *testing.T, res *sdk.CallToolResult) structuredOut {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(t, res))
	}
	return structured(t, res)
}

// diffOnce checks the wire contract for a result that changed files: every
// change carries its diff, and the details repeat none of them.
func diffOnce(t *testing.T, out structuredOut) {
	t.Helper()
	for _, c := range out.Changes {
		if c.Diff == "" {
			t.Errorf("change of %s has no diff", c.Path)
		}
	}
	var d any
	if err := json.Unmarshal(out.Details, &d); err != nil {
		t.Fatalf("details %s: %v", out.Details, err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if k == "diff" {
					t.Errorf("details repeat a diff: %s", out.Details)
				}
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(d)
}

// tagOf reads the tag from a read result's details.
func tagOf(t *testing.T, out structuredOut) string {
	t.Helper()
	var d struct {
		Tag    string `json:"tag"`
		SHA256 string `json:"sha256"`
	}
	if err := json.Unmarshal(out.Details, &d); err != nil || d.Tag == "" {
		t.Fatalf("no tag in details %s (%v)", out.Details, err)
	}
	return d.Tag
}

func TestListTools(t *testing.T) {
	s := connect(t, Options{Root: t.TempDir()}, nil)
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	agentTools := agent.New(agent.Deps{}).Tools() // Options.Sets zero: every tool
	if len(res.Tools) != len(agentTools) {
		t.Fatalf("%d MCP tools, %d agent tools", len(res.Tools), len(agentTools))
	}
	byName := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
	}
	for _, at := range agentTools {
		t.Run(at.Name(), func(t *testing.T) {
			tl, found := byName[at.Name()]
			if !found {
				t.Fatalf("tool %s is not listed", at.Name())
			}
			var want, got any
			if err := json.Unmarshal(at.Schema(), &want); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(tl.InputSchema)
			json.Unmarshal(b, &got)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("inputSchema\n got %s\nwant %s", b, at.Schema())
			}
			if tl.Description != agent.GuideOf(at) {
				t.Errorf("description %q, want the agent's", tl.Description)
			}
			if tl.OutputSchema != nil {
				t.Error("an outputSchema obliges structuredContent, which clients show the model instead of the text")
			}
			h := agent.HintsOf(at)
			a := tl.Annotations
			if a == nil {
				t.Fatal("no annotations")
			}
			if a.ReadOnlyHint != h.ReadOnly || a.IdempotentHint != h.Idempotent || a.Title != h.Title {
				t.Errorf("annotations %+v, hints %+v", a, h)
			}
			if !h.ReadOnly && (a.DestructiveHint == nil || *a.DestructiveHint != h.Destructive) {
				t.Errorf("destructiveHint %v, want %v", a.DestructiveHint, h.Destructive)
			}
			if a.OpenWorldHint == nil || *a.OpenWorldHint {
				t.Error("openWorldHint should be false: the tools touch only the workspace")
			}
		})
	}
	// The hints a model relies on most, spelled out.
	for name, readOnly := range map[string]bool{"read": true, "search": true, "find": true, "trash": true, "audit": true, "edit": false, "write": false, "apply_patch": false, "restore": false} {
		if tl := byName[name]; tl == nil || tl.Annotations.ReadOnlyHint != readOnly {
			t.Errorf("%s: readOnlyHint should be %v", name, readOnly)
		}
	}
	if !strings.Contains(byName["edit"].Description, "replace N..M:") {
		t.Error("the edit tool's description lacks the format's rules")
	}
}

// Every toolset shows names and takes paths, so the instructions of each
// teach the $'…' quoting of names, once; no tool's description repeats it.
func TestInstructionsTeachQuotedNames(t *testing.T) {
	for _, spec := range []string{"hashline", "history", "stale-file", "patch", "lsp", "hashline,history", "all"} {
		sets := agent.MustParseSets(spec)
		if got := strings.Count(Instructions(sets), "quoted as bash writes it"); got != 1 {
			t.Errorf("%s: the instructions teach the quoting %d times, want once:\n%s", spec, got, Instructions(sets))
		}
	}
	for _, tl := range agent.New(agent.Deps{}).Tools() {
		if strings.Contains(agent.GuideOf(tl), "$'") || strings.Contains(string(tl.Schema()), "$'") {
			t.Errorf("%s's definition teaches the quoting the instructions teach", tl.Name())
		}
	}
}

// TestCallEachTool runs every tool once through MCP, in an order where each
// step uses what the previous ones made (tags, trash ids), and checks the
// audit log names the mcp transport.
func TestCallEachTool(t *testing.T) {
	root := workspaceDir(t, map[string]string{"a.txt": "a\nb\nc\n", "src/x.go": "package x\n\nfunc F() int {\n\treturn 1\n}\n"})
	s := connect(t, Options{Root: root}, nil)

	read := ok(t, s.call(t, "read", map[string]any{"path": "a.txt"}))
	tag := tagOf(t, read)
	if !strings.HasPrefix(read.Text, "¶a.txt#"+tag+"\n1:a\n") {
		t.Fatalf("read text %q", read.Text)
	}
	steps := []struct {
		tool  string
		args  map[string]any
		want  string // in the text
		check func(t *testing.T, out structuredOut)
	}{
		{"search", map[string]any{"pattern": "return", "paths": "."}, "¶src/x.go#", nil},
		{"find", map[string]any{"paths": "*.go"}, "x.go", nil},
		{"edit", map[string]any{"input": "¶a.txt#" + tag + "\nreplace 2..2:\n+B"}, "B", func(t *testing.T, out structuredOut) {
			if len(out.Changes) != 1 || out.Changes[0].Op != "update" || out.Changes[0].NewTag == "" || out.Changes[0].OldTag != tag || len(out.Changes[0].TrashIDs) != 1 {
				t.Errorf("changes %+v", out.Changes)
			}
		}},
		{"write", map[string]any{"path": "new/b.txt", "content": "one\ntwo\n"}, "¶new/b.txt#", func(t *testing.T, out structuredOut) {
			if len(out.Changes) != 1 || out.Changes[0].Op != "create" || out.Changes[0].NewSHA256 == "" {
				t.Errorf("changes %+v", out.Changes)
			}
		}},
		{"apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: new/b.txt\n@@\n one\n-two\n+TWO\n*** End Patch"}, "new/b.txt", func(t *testing.T, out structuredOut) {
			if len(out.Changes) != 1 || out.Changes[0].Op != "update" {
				t.Errorf("changes %+v", out.Changes)
			}
		}},
		{"trash", map[string]any{"path": "a.txt"}, "a.txt", nil},
		{"restore", nil, "a.txt", func(t *testing.T, out structuredOut) {
			if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "a\nb\nc\n" {
				t.Errorf("a.txt after restore: %q", b)
			}
		}},
		{"audit", map[string]any{"limit": 10}, "via mcp", nil},
	}
	var trashID int64
	for _, st := range steps {
		t.Run(st.tool, func(t *testing.T) {
			args := st.args
			if st.tool == "restore" {
				if trashID == 0 {
					t.Skip("the edit step left no trash id")
				}
				args = map[string]any{"id": trashID}
			}
			out := ok(t, s.call(t, st.tool, args))
			if !strings.Contains(out.Text, st.want) {
				t.Errorf("text lacks %q:\n%s", st.want, out.Text)
			}
			if st.check != nil {
				st.check(t, out)
			}
			if len(out.Changes) > 0 {
				diffOnce(t, out)
			}
			if st.tool == "edit" && len(out.Changes) == 1 && len(out.Changes[0].TrashIDs) == 1 {
				trashID = out.Changes[0].TrashIDs[0]
			}
		})
	}
	// Every change was audited with transport mcp.
	out := ok(t, s.call(t, "audit", map[string]any{"limit": 20}))
	var d struct {
		Entries []struct {
			Tool      string `json:"tool"`
			Transport string `json:"transport"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(out.Details, &d); err != nil {
		t.Fatal(err)
	}
	tools := map[string]bool{}
	for _, e := range d.Entries {
		tools[e.Tool] = true
		if e.Transport != "mcp" {
			t.Errorf("audit row of %s has transport %q, want mcp", e.Tool, e.Transport)
		}
	}
	for _, want := range []string{"edit", "write", "apply_patch", "restore"} {
		if !tools[want] {
			t.Errorf("no audit row for %s in %+v", want, d.Entries)
		}
	}
}

// TestToolErrors: tool failures are isError results with kind, message and
// action; only protocol misuse is a protocol error.
func TestToolErrors(t *testing.T) {
	root := workspaceDir(t, map[string]string{"a.txt": "a\nb\nc\n"})
	outside := t.TempDir()
	s := connect(t, Options{Root: root}, nil)
	tests := []struct {
		name string
		tool string
		args any
		kind string
		msg  string // in the message
	}{
		{"unknown argument", "read", map[string]any{"path": "a.txt", "bogus": 1}, agent.KindUsage, `unknown argument "bogus"`},
		{"missing argument", "read", map[string]any{}, agent.KindUsage, `missing required argument "path"`},
		{"wrong type", "read", map[string]any{"path": 5}, agent.KindUsage, "read"},
		{"missing file", "read", map[string]any{"path": "nope.txt"}, agent.KindNotFound, "nope.txt"},
		{"outside the root", "read", map[string]any{"path": filepath.Join(outside, "x")}, agent.KindOutside, "outside the workspace root"},
		{"dot-dot", "write", map[string]any{"path": "../escape.txt", "content": "x"}, agent.KindOutside, "outside"},
		{"stale tag", "edit", map[string]any{"input": "¶a.txt#0000\nreplace 1..1:\n+x"}, agent.KindStale, "Edit rejected"},
		{"bad edit input", "edit", map[string]any{"input": "no header"}, agent.KindInput, ""},
		{"bad patch", "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: a.txt\n@@\n-zzz\n+y\n*** End Patch"}, "", "a.txt"},
		{"stale write", "write", map[string]any{"path": "a.txt", "content": "x", "expectedSha256": strings.Repeat("0", 64)}, agent.KindStale, "a.txt"},
		{"no such trash entry", "restore", map[string]any{"id": 999999}, agent.KindNotFound, "999999"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := s.call(t, tc.tool, tc.args)
			if !res.IsError {
				t.Fatalf("want isError, got %s", text(t, res))
			}
			out := structured(t, res)
			if out.Error == nil {
				t.Fatalf("_meta has no error: %+v", out)
			}
			if tc.kind != "" && out.Error.Kind != tc.kind {
				t.Errorf("kind %q, want %q (%s)", out.Error.Kind, tc.kind, out.Error.Message)
			}
			if out.Error.Kind == "" || out.Error.Message == "" || out.Error.SuggestedAction == "" {
				t.Errorf("error %+v", out.Error)
			}
			if !strings.Contains(out.Error.Message, tc.msg) {
				t.Errorf("message lacks %q: %s", tc.msg, out.Error.Message)
			}
			txt := text(t, res)
			if !strings.Contains(txt, out.Error.Message) || !strings.Contains(txt, out.Error.SuggestedAction) || !strings.Contains(txt, out.Error.Kind) {
				t.Errorf("text content lacks the message, kind or action: %s", txt)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "a\nb\nc\n" {
		t.Errorf("a failed call changed a.txt: %q", b)
	}

	t.Run("unknown tool is a protocol error", func(t *testing.T) {
		_, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "nope", Arguments: map[string]any{}})
		if err == nil || !strings.Contains(err.Error(), "nope") {
			t.Fatalf("want a protocol error naming the tool, got %v", err)
		}
	})
}

// recorder collects what a client receives.
type recorder struct {
	mu       sync.Mutex
	progress []*sdk.ProgressNotificationParams
	logs     []string
}

func (r *recorder) options() *sdk.ClientOptions {
	return &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			r.mu.Lock()
			r.progress = append(r.progress, req.Params)
			r.mu.Unlock()
		},
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			r.mu.Lock()
			r.logs = append(r.logs, fmt.Sprint(req.Params.Data))
			r.mu.Unlock()
		},
	}
}

func (r *recorder) snapshot() ([]*sdk.ProgressNotificationParams, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*sdk.ProgressNotificationParams(nil), r.progress...), append([]string(nil), r.logs...)
}

// TestProgress: a tool's reports reach a client that sent a progress
// token, strictly increasing; without a token the tool gets no callback.
func TestProgress(t *testing.T) { forVersions(t, testProgress) }

func testProgress(t *testing.T, version string) {
	reports := []struct {
		done, total int
	}{{0, 3}, {1, 3}, {1, 3}, {2, 3}, {3, 3}} // the repeated 1 is dropped
	var sawProgress []bool
	var mu sync.Mutex
	opts := Options{Root: t.TempDir(), runTool: func(ctx context.Context, ts *agent.Toolset, name string, args json.RawMessage, call agent.Call) (*agent.Result, error) {
		mu.Lock()
		sawProgress = append(sawProgress, call.Progress != nil)
		mu.Unlock()
		if call.Transport != "mcp" {
			return nil, fmt.Errorf("transport %q", call.Transport)
		}
		if call.Progress != nil {
			for _, r := range reports {
				call.Progress(fmt.Sprintf("step %d", r.done), r.done, r.total)
			}
		}
		return &agent.Result{Text: "done"}, nil
	}}
	rec := &recorder{}
	s := connectVersion(t, version, opts, rec.options())
	saved := progressMinInterval
	progressMinInterval = 0
	t.Cleanup(func() { progressMinInterval = saved })

	params := &sdk.CallToolParams{Name: "search", Arguments: map[string]any{}}
	params.SetProgressToken("tok-1")
	res, err := s.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	// Notifications may trail the response; wait for them, boundedly.
	deadline := time.Now().Add(5 * time.Second)
	var got []*sdk.ProgressNotificationParams
	for time.Now().Before(deadline) {
		if got, _ = rec.snapshot(); len(got) >= 4 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	var prog []float64
	for _, p := range got {
		if p.ProgressToken != "tok-1" || p.Total != 3 {
			t.Errorf("notification %+v", p)
		}
		prog = append(prog, p.Progress)
	}
	if !reflect.DeepEqual(prog, []float64{0, 1, 2, 3}) {
		t.Errorf("progress values %v, want [0 1 2 3]", prog)
	}

	// Without a token: no callback, no notifications.
	if _, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "search", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !reflect.DeepEqual(sawProgress, []bool{true, false}) {
		t.Errorf("progress callback given: %v, want [true false]", sawProgress)
	}
}

// TestCancellation: notifications/cancelled (sent by the client when its
// context ends) cancels the tool's context, and the session goes on.
func TestCancellation(t *testing.T) { forVersions(t, testCancellation) }

func testCancellation(t *testing.T, version string) {
	started := make(chan struct{})
	seen := make(chan error, 1)
	opts := Options{Root: t.TempDir(), runTool: func(ctx context.Context, ts *agent.Toolset, name string, args json.RawMessage, call agent.Call) (*agent.Result, error) {
		close(started)
		select {
		case <-ctx.Done():
			seen <- ctx.Err()
			return nil, ctx.Err()
		case <-time.After(30 * time.Second):
			seen <- errors.New("the tool's context was never cancelled")
			return &agent.Result{Text: "late"}, nil
		}
	}}
	s := connectVersion(t, version, opts, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{}})
		errc <- err
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the tool never started")
	}
	cancel() // the client sends notifications/cancelled
	if err := <-errc; err == nil {
		t.Error("a cancelled call returned no error to the client")
	}
	select {
	case err := <-seen:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the tool saw %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the tool's context was not cancelled within 10s of notifications/cancelled")
	}
	// The session still works after a cancellation.
	if _, err := s.ListTools(context.Background(), nil); err != nil {
		t.Fatalf("after cancelling: %v", err)
	}
}

// TestCancelledCall: a call whose context is already cancelled fails on the
// client, and the session goes on serving real tools.
func TestCancelledCall(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("d%d/f%d.txt", i%4, i)] = strings.Repeat("needle haystack\n", 20)
	}
	s := connect(t, Options{Root: workspaceDir(t, files)}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"pattern": "needle", "paths": "."}}); err == nil {
		t.Error("a call with a cancelled context succeeded")
	}
	out := ok(t, s.call(t, "search", map[string]any{"pattern": "needle", "paths": "d1"}))
	if !strings.Contains(out.Text, "¶d1/") {
		t.Errorf("search after a cancellation: %s", out.Text)
	}
}

// TestRoots: without --root the workspace is the client's first root, asked
// again after roots/list_changed; a client with no roots gets the current
// directory. Both ways of asking: a roots/list request (protocols up to
// 2025-11-25) and an input request (multi round-trip, 2026-07-28 on).
func TestRoots(t *testing.T) {
	one := workspaceDir(t, map[string]string{"which.txt": "one\n"})
	two := workspaceDir(t, map[string]string{"which.txt": "two\n"})
	cwd := workspaceDir(t, map[string]string{"which.txt": "cwd\n"})
	getwd := func() (string, error) { return cwd, nil }
	readWhich := func(t *testing.T, s *session) string {
		t.Helper()
		return ok(t, s.call(t, "read", map[string]any{"path": "which.txt"})).Text
	}

	for _, version := range []string{"2025-06-18", "2025-11-25", ""} {
		name := version
		if name == "" {
			name = "latest"
		}
		t.Run(name, func(t *testing.T) {
			t.Run("client roots", func(t *testing.T) {
				rec := &recorder{}
				s := connectVersion(t, version, Options{getwd: getwd}, rec.options(), &sdk.Root{URI: fileURI(one), Name: "one"})
				if version != "" {
					if err := s.SetLoggingLevel(context.Background(), &sdk.SetLoggingLevelParams{Level: "info"}); err != nil {
						t.Fatal(err)
					}
				}
				if txt := readWhich(t, s); !strings.Contains(txt, "1:one") {
					t.Fatalf("read from the client's root: %s", txt)
				}
				// Paths stay confined to the chosen root.
				if res := s.call(t, "read", map[string]any{"path": filepath.Join(two, "which.txt")}); !res.IsError || structured(t, res).Error.Kind != agent.KindOutside {
					t.Errorf("a path in another directory was not refused: %s", text(t, res))
				}
				if version != "" { // per-request log levels of newer protocols are not set by this client
					waitFor(t, func() bool {
						_, logs := rec.snapshot()
						return strings.Contains(strings.Join(logs, "\n"), one)
					}, "a log message naming the root")
				}
			})

			t.Run("roots change", func(t *testing.T) {
				client := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil)
				client.AddRoots(&sdk.Root{URI: fileURI(one)})
				srv, err := New(Options{StateDir: t.TempDir(), getwd: getwd, Logf: t.Logf})
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				st, ct := sdk.NewInMemoryTransports()
				go srv.Run(ctx, st)
				cs, err := client.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				s := &session{ClientSession: cs, srv: srv}
				if txt := readWhich(t, s); !strings.Contains(txt, "1:one") {
					t.Fatalf("before the change: %s", txt)
				}
				client.RemoveRoots(fileURI(one))
				client.AddRoots(&sdk.Root{URI: fileURI(two)})
				waitFor(t, func() bool { return strings.Contains(readWhich(t, s), "1:two") }, "reads from the new root after roots/list_changed")
			})

			t.Run("no roots", func(t *testing.T) {
				s := connectVersion(t, version, Options{getwd: getwd}, nil) // the Go client offers roots, but none
				if txt := readWhich(t, s); !strings.Contains(txt, "1:cwd") {
					t.Fatalf("read from the current directory: %s", txt)
				}
			})

			t.Run("--root wins", func(t *testing.T) {
				s := connectVersion(t, version, Options{Root: two, getwd: getwd}, nil, &sdk.Root{URI: fileURI(one)})
				if txt := readWhich(t, s); !strings.Contains(txt, "1:two") {
					t.Fatalf("read with --root: %s", txt)
				}
			})
		})
	}

	t.Run("missing root", func(t *testing.T) {
		s := connect(t, Options{Root: filepath.Join(t.TempDir(), "gone")}, nil)
		res := s.call(t, "read", map[string]any{"path": "x"})
		if !res.IsError || !strings.Contains(text(t, res), "gone") {
			t.Fatalf("want an isError naming the missing root, got %s", text(t, res))
		}
	})
}

func TestRootPath(t *testing.T) {
	tests := []struct {
		uri, want string
		ok        bool
	}{
		{"file:///tmp/x", "/tmp/x", true},
		{"file://localhost/tmp/y", "/tmp/y", true},
		{"file:///tmp/a%20b", "/tmp/a b", true},
		{"https://example.com/x", "", false},
		{"file://otherhost/x", "", false},
		{"file://", "", false},
		{"::", "", false},
	}
	for _, tc := range tests {
		got, err := rootPath(tc.uri)
		if (err == nil) != tc.ok || (tc.ok && got != filepath.FromSlash(tc.want)) {
			t.Errorf("rootPath(%q) = %q, %v; want %q ok=%v", tc.uri, got, err, tc.want, tc.ok)
		}
	}
}

// forVersions runs test once per protocol version a client may speak: the
// one most clients speak today and the SDK's latest.
func forVersions(t *testing.T, test func(t *testing.T, version string)) {
	for _, v := range []string{"2025-11-25", ""} {
		name := v
		if name == "" {
			name = "latest"
		}
		t.Run(name, func(t *testing.T) { test(t, v) })
	}
}

func fileURI(dir string) string { return "file://" + filepath.ToSlash(dir) }

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestAllowRoots: with AllowRoots, a client's root outside them (or a link
// leading out of them) is skipped, the next one under them taken, and a
// current directory outside them is refused.
func TestAllowRoots(t *testing.T) {
	allowed := t.TempDir()
	inside := filepath.Join(allowed, "proj")
	outside := workspaceDir(t, map[string]string{"which.txt": "outside\n"})
	if err := os.MkdirAll(inside, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(inside, "which.txt"), []byte("inside\n"), 0o644)
	link := filepath.Join(allowed, "escape")
	if err := os.Symlink(outside, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	getwd := func() (string, error) { return outside, nil }
	s := connect(t, Options{AllowRoots: []string{allowed}, getwd: getwd}, nil, &sdk.Root{URI: fileURI(outside)}, &sdk.Root{URI: fileURI(link)}, &sdk.Root{URI: fileURI(inside)})
	if txt := ok(t, s.call(t, "read", map[string]any{"path": "which.txt"})).Text; !strings.Contains(txt, "1:inside") {
		t.Fatalf("read: %s", txt)
	}
	s = connect(t, Options{AllowRoots: []string{allowed}, getwd: getwd}, nil, &sdk.Root{URI: fileURI(outside)})
	res := s.call(t, "read", map[string]any{"path": "which.txt"})
	if out := structured(t, res); !res.IsError || out.Error.Kind != agent.KindPermission || !strings.Contains(out.Error.Message, "not under the allowed roots") {
		t.Fatalf("a root outside the allowed ones: %s", text(t, res))
	}
}

// TestNotify: a server-side event (a language server starting, a store
// recovery, a hub lost mid-call) reaches the client through MCP logging
// once it set a level.
func TestNotify(t *testing.T) {
	rec := &recorder{}
	s := connect(t, Options{Root: t.TempDir()}, rec.options())
	if err := s.SetLoggingLevel(context.Background(), &sdk.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	s.srv.Notify("warning", "language server gopls exited (signal: killed); restarting it")
	waitFor(t, func() bool {
		_, logs := rec.snapshot()
		return strings.Contains(strings.Join(logs, "\n"), "gopls exited")
	}, "the event as a log message")
}
