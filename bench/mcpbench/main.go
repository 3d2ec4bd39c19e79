// Command mcpbench measures per-call latency of the same tool calls through
// a long-lived `hashls mcp` over stdio (the Go SDK's client, one process for
// the whole run) and through `hashls tool` (one process per call), in one
// interleaved run: `read` of 20 lines and the 50-hunk edit of bench/edit.sh
// on a 10,000-line file. It prints p50, p90, p99 and the MCP ÷ CLI ratio.
//
//	go build -o /tmp/hashls . && go run ./bench/mcpbench -bin /tmp/hashls -runs 200
//
// (bench/mcp.sh does both.) Before every edit the file is put back to its
// original content outside the timed region, so every edit applies against
// the tag the first read minted, as bench/edit.sh does.
//
// Beside them it times the floor of an MCP edit (issue 31): a no-op tool
// call's round trip over the same SDK and transport (this program run with
// -noop-server: an SDK server on stdio whose one tool returns "ok"),
// interleaved with the other calls, plus `floor loop` (-floor, bench/floor:
// the least in-process work of the edit, the median of 100 in one process).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hashls/hashls/internal/benchfile"
)

func main() {
	bin := flag.String("bin", "", "the hashls binary (required)")
	runs := flag.Int("runs", 200, "calls of each kind per transport")
	floor := flag.String("floor", "", "the bench/floor binary: adds the MCP edit's floor")
	noop := flag.Bool("noop-server", false, "serve the no-op tool on stdio (the floor's round trip)")
	flag.Parse()
	if *noop {
		if err := serveNoop(); err != nil {
			fmt.Fprintln(os.Stderr, "mcpbench -noop-server:", err)
			os.Exit(1)
		}
		return
	}
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "mcpbench: -bin /path/to/hashls is required (go build -o /tmp/hashls .)")
		os.Exit(2)
	}
	if err := run(*bin, *floor, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "mcpbench:", err)
		os.Exit(1)
	}
}

func run(bin, floor string, runs int) error {
	work, err := os.MkdirTemp("", "hashls-mcpbench-")
	if err != nil {
		return fmt.Errorf("making a work directory: %w", err)
	}
	defer os.RemoveAll(work)
	root := filepath.Join(work, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		return err
	}
	orig := benchfile.Text()
	big := filepath.Join(root, "big.txt")
	restore := func() error { return os.WriteFile(big, orig, 0o644) }
	if err := restore(); err != nil {
		return err
	}
	env := append(os.Environ(), "HASHLS_STATE_DIR="+filepath.Join(work, "state"))
	ctx := context.Background()
	cs, ns, err := connect(ctx, bin, root, env)
	if err != nil {
		return err
	}
	defer cs.Close()
	defer ns.Close()
	noopCall := func(name string) func() error {
		return func() error {
			res, err := ns.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: map[string]any{}})
			if err == nil && res.IsError {
				err = fmt.Errorf("the no-op server's %s failed", name)
			}
			return err
		}
	}
	call := func(name string, args map[string]any) (string, error) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return "", fmt.Errorf("mcp %s: %w", name, err)
		}
		txt := res.Content[0].(*sdk.TextContent).Text
		if res.IsError {
			return "", fmt.Errorf("mcp %s: %s", name, txt)
		}
		return txt, nil
	}
	header, editInput, err := editFixture(call)
	if err != nil {
		return err
	}
	editJSON, _ := json.Marshal(map[string]string{"input": editInput})
	readArgs := map[string]any{"path": "big.txt:1-20"}
	readJSON, _ := json.Marshal(readArgs)

	cliRead := func() error { return cliTool(bin, root, env, "read", string(readJSON), "") }
	cliEdit := func() error { return cliTool(bin, root, env, "edit", "-", string(editJSON)) }

	// The no-op server keeps an edit's result to send back (replay): the
	// round trip of the edit's result with no work behind it.
	restore()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "edit", Arguments: map[string]any{"input": editInput}})
	if err != nil || res.IsError {
		return fmt.Errorf("mcp edit: %v", err)
	}
	if _, err := ns.CallTool(ctx, &sdk.CallToolParams{Name: "remember", Arguments: map[string]any{"result": res}}); err != nil {
		return fmt.Errorf("the no-op server's remember: %w", err)
	}
	// Warm up both paths (page cache, store, the server's first tree).
	for range 3 {
		restore()
		if _, err := call("edit", map[string]any{"input": editInput}); err != nil {
			return err
		}
		restore()
		if err := cliEdit(); err != nil {
			return err
		}
	}
	t, err := measure(runs, timing{
		mcpRead: func() error { _, err := call("read", readArgs); return err },
		cliRead: cliRead,
		mcpEdit: func() error { _, err := call("edit", map[string]any{"input": editInput}); return err },
		cliEdit: cliEdit,
		restore: restore,
		noop:    noopCall("noop"),
		replay:  noopCall("replay"),
	})
	if err != nil {
		return err
	}
	t.report(runs)
	if floor == "" {
		return nil
	}
	tag := header[strings.LastIndex(header, "#")+1:]
	return floorReport(floor, work, orig, tag, t)
}

