package treesitter

import (
	"context"
	"fmt"
	"testing"
)

type summaryCase struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Lines  int    `json:"lines"`
	File   string `json:"file"`
	Expect struct {
		Summary  string `json:"summary"`
		Segments []struct {
			Kind       string `json:"kind"`
			Start, End int
		} `json:"segments"`
	} `json:"expect"`
	BFSDiverged      bool `json:"bfs_diverged_from_native"`
	Native17Segments []struct {
		Kind       string `json:"kind"`
		Start, End int
	} `json:"native_17_segments"`
}

func TestConformanceSummarySegments(t *testing.T) {
	cases := loadJSONL[summaryCase](t, "../testdata/conformance/summary/cases.jsonl")
	if len(cases) != 8 {
		t.Fatalf("want 8 summary cases, got %d", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			s, err := Summarize(context.Background(), c.Path, []byte(lfText(c.File)), DefaultSummaryOptions())
			if err != nil {
				t.Fatal(err)
			}
			if !s.Parsed || !s.Elided || s.Lines != c.Lines {
				t.Fatalf("parsed=%v elided=%v lines=%d (want %d)", s.Parsed, s.Elided, s.Lines, c.Lines)
			}
			got := fmt.Sprint(s.Segments)
			var want []Segment
			for _, g := range c.Expect.Segments {
				want = append(want, Segment{Elided: g.Kind == "elided", Start: g.Start, End: g.End})
			}
			if got != fmt.Sprint(want) {
				t.Errorf("segments\n got %v\nwant %v", got, want)
			}
			if c.BFSDiverged {
				o := DefaultSummaryOptions()
				o.SkipOverflow = true
				s, _ := Summarize(context.Background(), c.Path, []byte(lfText(c.File)), o)
				var want []Segment
				for _, g := range c.Native17Segments {
					want = append(want, Segment{Elided: g.Kind == "elided", Start: g.Start, End: g.End})
				}
				if fmt.Sprint(s.Segments) != fmt.Sprint(want) {
					t.Errorf("17.x segments\n got %v\nwant %v", s.Segments, want)
				}
			}
		})
	}
}
