package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hashls/hashls/langserver"
	"github.com/hashls/hashls/workspace"
)

// Diagnostics after edits (issue 15, item 3): edit, write, edit_file and
// apply_patch can wait, bounded, for the language server's diagnostics of
// the files they changed and report the ones that are new since before
// the change, split into those on the lines the change touched and the
// collateral elsewhere; and they can have the server format what they
// wrote. Both are settings (EditSettings) a call may override with the
// arguments below; Toolset.Run reads them, commit runs them.

// diagnosticsMax bounds the wait for diagnostics after an edit;
// collateralQuiet is how long the servers must stay silent once the
// changed files' diagnostics came before the other files' are read.
const (
	diagnosticsMax  = 30 * time.Second
	collateralQuiet = 50 * time.Millisecond
)

// afterEditProps are the schema properties of the tools that run the
// after-edit checks.
const afterEditProps = `"diagnostics":{"type":"integer","minimum":0,"description":"ms to wait for the language server's new diagnostics (max 30000)"},` +
	`"format":{"type":"boolean","description":"format the changed files with the language server"}`

// afterEditTool is a tool whose schema has afterEditProps.
type afterEditTool interface{ takesAfterEditArgs() }

func (editTool) takesAfterEditArgs()       {}
func (writeTool) takesAfterEditArgs()      {}
func (editFileTool) takesAfterEditArgs()   {}
func (applyPatchTool) takesAfterEditArgs() {}

// afterEditArgs are the after-edit arguments of one call.
type afterEditArgs struct {
	Diagnostics *int  `json:"diagnostics"`
	Format      *bool `json:"format"`
}

// afterEdit is what one call asked of the after-edit checks, and what
// they found (set by commit, read by Toolset.Run).
type afterEdit struct {
	wait   time.Duration
	format bool
	report *DiagnosticsReport
	warn   []string
}

// newAfterEdit reads the call's after-edit arguments over the settings;
// nil when the tool has none or nothing is asked.
func newAfterEdit(t Tool, s EditSettings, args json.RawMessage) *afterEdit {
	if _, ok := t.(afterEditTool); !ok {
		return nil
	}
	ae := &afterEdit{wait: s.DiagnosticsWait, format: s.FormatOnWrite}
	var a afterEditArgs
	if json.Unmarshal(args, &a) == nil {
		if a.Diagnostics != nil {
			ae.wait = time.Duration(*a.Diagnostics) * time.Millisecond
		}
		if a.Format != nil {
			ae.format = *a.Format
		}
	}
	ae.wait = min(ae.wait, diagnosticsMax)
	if ae.wait <= 0 && !ae.format {
		return nil
	}
	return ae
}

// DiagnosticsReport is what the language servers said about a change.
type DiagnosticsReport struct {
	// Fresh is false when the wait ran out before a server answered for
	// every changed file (what is reported may then be incomplete).
	Fresh  bool   `json:"fresh"`
	Waited string `json:"waited"`
	// Touched are new diagnostics on the lines the change wrote;
	// Elsewhere the new ones on other lines of the changed files and in
	// other files (collateral damage).
	Touched   []lspDiagnostic `json:"touched,omitempty"`
	Elsewhere []lspDiagnostic `json:"elsewhere,omitempty"`
	// Skipped names changed files no installed server handles.
	Skipped []string `json:"skipped,omitempty"`
}

// diagKey identifies a diagnostic across line shifts.
func diagKey(d langserver.Diagnostic) string {
	return d.Severity + "\x00" + d.Source + "\x00" + d.Code + "\x00" + d.Message
}

// afterEditBefore collects the diagnostics before the change: of the
// files about to change (synced to their current content), and whatever
// the servers published for other files.
type afterEditState struct {
	start  time.Time
	files  []workspace.Path
	before map[string][]langserver.Diagnostic
}

func (ae *afterEdit) begin(ctx context.Context, env *Env, plans []planned) *afterEditState {
	if ae == nil || ae.wait <= 0 || env.LS == nil {
		return nil
	}
	st := &afterEditState{start: time.Now(), before: map[string][]langserver.Diagnostic{}}
	ctx, cancel := context.WithTimeout(ctx, ae.wait)
	defer cancel()
	for _, p := range plans {
		if p.ch.Delete || !env.LS.Handles(p.ch.Path.Abs) {
			continue
		}
		st.files = append(st.files, p.ch.Path)
		if p.old != nil {
			ds, _, err := env.LS.Diagnostics(ctx, p.ch.Path.Abs)
			if err == nil {
				st.before[p.ch.Path.Abs] = ds
			}
		}
	}
	for path, ds := range env.LS.Cached() {
		if _, ok := st.before[path]; !ok {
			st.before[path] = ds
		}
	}
	return st
}

