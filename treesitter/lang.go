package treesitter

import (
	"path/filepath"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/hashls/hashls/treesitter/internal/reparser"
	"github.com/smacker/go-tree-sitter/bash"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/css"
	"github.com/smacker/go-tree-sitter/cue"
	"github.com/smacker/go-tree-sitter/dockerfile"
	"github.com/smacker/go-tree-sitter/elixir"
	"github.com/smacker/go-tree-sitter/elm"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/groovy"
	"github.com/smacker/go-tree-sitter/hcl"
	"github.com/smacker/go-tree-sitter/html"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/kotlin"
	"github.com/smacker/go-tree-sitter/lua"
	markdown "github.com/smacker/go-tree-sitter/markdown/tree-sitter-markdown"
	"github.com/smacker/go-tree-sitter/ocaml"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/protobuf"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/scala"
	"github.com/smacker/go-tree-sitter/sql"
	"github.com/smacker/go-tree-sitter/svelte"
	"github.com/smacker/go-tree-sitter/swift"
	"github.com/smacker/go-tree-sitter/toml"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
	"github.com/smacker/go-tree-sitter/yaml"
)

// Language is one supported grammar and the per-language tables the
// algorithms use.
type Language struct {
	Name    string // e.g. "go", "python", "tsx"
	grammar func() *sitter.Language

	comments   set // comment node kinds elided by summaries (spanning ≥ minCommentLines)
	elidable   set // body kinds elided by summaries
	imports    set // import kinds grouped into runs by summaries
	containers set // body containers without delimiters: block resolution never climbs into them
	closers    set // named closing-delimiter nodes (`}` of HCL, `</p>`): a line starting one resolves to no block
	// trim moves node boundaries off leading and trailing whitespace. Some
	// grammars outside the reference's ten attach blank lines to nodes (TOML
	// tables, YAML pairs) or start nodes at the previous line's end (Lua).
	trim bool

	once    sync.Once
	lang    *sitter.Language
	syms    []string            // symbol id → kind
	class   []uint8             // symbol id → classComment|classElidable|...
	symKind []string            // symbol id → symbol kind when it depends on the node kind alone
	symSlow []bool              // symbol id → the symbol kind needs a look at the node (see symbolKind)
	fields  []string            // field id → field name
	parsers chan *sitter.Parser // idle parsers (one goroutine uses a parser at a time)

	reparsers chan *reparser.Parser // idle parsers of the patched runtime, for reparses
}

type set map[string]bool

func mkset(kinds ...string) set {
	s := make(set, len(kinds))
	for _, k := range kinds {
		s[k] = true
	}
	return s
}

func (l *Language) init() {
	l.once.Do(func() {
		l.lang = l.grammar()
		n := int(l.lang.SymbolCount())
		l.syms = make([]string, n)
		l.class = make([]uint8, n)
		l.symKind = make([]string, n)
		l.symSlow = make([]bool, n)
		for i := 0; i < n; i++ {
			k := l.lang.SymbolName(sitter.Symbol(i))
			l.syms[i] = k
			l.symKind[i], l.symSlow[i] = baseSymbolKind(l.Name, k)
			for bit, set := range map[uint8]set{classComment: l.comments, classElidable: l.elidable,
				classImport: l.imports, classContainer: l.containers, classCloser: l.closers} {
				if set[k] {
					l.class[i] |= bit
				}
			}
		}
		l.fields = []string{""}
		for i := 1; i < 1<<12; i++ {
			name := l.lang.FieldName(i)
			if name == "" {
				break
			}
			l.fields = append(l.fields, name)
		}
	})
}

func (l *Language) kind(sym uint16) string {
	if int(sym) < len(l.syms) {
		return l.syms[sym]
	}
	if sym == 0xFFFF {
		return "ERROR"
	}
	return ""
}

// Symbol classes (bits of Language.class).
const (
	classComment uint8 = 1 << iota
	classElidable
	classImport
	classContainer
	classCloser
)

func (l *Language) is(sym uint16, class uint8) bool {
	return int(sym) < len(l.class) && l.class[sym]&class != 0
}

func (l *Language) field(id uint16) string {
	if int(id) < len(l.fields) {
		return l.fields[id]
	}
	return ""
}

// languages lists every grammar, the first ten the reference's; built on
// first use (its sets are hundreds of allocations every process would pay
// at init), with byName.
func languages() []*Language { return langTable().list }

