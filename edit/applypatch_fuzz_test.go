package edit

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// renderPatch prints a parsed patch back in canonical form.
func renderPatch(p *Patch) string {
	var sb strings.Builder
	sb.WriteString("*** Begin Patch\n")
	if p.EnvironmentID != "" {
		sb.WriteString(envIDMarker + " " + p.EnvironmentID + "\n")
	}
	for _, op := range p.Ops {
		switch op.Kind {
		case PatchAdd:
			sb.WriteString(addFileMarker + op.Path + "\n")
			for _, l := range strings.SplitAfter(op.Content, "\n") {
				if l != "" {
					sb.WriteString("+" + l)
				}
			}
		case PatchDelete:
			sb.WriteString(deleteFileMarker + op.Path + "\n")
		case PatchUpdate:
			sb.WriteString(updateFileMarker + op.Path + "\n")
			if op.MoveTo != "" {
				sb.WriteString(moveToMarker + op.MoveTo + "\n")
			}
			for _, c := range op.Chunks {
				if len(c.Contexts) == 0 {
					sb.WriteString("@@\n")
				}
				for _, ctx := range c.Contexts {
					sb.WriteString("@@ " + ctx + "\n")
				}
				for _, l := range c.Lines {
					sb.WriteString(string(l.Op) + l.Text + "\n")
				}
				if c.EOF {
					sb.WriteString(eofMarker + "\n")
				}
			}
		}
	}
	sb.WriteString("*** End Patch\n")
	return sb.String()
}

// roundTrips reports whether the patch's texts survive printing unchanged
// (a trailing CR is eaten as a CRLF break; a context that itself looks like
// a unified-diff range is stripped again).
func roundTrips(p *Patch) bool {
	for _, op := range p.Ops {
		if strings.HasSuffix(op.Content, "\r\n") || strings.Contains(op.Content, "\r\n") {
			return false
		}
		for _, c := range op.Chunks {
			for _, ctx := range c.Contexts {
				if strings.HasSuffix(ctx, "\r") || unifiedRangeRE().MatchString(ctx) {
					return false
				}
			}
			for _, l := range c.Lines {
				if strings.HasSuffix(l.Text, "\r") {
					return false
				}
			}
		}
	}
	return true
}

func stripLines(ops []PatchOp) []PatchOp {
	out := make([]PatchOp, len(ops))
	for i, op := range ops {
		op.Line = 0
		if op.Chunks != nil {
			cs := make([]PatchChunk, len(op.Chunks))
			for j, c := range op.Chunks {
				c.Line = 0
				cs[j] = c
			}
			op.Chunks = cs
		}
		out[i] = op
	}
	return out
}

// FuzzParsePatch checks that ParsePatch and ApplyPatchChunks never panic,
// that a parsed patch is well formed and prints back to the same operations,
// and that an applied update keeps the BOM and ends with a line break.
func FuzzParsePatch(f *testing.F) {
	if fh, err := os.Open("../testdata/conformance/apply_patch/cases.jsonl"); err == nil {
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var c struct {
				Patch  string            `json:"patch"`
				Before map[string]string `json:"before"`
			}
			if json.Unmarshal(sc.Bytes(), &c) == nil {
				file := ""
				for _, v := range c.Before {
					file = v
					break
				}
				f.Add(c.Patch, []byte(file))
			}
		}
		fh.Close()
	}
	f.Add("*** Begin Patch\n*** Update File: a\n@@ class A\n@@ -1,2 +1,2 @@ def f\n x\n-y\n+z\n*** End of File\n*** End Patch", []byte("\xEF\xBB\xBFclass A\r\ndef f\rx\ny"))
	f.Add("<<'EOF'\n*** Begin Patch\n*** Add File: a\n+\n*** End Patch\nEOF", []byte{})
	f.Fuzz(func(t *testing.T, text string, file []byte) {
		p, err := ParsePatch(text)
		if err != nil {
			if e, ok := err.(*Error); !ok || e.Kind != KindParse || e.Msg == "" {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		if len(p.Ops) == 0 {
			t.Fatal("no ops without an error")
		}
		for _, op := range p.Ops {
			if op.Path == "" || strings.TrimSpace(op.Path) != op.Path {
				t.Fatalf("bad path %q", op.Path)
			}
			if op.Kind == PatchUpdate && len(op.Chunks) == 0 {
				t.Fatal("update without chunks")
			}
			for _, c := range op.Chunks {
				if len(c.Lines) == 0 {
					t.Fatal("chunk without lines")
				}
			}
			if op.Kind == PatchAdd && op.Content != "" && !strings.HasSuffix(op.Content, "\n") {
				t.Fatalf("add content %q lacks its final newline", op.Content)
			}
		}
		if roundTrips(p) {
			q, err := ParsePatch(renderPatch(p))
			if err != nil {
				t.Fatalf("printed patch does not parse: %v\n%s", err, renderPatch(p))
			}
			if !reflect.DeepEqual(stripLines(p.Ops), stripLines(q.Ops)) || p.EnvironmentID != q.EnvironmentID {
				t.Fatalf("round trip changed the patch:\n%#v\n%#v", p.Ops, q.Ops)
			}
		}
		for _, op := range p.Ops {
			if op.Kind != PatchUpdate {
				continue
			}
			out, err := ApplyPatchChunks(op.Path, file, op.Chunks)
			if err != nil {
				if e, ok := err.(*Error); !ok || e.Kind != KindApply {
					t.Fatalf("apply error %T %v", err, err)
				}
				continue
			}
			body := strings.TrimPrefix(string(out), string(utf8BOM))
			if strings.HasPrefix(string(file), string(utf8BOM)) != (len(body) < len(out)) {
				t.Fatalf("BOM not kept: %q → %q", file, out)
			}
			if body != "" && !strings.HasSuffix(body, "\n") && !strings.HasSuffix(body, "\r") {
				t.Fatalf("result lacks a final line break: %q", out)
			}
		}
	})
}
