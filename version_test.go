package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionOf(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}
	tests := []struct {
		name, linked string
		bi           *debug.BuildInfo
		ok           bool
		want         string
	}{
		{"devel with vcs", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs}, true, "devel (rev 0123456789ab, 2026-01-02T03:04:05Z, modified; go1.26.8)"},
		{"tagged", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}, Settings: vcs[:1]}, true, "v1.2.3 (rev 0123456789ab; go1.26.8)"},
		{"linked", "v9.9.9", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "v9.9.9 (no VCS revision"},
		{"none", "", nil, false, "devel (no build information)"},
	}
	for _, tc := range tests {
		got := versionOf(tc.linked, tc.bi, tc.ok)
		if !strings.HasPrefix(got, tc.want) || got == "(devel)" {
			t.Errorf("%s: %q, want prefix %q", tc.name, got, tc.want)
		}
	}
}