// finish waits for the diagnostics of the changed files and records the
// new ones in ae.report.
func (ae *afterEdit) finish(ctx context.Context, env *Env, st *afterEditState, plans []planned) {
	if st == nil {
		return
	}
	rep := &DiagnosticsReport{Fresh: true}
	remaining := ae.wait - time.Since(st.start)
	ctx, cancel := context.WithTimeout(ctx, max(remaining, 200*time.Millisecond))
	defer cancel()
	changed := map[string]bool{}
	touched := map[string][2]int{}
	for _, p := range plans {
		if !p.ch.Delete {
			touched[p.ch.Path.Abs] = changedSpan(p.old, p.ch.New)
		}
	}
	after := map[string][]langserver.Diagnostic{}
	for _, p := range st.files {
		changed[p.Abs] = true
		ds, fresh, err := env.LS.Diagnostics(ctx, p.Abs)
		if err != nil {
			rep.Skipped = append(rep.Skipped, p.Rel+" ("+err.Error()+")")
			continue
		}
		if !fresh {
			rep.Fresh = false
		}
		after[p.Abs] = ds
	}
	// A server publishes the other files a change affects right after
	// the changed ones: a short quiet period collects them.
	env.LS.Settle(ctx, collateralQuiet)
	for path, ds := range env.LS.Cached() {
		if !changed[path] {
			after[path] = ds
		}
	}
	for path, ds := range after {
		old := map[string]int{}
		for _, d := range st.before[path] {
			old[diagKey(d)]++
		}
		for _, d := range ds {
			k := diagKey(d)
			if old[k] > 0 {
				old[k]--
				continue
			}
			x := toLSPDiag(env, d)
			if sp, ok := touched[path]; ok && d.End.Line >= sp[0] && d.Start.Line <= sp[1] {
				rep.Touched = append(rep.Touched, x)
			} else {
				rep.Elsewhere = append(rep.Elsewhere, x)
			}
		}
	}
	sortDiags(rep.Touched)
	sortDiags(rep.Elsewhere)
	rep.Waited = time.Since(st.start).Round(time.Millisecond).String()
	ae.report = rep
}

func sortDiags(ds []lspDiagnostic) {
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && (ds[j].Path < ds[j-1].Path || (ds[j].Path == ds[j-1].Path && ds[j].Line < ds[j-1].Line)); j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
}

// changedSpan is the span of lines of new (1-based, inclusive) from the
// first to the last line that differs from old ({1, all} for a new file).
func changedSpan(old, new []byte) [2]int {
	a := splitDisplayLines(old)
	b := splitDisplayLines(new)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return [2]int{pre + 1, max(len(b)-suf, pre+1)}
}

// text renders the report for the agent.
func (r *DiagnosticsReport) text() string {
	var sb strings.Builder
	state := ""
	if !r.Fresh {
		state = ", some servers did not answer in time"
	}
	switch {
	case len(r.Touched) == 0 && len(r.Elsewhere) == 0:
		fmt.Fprintf(&sb, "Diagnostics: no new problems (%s%s)\n", r.Waited, state)
	default:
		fmt.Fprintf(&sb, "Diagnostics: %d new on the changed lines, %d new elsewhere (%s%s)\n", len(r.Touched), len(r.Elsewhere), r.Waited, state)
		diagSection(&sb, "On the lines you changed:", r.Touched)
		diagSection(&sb, "Elsewhere (collateral):", r.Elsewhere)
	}
	for _, s := range r.Skipped {
		sb.WriteString("Diagnostics skipped: " + s + "\n")
	}
	return sb.String()
}

func diagSection(sb *strings.Builder, title string, ds []lspDiagnostic) {
	if len(ds) == 0 {
		return
	}
	sb.WriteString(title + "\n")
	for i, d := range ds {
		if i == lspDiagnosticsLimit {
			fmt.Fprintf(sb, "... %d more\n", len(ds)-i)
			break
		}
		sb.WriteString(diagRow(d))
	}
}

// formatChanged has the language server format the files just written
// and commits its edits as a second change; it returns the changes with
// their tags re-minted, and a warning per reformatted file.
func (ae *afterEdit) formatChanged(ctx context.Context, env *Env, tool string, changes []Change, allowVCS bool) []Change {
	if ae == nil || !ae.format || env.LS == nil {
		return changes
	}
	for i, c := range changes {
		if c.Op == "delete" {
			continue
		}
		p, err := env.WS.Resolve(c.Path)
		if err != nil || !env.LS.Handles(p.Abs) {
			continue
		}
		we, err := env.LS.Format(ctx, p.Abs)
		if err != nil {
			ae.warn = append(ae.warn, fmt.Sprintf("format: %s: %v", c.Path, err))
			continue
		}
		if we.Empty() {
			continue
		}
		plans, err := lspPlan(env, we, "formatted by language server")
		if err != nil || len(plans) == 0 {
			continue
		}
		opts := env.commitOptions(allowVCS)
		opts.Call = "" // (the call's own change is the one before)
		res, err := env.WS.Commit(ctx, tool, []workspace.Change{plans[0].ch}, opts)
		if err != nil {
			ae.warn = append(ae.warn, fmt.Sprintf("format: %s: %v (the unformatted text stays)", c.Path, err))
			continue
		}
		f := res.Files[0]
		changes[i].NewTag, changes[i].NewSHA256 = f.NewTag, f.NewSHA256
		ae.warn = append(ae.warn, fmt.Sprintf("%s was reformatted by the language server: its tag is now %s; read the lines again before editing them", c.Path, f.NewTag))
		env.LS.Changed(ctx, []string{p.Abs}, nil)
	}
	return changes
}
