package agent

import "testing"

// TestHints: every tool declares its hints (a new tool must say whether it
// only reads), and the read-only set is exactly the tools that change
// nothing.
func TestHints(t *testing.T) {
	want := map[string]Hints{
		"apply_patch":    {Destructive: true},
		"audit":          {ReadOnly: true, Idempotent: true},
		"edit":           {Destructive: true},
		"find":           {ReadOnly: true, Idempotent: true},
		"read":           {ReadOnly: true, Idempotent: true},
		"restore":        {Destructive: true, Idempotent: true},
		"revert":         {Destructive: true},
		"search":         {ReadOnly: true, Idempotent: true},
		"trash":          {ReadOnly: true, Idempotent: true},
		"write":          {Destructive: true, Idempotent: true},
		"read_file":      {ReadOnly: true, Idempotent: true},
		"list_directory": {ReadOnly: true, Idempotent: true},
		"search_files":   {ReadOnly: true, Idempotent: true},
		"glob":           {ReadOnly: true, Idempotent: true},
		"lsp":            {ReadOnly: true, Idempotent: true},
		"lsp_edit":       {Destructive: true},
		"create_file":    {},
		"write_file":     {Destructive: true, Idempotent: true},
		"edit_file":      {Destructive: true},
		"delete_file":    {Destructive: true},
		"restore_file":   {Destructive: true},
		"move_file":      {Destructive: true},
	}
	for _, tool := range New(Deps{}).Tools() {
		t.Run(tool.Name(), func(t *testing.T) {
			if _, ok := tool.(Hinted); !ok {
				t.Fatalf("tool %s declares no Hints; add a Hints method in agent/hints.go", tool.Name())
			}
			got := HintsOf(tool)
			if got.Title == "" {
				t.Errorf("tool %s: empty Title", tool.Name())
			}
			got.Title = ""
			w, ok := want[tool.Name()]
			if !ok {
				t.Fatalf("tool %s is missing from this test's table", tool.Name())
			}
			if got != w {
				t.Errorf("tool %s: hints %+v, want %+v", tool.Name(), got, w)
			}
			if GuideOf(tool) == "" {
				t.Errorf("tool %s: empty guide", tool.Name())
			}
		})
	}
}
