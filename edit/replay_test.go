package edit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashls/hashls/internal/replaytest"
)

// replayCorpus is the merge-replay corpus (testdata/conformance/merge-replay).
const replayCorpus = "../testdata/conformance/merge-replay"

// playReplay plays one merge-replay case on the engine alone (no parser:
// the repairs and the recovery may not lean on one to get real edits
// right) and judges both plays.
func playReplay(c replaytest.Case, opts Options) (fresh, stale replaytest.Outcome, freshRes, staleRes *Result, staleErr error) {
	key := "/root/" + c.Path
	in := replaytest.Input(c.Path, Tag([]byte(c.Base)), c)
	secs, err := SplitInput(in)
	if err != nil || len(secs) != 1 {
		return replaytest.Misapplied, replaytest.Misapplied, nil, nil, err
	}
	play := func(live string) (string, *Result, error) {
		st := newMemStore()
		st.record(key, []byte(c.Base))
		o := opts
		o.Snapshots = st
		r, err := ApplySection(secs[0], File{Path: c.Path, Key: key, Bytes: []byte(live)}, o)
		if err != nil {
			return live, nil, err
		}
		return string(r.New), r, nil
	}
	got, fr, ferr := play(c.Base)
	fresh = replaytest.Fresh(c, got, ferr)
	got, sr, serr := play(c.Theirs)
	stale = replaytest.Stale(c, got, serr)
	return fresh, stale, fr, sr, serr
}

// TestMergeReplay plays every real concurrent edit of the corpus: the
// author's change on a fresh tag must land byte for byte, and on a stale
// tag (the other side's change already in the file) it must land as git's
// clean merge or be refused with the file untouched.
//
// HASHLS_MERGE_REPLAY names another folder of corpus files (the same
// format) to play instead: real history from other repositories.
func TestMergeReplay(t *testing.T) {
	dir := replayCorpus
	if d := os.Getenv("HASHLS_MERGE_REPLAY"); d != "" {
		dir = d
	}
	files, err := replaytest.Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	var all replaytest.Tally
	for _, f := range files {
		cs, err := replaytest.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		var tl replaytest.Tally
		for _, c := range cs {
			fresh, stale, _, _, _ := playReplay(c, Options{})
			tl.Add(fresh, stale)
			all.Add(fresh, stale)
			if fresh != replaytest.Exact {
				t.Errorf("%s: fresh tag: %s", c.Name(), fresh)
			}
			if stale == replaytest.Misapplied {
				t.Errorf("%s: stale tag: misapplied", c.Name())
			}
		}
		t.Logf("%-18s %s", filepath.Base(f), tl)
	}
	t.Logf("%-18s %s", "all", all)
}
