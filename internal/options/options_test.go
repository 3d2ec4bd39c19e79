package options

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashls/hashls/agent"
)

func TestBoolAndOff(t *testing.T) {
	for _, v := range []string{"1", "true", "TRUE", " yes ", "On"} {
		if !Bool(v) || Off(v) {
			t.Errorf("%q: Bool %v, Off %v", v, Bool(v), Off(v))
		}
	}
	for _, v := range []string{"0", "false", "No", " off"} {
		if Bool(v) || !Off(v) {
			t.Errorf("%q: Bool %v, Off %v", v, Bool(v), Off(v))
		}
	}
	for _, v := range []string{"", "2", "maybe"} {
		if Bool(v) || Off(v) {
			t.Errorf("%q is neither yes nor no", v)
		}
	}
}

func TestFromEnv(t *testing.T) {
	env := map[string]string{
		EnvToolsets: "patch", EnvNoHub: "yes", EnvSeenLines: "off", EnvEditHeaders: "Bracket",
		EnvDiagnosticsMs: " 250 ", EnvFormatOnWrite: "1", EnvLangServerLog: "true",
		EnvMCPToken: "t", EnvMCPAllowRoots: "/a" + string(listSep) + "/b",
		EnvAgent: "codex", EnvTurn: "t1", EnvTurnGap: "90",
	}
	o := FromEnv(func(k string) string { return env[k] })
	want := agent.EditSettings{AllowUnseen: true, BracketHeaders: true, DiagnosticsWait: 250 * time.Millisecond, FormatOnWrite: true}
	if o.Agent != "codex" || o.Turn != "t1" || o.TurnGap != 90*time.Second {
		t.Errorf("attribution: %q %q %v", o.Agent, o.Turn, o.TurnGap)
	}
	for v, d := range map[string]time.Duration{"5m": 5 * time.Minute, " 1.5 ": 1500 * time.Millisecond, "-3s": 0, "soon": 0, "": 0} {
		if got := duration(v); got != d {
			t.Errorf("duration(%q) = %v, want %v", v, got, d)
		}
	}
	if o.Edit != want || !o.NoHub || !o.LangServerLog || o.MCPToken != "t" || len(o.AllowRoots) != 2 || o.Toolsets != "patch" || o.ToolsetsFrom != EnvToolsets {
		t.Errorf("FromEnv = %+v", o)
	}
	if z := FromEnv(func(string) string { return "" }); z.Edit != (agent.EditSettings{}) || z.NoHub || z.Toolsets != "" || z.AllowRoots != nil {
		t.Errorf("empty environment: %+v", z)
	}
	// Values it cannot read leave the defaults.
	bad := FromEnv(func(k string) string {
		return map[string]string{EnvDiagnosticsMs: "-3", EnvEditHeaders: "x", EnvSeenLines: "maybe"}[k]
	})
	if bad.Edit != (agent.EditSettings{}) {
		t.Errorf("unreadable values: %+v", bad.Edit)
	}
}

func TestSets(t *testing.T) {
	o := Options{}
	if s, err := o.Sets(agent.DefaultToolsets); err != nil || s.String() != agent.DefaultToolsets {
		t.Errorf("default: %v %v", s, err)
	}
	o = Options{Toolsets: "nope", ToolsetsFrom: EnvToolsets}
	if _, err := o.Sets(agent.AllToolsets); err == nil || !strings.HasPrefix(err.Error(), EnvToolsets+": ") {
		t.Errorf("a bad choice names where it was made: %v", err)
	}
}

const listSep = os.PathListSeparator
