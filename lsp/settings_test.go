package lsp

import (
	"slices"
	"testing"
	"time"

	"github.com/hashls/hashls/agent"
)

func TestEditSettings(t *testing.T) {
	tests := []struct {
		raw     string
		want    agent.EditSettings
		wantErr bool
	}{
		{`{}`, agent.EditSettings{}, false},
		{`{"hashls":{"seenLines":false}}`, agent.EditSettings{AllowUnseen: true}, false},
		{`{"seenLines":true,"editHeaders":"bracket"}`, agent.EditSettings{BracketHeaders: true}, false},
		{`{"editHeaders":"pilcrow"}`, agent.EditSettings{}, false},
		{`{"editHeaders":"angle"}`, agent.EditSettings{}, true},
		{`{"hashls":{"diagnosticsMs":1500,"formatOnWrite":true}}`, agent.EditSettings{DiagnosticsWait: 1500 * time.Millisecond, FormatOnWrite: true}, false},
		{`{"diagnosticsMs":-1}`, agent.EditSettings{}, true},
		{`{"diagnosticsMs":60000}`, agent.EditSettings{}, true},
		{`{"formatOnWrite":"yes"}`, agent.EditSettings{}, true},
	}
	for _, tt := range tests {
		st, err := applySettings(defaultSettings(agent.Sets{}), []byte(tt.raw))
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err %v", tt.raw, err)
			continue
		}
		if got := st.editSettings(); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.raw, got, tt.want)
		}
	}
}

// TestToolsetsSetting: the toolsets setting chooses the commands, as a
// string or an array; an unknown name is refused and the old choice kept.
func TestToolsetsSetting(t *testing.T) {
	for _, tt := range []struct {
		raw     string
		want    string
		wantErr bool
	}{
		{`{}`, "all", false},
		{`{"toolsets":"hashline,history"}`, "hashline,history", false},
		{`{"hashls":{"toolsets":["stale-file","patch"]}}`, "stale-file,patch", false},
		{`{"toolsets":null}`, "all", false},
		{`{"toolsets":"nope"}`, "all", true},
		{`{"toolsets":5}`, "all", true},
	} {
		st, err := applySettings(defaultSettings(agent.Sets{}), []byte(tt.raw))
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err %v", tt.raw, err)
		}
		if st.sets.String() != tt.want {
			t.Errorf("%s: toolsets %s, want %s", tt.raw, st.sets, tt.want)
		}
	}
	// --toolsets (Options.Tools.Sets) is the default the setting overrides.
	if st, _ := applySettings(defaultSettings(agent.MustParseSets("patch")), []byte(`{}`)); st.sets.String() != "patch" {
		t.Errorf("the default from Options.Tools.Sets: %s", st.sets)
	}
	s := newServer(Options{tools: agent.New(agent.Deps{}).Tools})
	s.settings, _ = applySettings(defaultSettings(agent.Sets{}), []byte(`{"toolsets":"hashline"}`))
	if !s.hasTool("edit") || s.hasTool("edit_file") || slices.Contains(s.commandNames(), "hashls.read_file") || !slices.Contains(s.commandNames(), "hashls.read") {
		t.Errorf("hashline toolset: commands %v", s.commandNames())
	}
}
