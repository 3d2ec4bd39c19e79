package treesitter

import (
	"bytes"
	"sort"
	"strings"
)

// symbolKinds maps node kinds to symbol kinds for every grammar; names are
// specific enough across grammars that one table serves all of them, with
// per-language overrides below.
var symbolKinds = map[string]string{
	"function_declaration": "function", "function_definition": "function", "function_item": "function",
	"function_signature_item": "function", "generator_function_declaration": "function",
	"function_signature": "function", "local_function": "function",
	"method_declaration": "method", "method_definition": "method", "method_signature": "method",
	"abstract_method_signature": "method", "method_spec": "method", "method_elem": "method",
	"method": "method", "singleton_method": "method", "rpc": "method",
	"constructor_declaration": "constructor", "secondary_constructor": "constructor",
	"class_declaration": "class", "class_definition": "class", "class": "class", "class_specifier": "class",
	"abstract_class_declaration": "class", "object_declaration": "class", "object_definition": "class",
	"record_declaration": "class", "singleton_class": "class",
	"struct_item": "struct", "struct_specifier": "struct", "struct_declaration": "struct",
	"union_item": "struct", "union_specifier": "struct", "message": "struct",
	"enum_item": "enum", "enum_declaration": "enum", "enum_specifier": "enum", "enum": "enum",
	"trait_item": "interface", "interface_declaration": "interface", "protocol_declaration": "interface",
	"trait_definition": "interface", "trait_declaration": "interface", "service": "interface",
	"annotation_type_declaration": "interface",
	"impl_item":                   "object",
	"mod_item":                    "module", "module": "module", "namespace_definition": "namespace",
	"namespace_declaration": "namespace", "file_scoped_namespace_declaration": "namespace",
	"module_definition":      "module",
	"type_alias_declaration": "type", "type_item": "type", "type_alias": "type", "type_spec": "type",
	"type_definition": "type", "type_declaration": "type",
	"const_spec": "constant", "const_item": "constant", "static_item": "variable", "var_spec": "variable",
	"field_declaration": "field", "enum_variant": "enummember", "enumerator": "enummember",
	"enum_constant": "enummember", "enum_member_declaration": "enummember",
	"variable_declarator": "variable", "public_field_definition": "property", "field_definition": "property",
	"property_declaration": "property", "property_signature": "property",
	"val_definition": "variable", "var_definition": "variable", "value_definition": "variable",
	"value_declaration": "function",
	"atx_heading":       "string", "setext_heading": "string",
	"block_mapping_pair": "key", "pair": "key", "table": "module", "table_array_element": "module",
	"rule_set": "class", "media_statement": "module", "keyframes_statement": "module",
	"attribute":    "key",
	"create_table": "struct", "create_view": "struct", "create_function": "function",
	"from_instruction": "module", "function_statement": "function", "section": "string",
}

var langSymbolOverrides = map[string]map[string]string{
	"go":       {"type_declaration": "", "type_alias": "type"},
	"hcl":      {"block": "namespace"},
	"cue":      {"field": "key"},
	"html":     {"attribute": "", "element": "field", "script_element": "module", "style_element": "module"},
	"svelte":   {"attribute": "", "element": "field", "script_element": "module", "style_element": "module"},
	"markdown": {"atx_heading": "", "setext_heading": ""},
	"elm":      {"type_declaration": "enum"},
	"c":        {"type_definition": "type", "field_declaration": "field"},
	"php":      {"attribute": ""},
	"rust":     {"attribute": "", "mod_item": "module"},
}

// isFunctionish kinds hold locals that the outline skips.
func isFunctionish(kind string) bool {
	return kind == "function" || kind == "method" || kind == "constructor"
}

// baseSymbolKind is the symbol kind of node kind k in language lang when
// it depends on the kind alone; slow reports that symbolKind must look at
// the node (its children or its language) instead.
func baseSymbolKind(lang, k string) (sk string, slow bool) {
	if o, ok := langSymbolOverrides[lang]; ok {
		if v, ok := o[k]; ok {
			return v, false
		}
	}
	switch k {
	case "type_spec", "variable_declarator", "class", "field_declaration", "function_definition":
		return "", true
	}
	return symbolKinds[k], false
}

