package agent

import "testing"

// TestApplyPatchResult renders apply_patch's summary from plain file
// entries, without a patch or a commit: added, then modified, then deleted.
func TestApplyPatchResult(t *testing.T) {
	files := []applyPatchFile{
		{Path: "gone.txt", Op: "delete", TrashIDs: []int64{7}},
		{Path: "b.go", Op: "update", Tag: "BBBB", Diff: "--- a/b.go\n+++ b/b.go\n@@ -1 +1 @@\n-x\n+y\n", MovedFrom: "a.go"},
		{Path: "new.txt", Op: "add", Tag: "CCCC", Diff: "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+1\n+2\n"},
		{Path: "same.go", Op: "update", Tag: "DDDD", Unchanged: true},
	}
	want := "Success. Applied the patch: 1 added, 2 modified, 1 deleted.\n" +
		"¶new.txt#CCCC\nA new.txt: new file; 2 lines\n" +
		"¶b.go#BBBB\nM b.go: moved from a.go; +1 -1 lines\n" +
		"¶same.go#DDDD\nM same.go: unchanged (the chunks change nothing)\n" +
		"D gone.txt: deleted; old content in trash #7"
	if got := applyPatchResult(files).Text; got != want {
		t.Errorf("text\n%s\nwant\n%s", got, want)
	}
}