// byName is every language by name.
func byName() map[string]*Language { return langTable().byName }

var langTable = sync.OnceValue(func() (t struct {
	list   []*Language
	byName map[string]*Language
}) {
	t.list = buildLanguages()
	t.byName = map[string]*Language{}
	for _, l := range t.list {
		l.trim = !referenceLanguages[l.Name]
		l.parsers = make(chan *sitter.Parser, 4)
		l.reparsers = make(chan *reparser.Parser, 4)
		if l.closers == nil {
			l.closers = set{}
		}
		if l.imports == nil {
			l.imports = set{}
		}
		if l.containers == nil {
			l.containers = set{}
		}
		t.byName[l.Name] = l
	}
	return t
})

// buildLanguages makes the grammar table; langTable calls it once.
//
// Long: a table, one entry per language (32 of them), with no logic: its
// complexity is 1.
func buildLanguages() []*Language {
	var (
		cComments = mkset("comment")
		jsElide   = mkset("statement_block", "function_body", "object", "array", "template_string",
			"class_body", "interface_body", "enum_body", "object_type", "switch_body", "jsx_element",
			"jsx_self_closing_element")
		cElide = mkset("compound_statement", "initializer_list", "string_literal", "field_declaration_list",
			"enumerator_list", "concatenated_string")
	)
	return []*Language{
		{Name: "typescript", grammar: typescript.GetLanguage, comments: cComments, elidable: jsElide,
			imports: mkset("import_statement")},
		{Name: "tsx", grammar: tsx.GetLanguage, comments: cComments, elidable: jsElide,
			imports: mkset("import_statement")},
		{Name: "javascript", grammar: javascript.GetLanguage, comments: cComments, elidable: jsElide,
			imports: mkset("import_statement")},
		{Name: "python", grammar: python.GetLanguage, comments: cComments,
			elidable: mkset("block", "dictionary", "list", "set", "string", "tuple", "argument_list", "parameters",
				"parenthesized_expression", "list_comprehension", "set_comprehension", "dictionary_comprehension",
				"generator_expression", "import_from_statement", "subscript"),
			imports:    mkset("import_statement", "import_from_statement", "future_import_statement"),
			containers: mkset("block")},
		{Name: "go", grammar: golang.GetLanguage, comments: cComments,
			elidable: mkset("block", "composite_literal", "interpreted_string_literal", "raw_string_literal",
				"import_spec_list", "const_declaration", "var_declaration", "field_declaration_list", "interface_type",
				"expression_switch_statement", "type_switch_statement", "select_statement"),
			imports: mkset("import_declaration")},
		{Name: "rust", grammar: rust.GetLanguage, comments: mkset("block_comment"),
			elidable: mkset("block", "array_expression", "tuple_expression", "struct_expression", "match_block",
				"raw_string_literal", "declaration_list", "field_declaration_list", "ordered_field_declaration_list",
				"enum_variant_list", "where_clause", "use_list", "macro_definition", "token_tree"),
			imports: mkset("use_declaration", "extern_crate_declaration")},
		{Name: "java", grammar: java.GetLanguage, comments: mkset("block_comment"),
			elidable: mkset("block", "array_initializer", "class_body", "interface_body", "enum_body",
				"annotation_type_body", "constructor_body", "switch_block", "string_literal"),
			imports: mkset("import_declaration")},
		{Name: "c", grammar: c.GetLanguage, comments: cComments, elidable: cElide,
			imports: mkset("preproc_include")},
		{Name: "cpp", grammar: cpp.GetLanguage, comments: cComments,
			elidable: union(cElide, mkset("declaration_list", "raw_string_literal", "requires_clause")),
			imports:  mkset("preproc_include")},
		{Name: "ruby", grammar: ruby.GetLanguage, comments: cComments,
			elidable:   mkset("body_statement", "method", "do_block", "array", "hash", "block", "case", "heredoc_body"),
			imports:    set{},
			containers: mkset("body_statement", "then")},

		// Languages beyond the reference's ten: kinds chosen the same way
		// (bodies with their own delimiters, literals, long strings).
		{Name: "bash", grammar: bash.GetLanguage, comments: cComments,
			elidable: mkset("compound_statement", "do_group", "case_statement", "heredoc_body", "array")},
		{Name: "csharp", grammar: csharp.GetLanguage, comments: cComments,
			elidable: mkset("block", "declaration_list", "enum_member_declaration_list", "initializer_expression",
				"switch_body", "accessor_list", "verbatim_string_literal", "raw_string_literal"),
			imports: mkset("using_directive")},
		{Name: "css", grammar: css.GetLanguage, comments: cComments, elidable: mkset("block"),
			imports: mkset("import_statement")},
		{Name: "cue", grammar: cue.GetLanguage, comments: cComments,
			elidable: mkset("struct_lit", "list_lit"), imports: mkset("import_declaration")},
		{Name: "dockerfile", grammar: dockerfile.GetLanguage, comments: cComments,
			elidable: mkset("shell_command", "heredoc_block")},
		{Name: "elixir", grammar: elixir.GetLanguage, comments: cComments,
			elidable:   mkset("do_block", "list", "map", "tuple", "keywords", "string", "sigil"),
			imports:    set{},
			containers: mkset("body")},
		{Name: "elm", grammar: elm.GetLanguage, comments: mkset("block_comment"),
			elidable: mkset("record_expr", "list_expr", "case_of_expr", "let_in_expr", "type_declaration"),
			imports:  mkset("import_clause")},
		{Name: "groovy", grammar: groovy.GetLanguage, comments: cComments,
			elidable: mkset("closure", "block", "list", "map"), imports: mkset("groovy_import")},
		{Name: "hcl", grammar: hcl.GetLanguage, comments: cComments,
			elidable:   mkset("body", "object", "tuple", "heredoc_template"),
			containers: mkset("body"), closers: mkset("block_end", "object_end", "tuple_end")},
		{Name: "html", grammar: html.GetLanguage, comments: cComments,
			elidable: mkset("element", "script_element", "style_element"),
			closers:  mkset("end_tag", "erroneous_end_tag")},
		{Name: "kotlin", grammar: kotlin.GetLanguage, comments: mkset("multiline_comment", "comment"),
			elidable: mkset("class_body", "function_body", "control_structure_body", "enum_class_body",
				"lambda_literal", "when_expression", "statements", "string_literal"),
			imports:    mkset("import_header"),
			containers: mkset("statements")},
		{Name: "lua", grammar: lua.GetLanguage, comments: cComments,
			elidable: mkset("function_statement", "function_definition", "tableconstructor", "string", "if_statement",
				"for_statement", "for_in_statement", "while_statement", "repeat_statement", "do_statement"),
			containers: mkset("function_body", "block"),
			closers: mkset("function_end", "if_end", "for_end", "while_end", "do_end", "repeat_end",
				"function_body_end")},
		{Name: "markdown", grammar: markdown.GetLanguage, comments: mkset("html_block"),
			elidable: mkset("section", "fenced_code_block", "list", "block_quote"),
			closers:  mkset("fenced_code_block_delimiter")},
		{Name: "ocaml", grammar: ocaml.GetLanguage, comments: cComments,
			elidable: mkset("structure", "signature", "object_expression", "record_expression", "list_expression",
				"match_expression", "value_definition", "type_definition", "module_definition")},
		{Name: "php", grammar: php.GetLanguage, comments: cComments,
			elidable: mkset("compound_statement", "declaration_list", "array_creation_expression", "match_block",
				"enum_declaration_list", "heredoc"),
			imports: mkset("namespace_use_declaration")},
		{Name: "protobuf", grammar: protobuf.GetLanguage, comments: cComments,
			elidable: mkset("message_body", "enum_body", "service"),
			imports:  mkset("import")},
		{Name: "scala", grammar: scala.GetLanguage, comments: mkset("block_comment", "comment"),
			elidable: mkset("template_body", "block", "case_block", "indented_block", "indented_cases",
				"arguments"),
			imports:    mkset("import_declaration"),
			containers: mkset("indented_block", "indented_cases")},
		{Name: "sql", grammar: sql.GetLanguage, comments: mkset("comment", "marginalia"),
			elidable: mkset("column_definitions", "subquery", "list")},
		{Name: "svelte", grammar: svelte.GetLanguage, comments: cComments,
			elidable: mkset("element", "script_element", "style_element", "if_statement", "each_statement",
				"await_statement", "raw_text"),
			closers: mkset("end_tag", "if_end_expr", "each_end_expr", "await_end_expr")},
		{Name: "swift", grammar: swift.GetLanguage, comments: mkset("multiline_comment", "comment"),
			elidable: mkset("class_body", "function_body", "protocol_body", "enum_class_body", "statements",
				"array_literal", "dictionary_literal", "lambda_literal", "switch_statement"),
			imports:    mkset("import_declaration"),
			containers: mkset("statements")},
		{Name: "toml", grammar: toml.GetLanguage, comments: cComments,
			elidable: mkset("table", "table_array_element", "array", "inline_table")},
		{Name: "yaml", grammar: yaml.GetLanguage, comments: cComments,
			elidable:   mkset("block_mapping", "block_sequence", "flow_mapping", "flow_sequence", "block_scalar"),
			containers: mkset("block_node", "block_mapping", "block_sequence")},
	}
}