func (t *tree) symbolKind(i uint32) string {
	sym := t.nodes[i].Symbol
	if int(sym) >= len(t.lang.symKind) {
		return "" // ERROR
	}
	if !t.lang.symSlow[sym] {
		return t.lang.symKind[sym]
	}
	k := t.kind(i)
	sk := symbolKinds[k]
	switch k {
	case "type_spec":
		t.children(i, func(c uint32) bool {
			if t.fieldOf(c) == "type" {
				switch t.kind(c) {
				case "struct_type":
					sk = "struct"
				case "interface_type":
					sk = "interface"
				}
			}
			return true
		})
	case "variable_declarator":
		t.children(i, func(c uint32) bool {
			if t.fieldOf(c) == "value" {
				switch t.kind(c) {
				case "arrow_function", "function", "function_expression", "generator_function":
					sk = "function"
				case "class":
					sk = "class"
				}
			}
			return true
		})
	case "class":
		if t.lang.Name != "ruby" {
			sk = ""
		}
	case "field_declaration":
		t.children(i, func(c uint32) bool {
			if t.fieldOf(c) == "declarator" && t.kind(c) == "function_declarator" {
				sk = "method"
			}
			return true
		})
	case "function_definition":
		if t.lang.Name == "lua" {
			sk = "" // anonymous function expression
		}
	}
	return sk
}

func (t *tree) rangeOf(i uint32) Range {
	n := &t.nodes[i]
	return Range{Start: int(n.StartByte), End: int(n.EndByte),
		StartPoint: Point{int(n.StartRow), int(n.StartCol)}, EndPoint: Point{int(n.EndRow), int(n.EndCol)}}
}

func nodeText(t *tree, text []byte, i uint32) []byte {
	n := &t.nodes[i]
	if int(n.EndByte) > len(text) || n.StartByte > n.EndByte {
		return nil
	}
	return text[n.StartByte:n.EndByte]
}

func firstLine(b []byte) string {
	if j := bytes.IndexByte(b, '\n'); j >= 0 {
		b = b[:j]
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}

func isNameKind(k string) bool {
	switch k {
	case "name", "word", "constant", "key", "bare_key", "quoted_key", "dotted_key", "flow_node", "plain_scalar",
		"property_identifier", "type_identifier", "field_identifier", "simple_identifier", "identifier",
		"namespace_identifier", "inline", "heading_content", "tag_name", "selectors", "image_spec",
		"message_name", "enum_name", "service_name", "rpc_name", "scope_resolution", "qualified_identifier",
		"lower_case_identifier", "upper_case_identifier", "value_name", "type_constructor", "module_name",
		"string_lit", "string_literal", "table_name", "object_reference", "constructor_name":
		return true
	}
	return strings.HasSuffix(k, "identifier")
}

// nameNode finds the node naming declaration i.
func (t *tree) nameNode(i uint32, depth int) (uint32, bool) {
	if depth > 6 {
		return 0, false
	}
	var byField, byDecl, byType, first uint32
	var hasField, hasDecl, hasType, hasFirst bool
	t.children(i, func(c uint32) bool {
		switch t.fieldOf(c) {
		case "name":
			if !hasField {
				byField, hasField = c, true
			}
		case "declarator":
			if !hasDecl {
				byDecl, hasDecl = c, true
			}
		case "type":
			if !hasType {
				byType, hasType = c, true
			}
		}
		if !hasFirst && isNameKind(t.kind(c)) {
			first, hasFirst = c, true
		}
		return true
	})
	switch {
	case hasField:
		return byField, true
	case hasDecl:
		if isNameKind(t.kind(byDecl)) {
			return byDecl, true
		}
		if n, ok := t.nameNode(byDecl, depth+1); ok {
			return n, true
		}
		return byDecl, true
	case hasFirst:
		return first, true
	case hasType && t.kind(i) == "impl_item":
		return byType, true
	}
	// One level down (e.g. block_mapping_pair → flow_node → plain_scalar).
	var found uint32
	var ok bool
	t.children(i, func(c uint32) bool {
		if n, k := t.nameNode(c, depth+2); k {
			found, ok = n, true
		}
		return false
	})
	return found, ok
}

func (t *tree) symbolName(i uint32, text []byte) (string, uint32) {
	k := t.kind(i)
	switch k {
	case "atx_heading", "setext_heading":
		return strings.TrimSpace(strings.Trim(firstLine(nodeText(t, text, i)), "#")), i
	case "section":
		var name string
		var nn = i
		t.children(i, func(c uint32) bool {
			if k := t.kind(c); k == "atx_heading" || k == "setext_heading" {
				name, nn = strings.TrimSpace(strings.Trim(firstLine(nodeText(t, text, c)), "#")), c
			}
			return false
		})
		return name, nn
	case "rule_set", "media_statement", "keyframes_statement":
		s := firstLine(nodeText(t, text, i))
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "{"))
		return s, i
	case "element", "script_element", "style_element":
		if t.lang.Name == "html" || t.lang.Name == "svelte" {
			return t.htmlName(i, text)
		}
	case "impl_item":
		var trait, typ string
		t.children(i, func(c uint32) bool {
			switch t.fieldOf(c) {
			case "trait":
				trait = firstLine(nodeText(t, text, c))
			case "type":
				typ = firstLine(nodeText(t, text, c))
			}
			return true
		})
		if trait != "" {
			return "impl " + trait + " for " + typ, i
		}
		return "impl " + typ, i
	case "block":
		if t.lang.Name == "hcl" {
			var parts []string
			t.children(i, func(c uint32) bool {
				switch t.kind(c) {
				case "identifier", "string_lit":
					parts = append(parts, firstLine(nodeText(t, text, c)))
					return true
				}
				return false
			})
			return strings.Join(parts, " "), i
		}
	}
	if n, ok := t.nameNode(i, 0); ok {
		s := firstLine(nodeText(t, text, n))
		if s != "" {
			return s, n
		}
	}
	return firstLine(nodeText(t, text, i)), i
}

