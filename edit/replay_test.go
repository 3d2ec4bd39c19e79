package edit

import (
	"os"
	"testing"
	"time"

	"github.com/hashls/hashls/internal/replaytest"
)

// replayCorpus is the merge-replay corpus (testdata/conformance/merge-replay).
const replayCorpus = "../testdata/conformance/merge-replay"

// enginePlayer runs edits on the engine alone: a snapshot store in memory
// and no parser (the repairs and the recovery may not lean on one to get
// real edits right).
type enginePlayer struct {
	store *memStore
	files map[string]string
}

func (p *enginePlayer) Read(rel, content string) (string, error) {
	p.files[rel] = content
	p.store.record(rel, []byte(content))
	return Tag([]byte(content)), nil
}

func (p *enginePlayer) Change(rel, content string) error {
	p.files[rel] = content
	return nil
}

func (p *enginePlayer) Edit(input string) error {
	secs, err := SplitInput(input)
	if err != nil {
		return err
	}
	files := make([]File, len(secs))
	for i, s := range secs {
		files[i] = File{Path: s.Path, Key: s.Path, Bytes: []byte(p.files[s.Path])}
	}
	res, err := ApplyAll(secs, files, Options{Snapshots: p.store})
	if err != nil {
		return err
	}
	for i, r := range res {
		p.files[secs[i].Path] = string(r.New)
	}
	return nil
}

func (p *enginePlayer) Content(rel string) (string, error) { return p.files[rel], nil }

// TestMergeReplay plays every real concurrent edit of the corpus on the
// engine: the author's change on a fresh tag lands byte for byte, and on
// a stale tag (the other side's change already in the file) it lands as
// git's clean merge or is refused with the file untouched.
//
// HASHLS_MERGE_REPLAY names another folder of corpus files (the same
// format) to play instead: real history from other repositories.
func TestMergeReplay(t *testing.T) {
	dir := replayCorpus
	if d := os.Getenv("HASHLS_MERGE_REPLAY"); d != "" {
		dir = d
	}
	cs, err := replaytest.LoadAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	tally := replaytest.Run(t, &enginePlayer{store: newMemStore(), files: map[string]string{}}, cs)
	if dir == replayCorpus {
		// The figures: every fresh edit exact, at least 97% of
		// the stale ones merged, none misapplied.
		all := tally["all"]
		if all.Cases != 328 || all.Recovered < 319 {
			t.Errorf("%d cases, %d recovered: want 328 cases, at least 319 recovered", all.Cases, all.Recovered)
		}
	}
}

// BenchmarkRecoveryLargest times a stale edit's recovery (the merge) next
// to the same edit on a fresh tag, interleaved in one run, on the corpus's
// largest case by bytes and by lines; stale/fresh is their ratio.
func BenchmarkRecoveryLargest(b *testing.B) {
	cs, err := replaytest.LoadAll(replayCorpus)
	if err != nil {
		b.Fatal(err)
	}
	bytesMax, linesMax := cs[0], cs[0]
	for _, c := range cs {
		if len(c.Base) > len(bytesMax.Base) {
			bytesMax = c
		}
		if len(replaytest.Lines(c.Base)) > len(replaytest.Lines(linesMax.Base)) {
			linesMax = c
		}
	}
	for _, bc := range []struct {
		name string
		c    replaytest.Case
	}{{"bytes", bytesMax}, {"lines", linesMax}} {
		b.Run(bc.name, func(b *testing.B) {
			c := bc.c
			st := newMemStore()
			st.record("k", []byte(c.Base))
			sec := Section{Path: c.Path, Tag: Tag([]byte(c.Base)), Body: replaytest.Ops(c.Base, c.Ours)}
			fresh := File{Path: c.Path, Key: "k", Bytes: []byte(c.Base)}
			stale := File{Path: c.Path, Key: "k", Bytes: []byte(c.Theirs)}
			b.Logf("%s: %d bytes, %d lines", c.Name(), len(c.Base), len(replaytest.Lines(c.Base)))
			var tf, ts time.Duration
			for b.Loop() {
				t0 := time.Now()
				r, err := ApplySection(sec, fresh, Options{Snapshots: st})
				t1 := time.Now()
				if err != nil || string(r.New) != c.Ours {
					b.Fatalf("fresh: %v", err)
				}
				r, err = ApplySection(sec, stale, Options{Snapshots: st})
				ts += time.Since(t1)
				tf += t1.Sub(t0)
				if err != nil || string(r.New) != c.Merged {
					b.Fatalf("stale: %v", err)
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(tf.Nanoseconds())/n, "fresh-ns/op")
			b.ReportMetric(float64(ts.Nanoseconds())/n, "stale-ns/op")
			b.ReportMetric(float64(ts)/float64(tf), "stale/fresh")
		})
	}
}