func union(sets ...set) set {
	out := set{}
	for _, s := range sets {
		for k := range s {
			out[k] = true
		}
	}
	return out
}

// referenceLanguages are the ten the reference engine was measured on:
// their node boundaries are used exactly as the grammar gives them.
var referenceLanguages = mkset("typescript", "tsx", "javascript", "python", "go", "rust", "java", "c", "cpp", "ruby")

var extensions = map[string]string{
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
	".tsx": "tsx",
	".js":  "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
	".py": "python", ".pyi": "python", ".pyw": "python",
	".go":   "go",
	".rs":   "rust",
	".java": "java",
	".c":    "c", ".h": "c",
	".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
	".h++": "cpp", ".ipp": "cpp", ".tpp": "cpp", ".inl": "cpp",
	".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby", ".ru": "ruby",
	".sh": "bash", ".bash": "bash", ".zsh": "bash", ".ksh": "bash",
	".cs":         "csharp",
	".css":        "css",
	".cue":        "cue",
	".dockerfile": "dockerfile", ".containerfile": "dockerfile",
	".ex": "elixir", ".exs": "elixir",
	".elm":    "elm",
	".groovy": "groovy", ".gradle": "groovy", ".gvy": "groovy",
	".hcl": "hcl", ".tf": "hcl", ".tfvars": "hcl",
	".html": "html", ".htm": "html", ".xhtml": "html",
	".kt": "kotlin", ".kts": "kotlin",
	".lua": "lua",
	".md":  "markdown", ".markdown": "markdown", ".mdx": "markdown",
	".ml":    "ocaml",
	".php":   "php",
	".proto": "protobuf",
	".scala": "scala", ".sc": "scala",
	".sql":    "sql",
	".svelte": "svelte",
	".swift":  "swift",
	".toml":   "toml",
	".yaml":   "yaml", ".yml": "yaml",
}

