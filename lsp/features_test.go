package lsp

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

const goSrc = "package p\n\n// 😀 comment\nfunc Alpha(x int) int {\n\tif x > 0 {\n\t\treturn x\n\t}\n\treturn 0\n}\n\ntype T struct {\n\tA int\n}\n\nfunc (t T) M() {}\n"

func TestDocumentSymbols(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	u := c.open("s.go", "", goSrc)
	var syms []protocol.DocumentSymbol
	if err := c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": u}}, &syms); err != nil {
		t.Fatal(err)
	}
	names := map[string]protocol.DocumentSymbol{}
	var walk func([]protocol.DocumentSymbol)
	walk = func(ss []protocol.DocumentSymbol) {
		for _, s := range ss {
			names[s.Name] = s
			walk(s.Children)
		}
	}
	walk(syms)
	alpha, ok := names["Alpha"]
	if !ok {
		t.Fatalf("no Alpha in %+v", syms)
	}
	if alpha.Kind != protocol.SymbolKindFunction || alpha.Range.Start.Line != 3 || alpha.Range.End.Line != 8 {
		t.Errorf("Alpha = kind %d range %+v", alpha.Kind, alpha.Range)
	}
	if alpha.SelectionRange.Start != (protocol.Position{Line: 3, Character: 5}) {
		t.Errorf("Alpha selection %+v", alpha.SelectionRange)
	}
	if _, ok := names["T"]; !ok {
		t.Errorf("no T in %+v", syms)
	}
	// Unknown language: empty, not an error.
	u2 := c.open("notes.unknownext", "", "whatever")
	var none []protocol.DocumentSymbol
	if err := c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": u2}}, &none); err != nil || len(none) != 0 {
		t.Fatalf("unknown language: %v %v", none, err)
	}
	// Not open: InvalidParams.
	if err := c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": "file:///not/open.go"}}, nil); err == nil {
		t.Fatal("symbols of a closed document")
	}
}

func TestFoldingRanges(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	u := c.open("f.go", "", goSrc)
	var frs []protocol.FoldingRange
	if err := c.call("textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": u}}, &frs); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range frs {
		if f.StartLine == 3 && f.EndLine >= 7 {
			found = true
		}
		if f.EndLine <= f.StartLine {
			t.Errorf("empty fold %+v", f)
		}
	}
	if !found {
		t.Fatalf("no fold for Alpha's body: %+v", frs)
	}
}

func TestSelectionRanges(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	u := c.open("sel.go", "", goSrc)
	var srs []protocol.SelectionRange
	pos := []protocol.Position{{Line: 5, Character: 10}, {Line: 0, Character: 0}, {Line: 99, Character: 0}}
	if err := c.call("textDocument/selectionRange", map[string]any{"textDocument": map[string]any{"uri": u}, "positions": pos}, &srs); err != nil {
		t.Fatal(err)
	}
	if len(srs) != len(pos) {
		t.Fatalf("%d results for %d positions", len(srs), len(pos))
	}
	// The chain grows strictly outwards.
	depth := 0
	for r := &srs[0]; r != nil; r = r.Parent {
		depth++
		if p := r.Parent; p != nil {
			if less(r.Range.Start, p.Range.Start) || less(p.Range.End, r.Range.End) || r.Range == p.Range {
				t.Fatalf("parent %+v does not strictly contain %+v", p.Range, r.Range)
			}
		}
	}
	if depth < 3 {
		t.Fatalf("selection chain too short: %d", depth)
	}
}

func less(a, b protocol.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

func TestCodeActions(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	u := c.open("ca.go", goSrc, goSrc)
	var actions []map[string]any
	// Cursor on the first line of Alpha.
	params := map[string]any{"textDocument": map[string]any{"uri": u}, "range": lspRange(3, 2, 3, 2), "context": map[string]any{"diagnostics": []any{}}}
	if err := c.call("textDocument/codeAction", params, &actions); err != nil {
		t.Fatal(err)
	}
	titles := map[string]map[string]any{}
	for _, a := range actions {
		titles[a["title"].(string)] = a
	}
	// Delete takes the doc comment (line 3) with the block.
	del, ok := titles["Delete block (lines 3–9)"]
	if !ok {
		t.Fatalf("no delete action for Alpha: %v", keys(titles))
	}
	if _, ok := titles["Select block (lines 4–9)"]; !ok {
		t.Fatalf("no select action: %v", keys(titles))
	}
	if _, ok := titles["Outline this file"]; !ok {
		t.Fatalf("no outline action: %v", keys(titles))
	}
	// The delete edit removes exactly lines 3-9.
	b, _ := json.Marshal(del["edit"])
	if !strings.Contains(string(b), `"start":{"character":0,"line":2}`) || !strings.Contains(string(b), `"end":{"character":0,"line":9}`) {
		t.Fatalf("delete edit: %s", b)
	}
	// `only` filters.
	var onlySource []map[string]any
	params["context"] = map[string]any{"diagnostics": []any{}, "only": []string{"source"}}
	if err := c.call("textDocument/codeAction", params, &onlySource); err != nil {
		t.Fatal(err)
	}
	if len(onlySource) != 1 || onlySource[0]["title"] != "Outline this file" {
		t.Fatalf("only=source: %v", onlySource)
	}

	// hashls.selectBlock
	var sel struct {
		Range     protocol.Range `json:"range"`
		StartLine int            `json:"startLine"`
		EndLine   int            `json:"endLine"`
	}
	if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.selectBlock", "arguments": []any{map[string]any{"uri": u, "line": 5}}}, &sel); err != nil {
		t.Fatal(err)
	}
	// Line 5 begins the if block (lines 5-7).
	if sel.StartLine != 5 || sel.EndLine != 7 || sel.Range.Start.Line != 4 || sel.Range.End.Line != 6 {
		t.Fatalf("selectBlock = %+v", sel)
	}

	// hashls.copyBlockAnchor mints a tag through the read tool.
	var anchor struct {
		Text string `json:"text"`
		Tag  string `json:"tag"`
	}
	if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.copyBlockAnchor", "arguments": []any{map[string]any{"uri": u, "line": 4}}}, &anchor); err != nil {
		t.Fatal(err)
	}
	if len(anchor.Tag) != 4 || anchor.Text != "¶ca.go#"+anchor.Tag+"\nreplace block 4:" {
		t.Fatalf("anchor = %+v", anchor)
	}

	// hashls.outline returns the read tool's structural summary.
	var outline struct {
		Text string `json:"text"`
	}
	if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.outline", "arguments": []any{map[string]any{"uri": u}}}, &outline); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(outline.Text, "¶ca.go#") || !strings.Contains(outline.Text, "Alpha") {
		t.Fatalf("outline = %q", outline.Text)
	}

	// hashls.toolSchemas lists every tool command with its schema.
	var schemas struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.toolSchemas", "arguments": []any{map[string]any{}}}, &schemas); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ts := range schemas.Tools {
		var sch struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(ts.InputSchema, &sch); err != nil || sch.Type != "object" || ts.Description == "" {
			t.Fatalf("tool %s: schema %s (%v), description %q", ts.Name, ts.InputSchema, err, ts.Description)
		}
		names = append(names, ts.Name)
	}
	if !slices.IsSorted(names) || !slices.Contains(names, "edit") || !slices.Contains(names, "search_files") {
		t.Fatalf("toolSchemas names = %v", names)
	}

	// Bad arguments.
	if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.selectBlock", "arguments": []any{map[string]any{"uri": u}}}, nil); err == nil {
		t.Fatal("selectBlock without a line")
	}
}

func keys(m map[string]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
