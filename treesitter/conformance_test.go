package treesitter

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

type hashlineCase struct {
	Name             string  `json:"name"`
	Path             string  `json:"path"`
	File             string  `json:"file"`
	Read             *string `json:"read"`
	Input            string  `json:"input"`
	BlockResolutions []struct {
		AnchorLine int    `json:"anchorLine"`
		Start      int    `json:"start"`
		End        int    `json:"end"`
		Op         string `json:"op"`
	} `json:"block_resolutions"`
	Expect map[string]any `json:"expect"`
}

func loadJSONL[T any](t testing.TB, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c T
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// lfText is what the engine resolves blocks on: BOM-free, LF-normalised.
func lfText(s string) string {
	s = strings.TrimPrefix(s, "\ufeff")
	return strings.ReplaceAll(s, "\r\n", "\n")
}

func TestConformanceBlockResolutions(t *testing.T) {
	cases := loadJSONL[hashlineCase](t, "../testdata/conformance/hashline/cases.jsonl")
	n := 0
	for _, c := range cases {
		text := c.File
		if c.Read != nil {
			text = *c.Read
		}
		text = lfText(text)
		for _, br := range c.BlockResolutions {
			n++
			s, e, ok := DefaultResolver.BlockRange(c.Path, text, br.AnchorLine)
			if !ok || s != br.Start || e != br.End {
				t.Errorf("%s: BlockRange(%s, line %d) = %d-%d ok=%v, want %d-%d", c.Name, c.Path, br.AnchorLine, s, e, ok, br.Start, br.End)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d block resolutions found", n)
	}
}

// Block ops that the reference could not resolve must not resolve here either.
func TestConformanceBlockUnresolved(t *testing.T) {
	cases := loadJSONL[hashlineCase](t, "../testdata/conformance/hashline/cases.jsonl")
	for _, c := range cases {
		if len(c.BlockResolutions) > 0 || !strings.Contains(c.Input, "block") {
			continue
		}
		msg, _ := c.Expect["error"].(string)
		if !strings.Contains(msg, "could not resolve") && !strings.Contains(c.Name, "err") {
			continue
		}
		text := c.File
		if c.Read != nil {
			text = *c.Read
		}
		text = lfText(text)
		for _, line := range blockAnchors(c.Input) {
			if s, e, ok := DefaultResolver.BlockRange(c.Path, text, line); ok && strings.Contains(msg, "could not resolve") {
				t.Errorf("%s: line %d resolved to %d-%d, want unresolved (%q)", c.Name, line, s, e, msg)
			}
		}
	}
}

// blockAnchors extracts N from "replace block N:", "delete block N", "insert after block N:".
func blockAnchors(input string) []int {
	var out []int
	for _, l := range strings.Split(input, "\n") {
		i := strings.Index(l, "block ")
		if i < 0 || !(strings.HasPrefix(l, "replace") || strings.HasPrefix(l, "delete") || strings.HasPrefix(l, "insert")) {
			continue
		}
		n := 0
		for _, r := range l[i+6:] {
			if r < '0' || r > '9' {
				break
			}
			n = n*10 + int(r-'0')
		}
		if n > 0 {
			out = append(out, n)
		}
	}
	return out
}