var fileNames = map[string]string{
	"dockerfile": "dockerfile", "containerfile": "dockerfile",
	"rakefile": "ruby", "gemfile": "ruby", "guardfile": "ruby", "podfile": "ruby", "vagrantfile": "ruby",
	"brewfile": "ruby", "fastfile": "ruby",
	".bashrc": "bash", ".bash_profile": "bash", ".bash_login": "bash", ".profile": "bash", ".zshrc": "bash",
	".zprofile": "bash", ".zshenv": "bash", "pkgbuild": "bash", "apkbuild": "bash",
	"jenkinsfile": "groovy",
	"cargo.lock":  "toml", "pipfile": "toml", "poetry.lock": "toml",
	"cmakelists.txt": "", // no grammar; listed so the .txt rule below is explicit
}

// LanguageFor returns the language of path (by extension or well-known
// file name), or nil when no grammar handles it.
func LanguageFor(path string) *Language {
	base := strings.ToLower(filepath.Base(strings.ReplaceAll(path, "\\", "/")))
	if name, ok := fileNames[base]; ok {
		return byName()[name]
	}
	if strings.HasPrefix(base, "dockerfile.") || strings.HasSuffix(base, ".dockerfile") {
		return byName()["dockerfile"]
	}
	ext := filepath.Ext(base)
	if ext == "" {
		return nil
	}
	return byName()[extensions[ext]]
}

// LanguageByName returns the language with this name ("go", "tsx", ...), or nil.
func LanguageByName(name string) *Language { return byName()[name] }

// Languages returns the names of all supported languages.
func Languages() []string {
	langs := languages()
	out := make([]string, len(langs))
	for i, l := range langs {
		out[i] = l.Name
	}
	return out
}
