package lsp

import (
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
		st, err := applySettings(defaultSettings(), []byte(tt.raw))
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err %v", tt.raw, err)
			continue
		}
		if got := st.editSettings(); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.raw, got, tt.want)
		}
	}
}