// editFixture reads the lines the edit changes (edits anchored on lines
// never shown are refused) and makes the 50-hunk edit under the read's
// header.
func editFixture(call func(string, map[string]any) (string, error)) (header, editInput string, err error) {
	shown := make([]string, 50)
	for i := range shown {
		shown[i] = fmt.Sprintf("%d-%d", i*200+1, i*200+1)
	}
	first, err := call("read", map[string]any{"path": "big.txt:" + strings.Join(shown, ",")})
	if err != nil {
		return "", "", err
	}
	header, _, _ = strings.Cut(first, "\n")
	ops := make([]string, 50)
	for i := range ops {
		ops[i] = fmt.Sprintf("replace %d..%d:\n+changed %d", i*200+1, i*200+1, i)
	}
	return header, header + "\n" + strings.Join(ops, "\n"), nil
}

// connect starts the long-lived server (hashls mcp on root) and the no-op
// server (this program again, over the same SDK and transport).
func connect(ctx context.Context, bin, root string, env []string) (cs, ns *sdk.ClientSession, err error) {
	cmd := exec.Command(bin, "--root", root, "mcp")
	cmd.Env = env
	cmd.Stderr = os.Stderr
	cs, err = sdk.NewClient(&sdk.Implementation{Name: "mcpbench", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("starting %s mcp: %w", bin, err)
	}
	self, err := os.Executable()
	if err != nil {
		cs.Close()
		return nil, nil, err
	}
	noopCmd := exec.Command(self, "-noop-server")
	noopCmd.Stderr = os.Stderr
	ns, err = sdk.NewClient(&sdk.Implementation{Name: "mcpbench", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: noopCmd}, nil)
	if err != nil {
		cs.Close()
		return nil, nil, fmt.Errorf("starting the no-op server: %w", err)
	}
	return cs, ns, nil
}

// timing is what mcpbench times: one call of each kind, and then the
// durations each took.
type timing struct {
	mcpRead, cliRead, mcpEdit, cliEdit, noop, replay func() error
	// restore puts the file back before each edit, outside the timed
	// region, so that every edit applies against the first read's tag.
	restore func() error

	mcpReadT, cliReadT, mcpEditT, cliEditT, noopT, replayT []time.Duration
}

// measure runs each call of c runs times, which transport goes first
// alternating.
func measure(runs int, c timing) (*timing, error) {
	t := &c
	timed := func(f func() error, into *[]time.Duration) func() error {
		return func() error {
			start := time.Now()
			err := f()
			*into = append(*into, time.Since(start))
			return err
		}
	}
	restored := func(f func() error) func() error {
		return func() error {
			if err := t.restore(); err != nil {
				return err
			}
			return f()
		}
	}
	for i := range runs {
		// Alternate which transport goes first, so neither always follows
		// the other's writes.
		steps := []func() error{
			timed(t.mcpRead, &t.mcpReadT),
			timed(t.cliRead, &t.cliReadT),
			restored(timed(t.mcpEdit, &t.mcpEditT)),
			restored(timed(t.cliEdit, &t.cliEditT)),
		}
		if i%2 == 1 {
			steps[0], steps[1] = steps[1], steps[0]
			steps[2], steps[3] = steps[3], steps[2]
		}
		steps = append(steps, timed(t.noop, &t.noopT), timed(t.replay, &t.replayT))
		for _, s := range steps {
			if err := s(); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// report prints the timings' percentiles and the MCP ÷ CLI ratios.
func (t *timing) report(runs int) {
	fmt.Printf("%d calls of each; 10,000-line file; read = 20 lines, edit = 50 hunks\n\n", runs)
	fmt.Printf("%-22s %9s %9s %9s %9s\n", "", "p50", "p90", "p99", "mean")
	row := func(name string, d []time.Duration) {
		p := percentiles(d)
		fmt.Printf("%-22s %9s %9s %9s %9s\n", name, ms(p[0]), ms(p[1]), ms(p[2]), ms(p[3]))
	}
	row("mcp read (stdio)", t.mcpReadT)
	row("hashls tool read", t.cliReadT)
	row("mcp edit (stdio)", t.mcpEditT)
	row("hashls tool edit", t.cliEditT)
	row("no-op tool (stdio)", t.noopT)
	row("edit's result replayed", t.replayT)
	re, ce := percentiles(t.mcpEditT), percentiles(t.cliEditT)
	rr, cr := percentiles(t.mcpReadT), percentiles(t.cliReadT)
	fmt.Printf("\nMCP ÷ CLI at p50: read %.3f, edit %.3f (goal for edit: ≤ 0.100)\n", float64(rr[0])/float64(cr[0]), float64(re[0])/float64(ce[0]))
}

// floorReport times the floor's in-process part in the same run:
// bench/floor's loop on a copy of the file (orig), under the tag the first
// read minted, and prints the MCP edit beside it.
func floorReport(floor, work string, orig []byte, tag string, t *timing) error {
	froot := filepath.Join(work, "floor-root")
	if err := os.Mkdir(froot, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(froot, "big.txt"), orig, 0o644); err != nil {
		return err
	}
	if out, err := exec.Command(floor, "init", froot).CombinedOutput(); err != nil {
		return fmt.Errorf("floor init: %w: %s", err, out)
	}
	out, err := exec.Command(floor, "loop", froot, tag, "100").Output()
	if err != nil {
		return fmt.Errorf("floor loop: %w", err)
	}
	var loopMS float64
	if _, err := fmt.Sscan(string(out), &loopMS); err != nil {
		return fmt.Errorf("floor loop printed %q", out)
	}
	np, rp, re := percentiles(t.noopT), percentiles(t.replayT), percentiles(t.mcpEditT)
	fl := loopMS + float64(np[0].Microseconds())/1000
	fmt.Printf("floor: floor loop %.2f ms + no-op call p50 %s = %.2f ms; MCP edit p50 ÷ floor %.2f (goal ≤ 1.2)\n",
		loopMS, ms(np[0]), fl, float64(re[0].Microseconds())/1000/fl)
	fr := loopMS + float64(rp[0].Microseconds())/1000
	fmt.Printf("with the edit's own result: floor loop + replay p50 %s = %.2f ms; MCP edit p50 ÷ that %.2f\n", ms(rp[0]), fr, float64(re[0].Microseconds())/1000/fr)
	return nil
}

// serveNoop serves, on stdio with the SDK hashls uses, "noop", which
// returns "ok" (the round trip of a tool call that does nothing), and
// "remember" and "replay": replay returns the result remember was given
// (the round trip of that result with no work behind it).
func serveNoop() error {
	srv := sdk.NewServer(&sdk.Implementation{Name: "noop", Version: "1"}, nil)
	object := json.RawMessage(`{"type":"object"}`)
	srv.AddTool(&sdk.Tool{Name: "noop", Description: "does nothing", InputSchema: object},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
		})
	var kept *sdk.CallToolResult
	srv.AddTool(&sdk.Tool{Name: "remember", Description: "keeps a result", InputSchema: object},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var a struct {
				Result *sdk.CallToolResult `json:"result"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil || a.Result == nil {
				return nil, fmt.Errorf("remember: %v", err)
			}
			kept = a.Result
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "replay", Description: "returns the result remember kept", InputSchema: object},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if kept == nil {
				return nil, fmt.Errorf("replay: nothing remembered")
			}
			return kept, nil
		})
	return srv.Run(context.Background(), &sdk.StdioTransport{})
}

// cliTool runs one `hashls tool NAME ARG` process (stdin when arg is "-").
func cliTool(bin, root string, env []string, name, arg, stdin string) error {
	c := exec.Command(bin, "--root", root, "tool", name, arg)
	c.Env = env
	if stdin != "" {
		c.Stdin = strings.NewReader(stdin)
	}
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("hashls tool %s: %w: %s", name, err, out)
	}
	return nil
}

// percentiles returns p50, p90, p99 (nearest rank) and the mean.
func percentiles(d []time.Duration) [4]time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	rank := func(p float64) time.Duration {
		i := int(p*float64(len(s))+0.999999) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	var sum time.Duration
	for _, v := range s {
		sum += v
	}
	return [4]time.Duration{rank(0.50), rank(0.90), rank(0.99), sum / time.Duration(len(s))}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
