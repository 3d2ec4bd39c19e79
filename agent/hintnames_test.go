package agent

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A result's text and an error's message and next step name only tools of
// the caller's toolsets (an MCP model calling a tool it lacks is refused,
// and one told to is misled). So every hint that names another tool names
// it as a job inside a clause ("[ ({find} lists what exists)]"), which the
// caller's rendering keeps only when it has the tool (Caller.render); no
// text names a tool by itself. hintSources are the packages whose texts
// reach a tool's caller. Package edit is not among them: its messages are
// the hashline spec's words (conformance-tested), reached only through the
// edit tool, whose toolset (hashline) holds the read and write they name.
var hintSources = []string{".", "../hub", "../mcp", "../workspace", "../workspace/sqlitedb", "../workspace/archive"}

// toolMention finds a tool named in prose: "the X tool", "with X",
// "use X", "`X`", "X lists", or any tool whose name holds an underscore.
func toolMentionRE() *regexp.Regexp {
	var names []string
	for _, t := range New(Deps{}).byName {
		names = append(names, regexp.QuoteMeta(t.Name()))
	}
	slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) })
	n := "(" + strings.Join(names, "|") + ")"
	return regexp.MustCompile(`(?i)\bthe ` + n + ` tool\b|\b(?:with|use|call|run|using) ` + n + `\b|` + "`" + n + "`" + `|\b` + n + ` (?:lists|shows|brings|puts|tool)\b|(?-i)\b([a-z]+_[a-z_]+)\b`)
}

// hintLiterals returns the string literals of the non-test Go files of dir
// that a caller may read, with where they are: literals inside a tool's
// Name, Description, Schema, Guide or Hints (checked by
// TestDescriptionsNameOfferedTools) and in struct tags are left out.
func hintLiterals(t *testing.T, dir string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && (fd.Recv != nil && slices.Contains([]string{"Name", "Description", "Schema", "Guide", "Hints"}, fd.Name.Name) || fd.Name.Name == "Instructions") {
				continue // Instructions (package mcp) names only the tools of the sets it is built for
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.Field:
					return false // struct tags
				case *ast.BasicLit:
					if n.Kind == token.STRING {
						if s, err := strconv.Unquote(n.Value); err == nil {
							out[s] = fset.Position(n.Pos()).String()
						}
					}
				}
				return true
			})
		}
	}
	return out
}

// TestHintsNameOfferedTools: no text a caller reads names a tool outside
// a job, every job outside {proof} sits in a clause, and rendered for
// every toolset (and every tool of it as the caller), the texts name no
// tool the set lacks.
func TestHintsNameOfferedTools(t *testing.T) {
	mention := toolMentionRE()
	var withJobs []string
	for _, dir := range hintSources {
		for lit, at := range hintLiterals(t, dir) {
			file := filepath.Base(at[:strings.Index(at, ":")])
			if file == "explain.go" || file == "toolsets.go" || isToolName(lit) {
				continue // the jobs' faces, the toolsets' table, a tool's name as a value
			}
			// A message starts with the tool that failed ("edit_file:
			// ..."), which the caller called.
			body := regexp.MustCompile(`^[a-z_]+: `).ReplaceAllString(lit, "")
			for _, m := range mention.FindAllString(body, -1) {
				named := strings.Trim(strings.Fields(m)[len(strings.Fields(m))-1], "`")
				if f := strings.Fields(m); len(f) > 1 && !isToolName(named) {
					named = strings.Trim(f[len(f)-2], "`") // "X lists"
					if f[0] == "the" || strings.EqualFold(f[0], "the") {
						named = f[1]
					}
				}
				if !isToolName(named) || sureOf(file, named) {
					continue
				}
				t.Errorf("%s: %q names a tool outside a job: %q", at, lit, m)
			}
			if jobRE.MatchString(lit) {
				if rest := clauseRE.ReplaceAllString(lit, ""); jobRE.MatchString(strings.ReplaceAll(rest, "{proof}", "")) {
					t.Errorf("%s: %q has a job outside a [clause]", at, lit)
				}
				withJobs = append(withJobs, lit)
			}
		}
	}
	for _, k := range []string{KindStale, KindUnseen, KindNotFound, KindAlreadyExists, KindPermission, KindUsage, KindEdit, KindTooLarge, KindBinary, KindOutside, KindInput, KindNoChange, KindStore, KindIO, KindInternal} {
		withJobs = append(withJobs, SuggestedAction(k))
	}
	specs := []string{AllToolsets, DefaultToolsets}
	for _, ts := range toolsets {
		specs = append(specs, ts.Name)
	}
	all := New(Deps{})
	for _, spec := range specs {
		sets := MustParseSets(spec)
		c := Caller{Transport: "mcp", Sets: sets}
		for _, tool := range all.byName {
			if !sets.Has(tool.Name()) {
				continue
			}
			for _, lit := range withJobs {
				out := c.render(tool.Name(), lit)
				if jobRE.MatchString(out) || clauseRE.MatchString(out) {
					t.Errorf("%s, %s: %q renders to %q, a job left", spec, tool.Name(), lit, out)
				}
				for _, other := range all.byName {
					if n := other.Name(); !sets.Has(n) && regexp.MustCompile(`(?:^|[^\w-])`+n+`(?:$|[^\w-])`).MatchString(out) && !regexp.MustCompile(`(?:^|[^\w-])`+n+`(?:$|[^\w-])`).MatchString(jobRE.ReplaceAllString(lit, "")) {
						t.Errorf("toolsets %s, tool %s: %q renders to %q, which names %s", spec, tool.Name(), lit, out, n)
					}
				}
			}
		}
	}
}