func documentSymbols(t *tree, text []byte) []Symbol {
	out := t.collectSymbols(0, text, "", 0)
	if out == nil {
		out = []Symbol{}
	}
	return out
}

// leafSymbolKinds have no interesting children (a field's declarator
// would repeat its name).
var leafSymbolKinds = mkset("field", "variable", "constant", "property", "enummember")

// elixirSymbol recognises def/defp/defmodule calls.
func (t *tree) elixirSymbol(i uint32, text []byte) (kind, name string, nameNode uint32) {
	if t.lang.Name != "elixir" || t.kind(i) != "call" {
		return "", "", 0
	}
	var target string
	var args uint32
	hasArgs := false
	t.children(i, func(c uint32) bool {
		switch {
		case t.fieldOf(c) == "target":
			target = string(nodeText(t, text, c))
		case t.kind(c) == "arguments" && !hasArgs:
			args, hasArgs = c, true
		}
		return true
	})
	if !hasArgs {
		return "", "", 0
	}
	switch target {
	case "def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate":
		kind = "function"
	case "defmodule", "defprotocol", "defimpl":
		kind = "module"
	default:
		return "", "", 0
	}
	nameNode = args
	t.children(args, func(c uint32) bool {
		nameNode = c
		if t.kind(c) == "call" {
			t.children(c, func(g uint32) bool {
				if t.fieldOf(g) == "target" {
					nameNode = g
				}
				return false
			})
		} else if t.kind(c) == "binary_operator" { // def f(x) when guard
			t.children(c, func(g uint32) bool { nameNode = g; return false })
			if t.kind(nameNode) == "call" {
				t.children(nameNode, func(g uint32) bool { nameNode = g; return false })
			}
		}
		return false
	})
	return kind, firstLine(nodeText(t, text, nameNode)), nameNode
}

func (t *tree) collectSymbols(i uint32, text []byte, parentKind string, depth int) []Symbol {
	var out []Symbol
	if depth > 200 {
		return nil
	}
	t.children(i, func(c uint32) bool {
		out = t.symbolsOf(c, text, parentKind, depth, out)
		return true
	})
	return out
}

// symbolsOf appends the symbols of the child c of a node at depth whose
// symbol kind is parentKind: they depend on c's subtree and text alone.
func (t *tree) symbolsOf(c uint32, text []byte, parentKind string, depth int, out []Symbol) []Symbol {
	if ek, en, enode := t.elixirSymbol(c, text); ek != "" {
		s := Symbol{Name: en, Kind: ek, Detail: firstLine(nodeText(t, text, c)), Range: t.rangeOf(c), Selection: t.rangeOf(enode)}
		s.Children = t.collectSymbols(c, text, ek, depth+1)
		out = append(out, s)
		return out
	}
	sk := t.symbolKind(c)
	if sk != "" && isFunctionish(parentKind) && !isFunctionish(sk) && sk != "class" && sk != "struct" {
		sk = ""
	}
	if sk == "" {
		out = append(out, t.collectSymbols(c, text, parentKind, depth+1)...)
		return out
	}
	if sk == "function" {
		switch parentKind {
		case "class", "struct", "interface", "object", "enum":
			sk = "method"
		}
	}
	if leafSymbolKinds[sk] {
		// One symbol per name: Go's `X, Y int`, `const a, b = 1, 2`.
		var names []uint32
		t.children(c, func(g uint32) bool {
			if t.fieldOf(g) == "name" {
				names = append(names, g)
			}
			return true
		})
		if len(names) > 1 {
			for _, g := range names {
				out = append(out, Symbol{Name: firstLine(nodeText(t, text, g)), Kind: sk,
					Detail: firstLine(nodeText(t, text, c)), Range: t.rangeOf(c), Selection: t.rangeOf(g)})
			}
			return out
		}
	}
	name, nn := t.symbolName(c, text)
	s := Symbol{Name: name, Kind: sk, Detail: firstLine(nodeText(t, text, c)), Range: t.rangeOf(c), Selection: t.rangeOf(nn)}
	if s.Name == "" {
		s.Name = "(anonymous)"
	}
	if !leafSymbolKinds[sk] || t.lang.Name == "html" || t.lang.Name == "svelte" {
		s.Children = t.collectSymbols(c, text, sk, depth+1)
	}
	out = append(out, s)
	return out
}

