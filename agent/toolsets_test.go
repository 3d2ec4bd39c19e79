package agent

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestToolsets: every tool is in a named set, the sets parse as written,
// and a Toolset built over a choice lists, looks up and runs only its
// tools.
func TestToolsets(t *testing.T) {
	all := New(Deps{})
	for _, tool := range all.Tools() {
		if len(setsOf(tool.Name())) == 0 {
			t.Errorf("tool %s is in no toolset; add it to one in agent/toolsets.go", tool.Name())
		}
	}
	for _, def := range toolsets {
		for _, name := range def.Tools {
			if _, ok := all.Lookup(name); !ok {
				t.Errorf("toolset %s names %s, which is no tool", def.Name, name)
			}
		}
	}
	for _, tc := range []struct {
		spec  string
		want  []string // tools offered; nil: all
		str   string
		error string
	}{
		{spec: "hashline", want: []string{"edit", "find", "read", "search", "write"}, str: "hashline"},
		{spec: "hashline,history", want: []string{"audit", "edit", "find", "read", "restore", "revert", "search", "trash", "write"}, str: "hashline,history"},
		{spec: " History  hashline,history ", want: []string{"audit", "edit", "find", "read", "restore", "revert", "search", "trash", "write"}, str: "history,hashline"},
		{spec: "patch lsp", want: []string{"apply_patch", "lsp", "lsp_edit"}, str: "patch,lsp"},
		{spec: "stale-file", want: []string{"create_file", "delete_file", "edit_file", "glob", "list_directory", "move_file", "read_file", "restore_file", "search_files", "write_file"}, str: "stale-file"},
		{spec: "hashline,all", str: "all"},
		{spec: "all", str: "all"},
		{spec: "", error: "no toolset named"},
		{spec: " , ", error: "no toolset named"},
		{spec: "hashline,nope", error: `unknown toolset "nope"; toolsets: hashline, history, stale-file, patch, lsp, all`},
	} {
		s, err := ParseSets(tc.spec)
		if tc.error != "" {
			if err == nil || !strings.Contains(err.Error(), tc.error) {
				t.Errorf("ParseSets(%q) = %v, want an error with %q", tc.spec, err, tc.error)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseSets(%q): %v", tc.spec, err)
			continue
		}
		if s.String() != tc.str {
			t.Errorf("ParseSets(%q).String() = %q, want %q", tc.spec, s, tc.str)
		}
		var got []string
		for _, tool := range New(Deps{Sets: s}).Tools() {
			got = append(got, tool.Name())
		}
		want := tc.want
		if want == nil {
			for _, tool := range all.Tools() {
				want = append(want, tool.Name())
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("tools of %q: %v, want %v", tc.spec, got, want)
		}
	}

	env := newTestEnv(t)
	ts := New(Deps{WS: env.WS, Sets: MustParseSets("hashline")})
	if _, ok := ts.Lookup("read_file"); ok {
		t.Error("Lookup(read_file) found a tool the hashline set does not offer")
	}
	_, err := ts.Run(context.Background(), "read_file", []byte(`{"path":"a"}`), Call{Transport: "mcp"})
	ae := AsError(err)
	if ae.Kind != KindUsage || !strings.Contains(ae.Message, "tool read_file is not offered: the toolsets chosen are hashline, and read_file is in stale-file") ||
		!strings.Contains(ae.SuggestedAction, "HASHLS_TOOLSETS=hashline,stale-file") {
		t.Errorf("read_file outside the chosen sets: %+v", ae)
	}
}
