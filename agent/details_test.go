package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashls/hashls/edit"
)

// TestDetailsWithoutDiffs: the details a transport sends beside Changes
// repeat none of their diffs, every diff is still in Changes, and the
// result's own Details (the CLI's and the LSP's) keep theirs.
func TestDetailsWithoutDiffs(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "a.txt", "old\n")
	writeRootFile(t, env, "b.txt", "b\n")
	var trashID int64 // the edit's
	type call struct {
		tool string
		args func() any
	}
	calls := []call{
		{"edit", func() any {
			return map[string]string{"input": "¶a.txt#" + edit.Tag([]byte("old\n")) + "\nreplace 1..1:\n+new"}
		}},
		{"write", func() any { return map[string]string{"path": "b.txt", "content": "B\n"} }},
		{"apply_patch", func() any {
			return map[string]string{"input": "*** Begin Patch\n*** Update File: b.txt\n@@\n-B\n+BB\n*** End Patch"}
		}},
		{"restore", func() any { return map[string]any{"id": trashID} }},
	}
	for _, c := range calls {
		t.Run(c.tool, func(t *testing.T) {
			res, err := runTool(env, c.tool, c.args())
			if err != nil {
				t.Fatal(err)
			}
			if c.tool == "edit" && len(res.Changes) == 1 && len(res.Changes[0].TrashIDs) == 1 {
				trashID = res.Changes[0].TrashIDs[0]
			}
			if len(res.Changes) == 0 || res.Changes[0].Diff == "" {
				t.Fatalf("changes %+v", res.Changes)
			}
			full, _ := json.Marshal(res.Details)
			lean, _ := json.Marshal(res.DetailsWithoutDiffs())
			if !strings.Contains(string(full), `"diff":`) {
				t.Errorf("the result's own details lost their diff: %s", full)
			}
			if strings.Contains(string(lean), `"diff":`) {
				t.Errorf("details without diffs: %s", lean)
			}
			if again, _ := json.Marshal(res.Details); string(again) != string(full) {
				t.Errorf("DetailsWithoutDiffs changed Details: %s, was %s", again, full)
			}
		})
	}
	// Details without a diff of a change are returned as they are.
	r := &Result{Details: map[string]any{"diff": "x"}}
	if d := r.DetailsWithoutDiffs().(map[string]any); d["diff"] != "x" {
		t.Errorf("a diff no change carries was dropped: %v", d)
	}
}