func (t *tree) isComment(i uint32) bool {
	k := t.kind(i)
	return t.is(i, classComment) || strings.Contains(k, "comment")
}

func foldingRanges(t *tree, text []byte) []FoldingRange {
	best := map[int]FoldingRange{}
	add := func(fr FoldingRange) {
		if fr.EndRow <= fr.StartRow {
			return
		}
		if old, ok := best[fr.StartRow]; !ok || fr.EndRow > old.EndRow {
			best[fr.StartRow] = fr
		}
	}
	for i := range t.nodes {
		u := uint32(i)
		if u != 0 {
			kind := "region"
			if t.isComment(u) {
				kind = "comment"
			} else if t.is(u, classImport) {
				kind = "imports"
			}
			add(FoldingRange{StartRow: int(t.nodes[u].StartRow), EndRow: t.lastRow(u), Kind: kind})
		}
		// Runs of sibling comments on consecutive rows, and of imports.
		kids := t.childList(u)
		for a := 0; a < len(kids); {
			k := kids[a]
			isC, isI := t.isComment(k), t.is(k, classImport)
			if !isC && !isI {
				a++
				continue
			}
			b := a
			for b+1 < len(kids) {
				n := kids[b+1]
				if isC && (!t.isComment(n) || int(t.nodes[n].StartRow) != t.lastRow(kids[b])+1) {
					break
				}
				if isI && !t.is(n, classImport) {
					break
				}
				b++
			}
			if b > a {
				kind := "comment"
				if isI {
					kind = "imports"
				}
				add(FoldingRange{StartRow: int(t.nodes[k].StartRow), EndRow: t.lastRow(kids[b]), Kind: kind})
			}
			a = b + 1
		}
	}
	out := make([]FoldingRange, 0, len(best))
	for _, fr := range best {
		out = append(out, fr)
	}
	sortFolds(out)
	return out
}

func sortFolds(f []FoldingRange) {
	sort.Slice(f, func(a, b int) bool { return f[a].StartRow < f[b].StartRow })
}

// selectionChain returns the ranges of the named nodes enclosing off,
// innermost first, without repeats.
func selectionChain(t *tree, off int) []Range {
	if off < 0 {
		return nil
	}
	o := uint32(off)
	cur := uint32(0)
	chain := []uint32{0}
	for {
		next := noParent
		t.children(cur, func(c uint32) bool {
			n := &t.nodes[c]
			if n.StartByte > o {
				return false
			}
			if o < n.EndByte || (o == n.EndByte && n.EndByte == t.nodes[0].EndByte) {
				next = c
				return false
			}
			return true
		})
		if next == noParent {
			break
		}
		cur = next
		chain = append(chain, cur)
	}
	out := make([]Range, 0, len(chain))
	for k := len(chain) - 1; k >= 0; k-- {
		r := t.rangeOf(chain[k])
		if len(out) > 0 && out[len(out)-1].Start == r.Start && out[len(out)-1].End == r.End {
			continue
		}
		out = append(out, r)
	}
	return out
}

// htmlName names an element like a CSS selector: tag#id.class.
func (t *tree) htmlName(i uint32, text []byte) (string, uint32) {
	name, nn := "", i
	t.children(i, func(c uint32) bool {
		if k := t.kind(c); k != "start_tag" && k != "self_closing_tag" {
			return true
		}
		t.children(c, func(a uint32) bool {
			switch t.kind(a) {
			case "tag_name":
				name, nn = string(nodeText(t, text, a)), a
			case "attribute":
				var an, av string
				t.children(a, func(x uint32) bool {
					switch t.kind(x) {
					case "attribute_name":
						an = string(nodeText(t, text, x))
					case "attribute_value", "quoted_attribute_value":
						av = strings.Trim(string(nodeText(t, text, x)), "\"'")
					}
					return true
				})
				switch an {
				case "id":
					name += "#" + av
				case "class":
					for _, c := range strings.Fields(av) {
						name += "." + c
					}
				}
			}
			return true
		})
		return false
	})
	return name, nn
}