// sureOf reports whether every caller of the tools whose file is file
// has the tool named: it is in every toolset of each of them. The edit
// tool's missing-file message, the spec's words, names write.
func sureOf(file, named string) bool {
	tool := strings.TrimSuffix(file, ".go")
	if !isToolName(tool) {
		return false
	}
	for _, set := range setsOf(tool) {
		if !MustParseSets(set).Has(named) {
			return false
		}
	}
	return true
}

func isToolName(s string) bool {
	_, ok := New(Deps{}).byName[s]
	return ok
}

// TestDescriptionsNameOfferedTools: a tool's description and schema name
// only tools that every toolset holding it holds too.
func TestDescriptionsNameOfferedTools(t *testing.T) {
	mention := toolMentionRE()
	word := regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b`)
	for _, tool := range New(Deps{}).byName {
		text := tool.Description() + "\n" + GuideOf(tool) + "\n" + string(tool.Schema())
		var named []string
		for _, m := range append(mention.FindAllString(text, -1), word.FindAllString(text, -1)...) {
			for _, f := range strings.Fields(strings.ReplaceAll(m, "`", " ")) {
				if isToolName(f) && f != tool.Name() {
					named = append(named, f)
				}
			}
		}
		for _, n := range named {
			for _, set := range setsOf(tool.Name()) {
				if !MustParseSets(set).Has(n) {
					t.Errorf("%s (in %s) names %s, which %s lacks", tool.Name(), set, n, set)
				}
			}
		}
	}
}

// TestHintsFollowTheCaller: a result's hint names a tool only when the
// caller has it, whether the caller's toolsets are the Toolset's own or
// another process's (Call.Offered, a call forwarded through the hub).
func TestHintsFollowTheCaller(t *testing.T) {
	hashline, def := MustParseSets("hashline"), MustParseSets(DefaultToolsets)
	for _, c := range []struct {
		name    string
		deps    Sets
		offered *Sets
		restore bool
	}{
		{"hashline", hashline, nil, false},
		{"default", def, nil, true},
		{"every tool", Sets{}, nil, true},
		{"forwarded from a hashline caller", Sets{}, &hashline, false},
		{"forwarded from a default caller", Sets{}, &def, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := newTestEnv(t)
			writeRootFile(t, env, "gone.txt", "x\n")
			ts := New(Deps{WS: env.WS, Sets: c.deps})
			run := func(tool string, args any) string {
				t.Helper()
				raw, _ := json.Marshal(args)
				res, err := ts.Run(context.Background(), tool, raw, Call{Transport: "mcp", Offered: c.offered})
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				return res.Text
			}
			read := run("read", map[string]string{"path": "gone.txt"})
			hdr, _, _ := strings.Cut(read, "\n")
			text := run("edit", map[string]string{"input": hdr + "\nREM"})
			if got := strings.Contains(text, "Restore it with restore {\"id\": "); got != c.restore || !strings.HasPrefix(text, "Removed gone.txt (its content is in the trash).") {
				t.Errorf("REM names restore %v, want %v:\n%s", got, c.restore, text)
			}
			if strings.Contains(text, "restore") != c.restore {
				t.Errorf("REM:\n%s", text)
			}
		})
	}
}
