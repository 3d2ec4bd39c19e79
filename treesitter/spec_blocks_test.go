package treesitter

import "testing"

// TestSpecBlockExamples covers the per-language consequences listed in
// spec §7 that the conformance corpus does not exercise.
func TestSpecBlockExamples(t *testing.T) {
	cpp := "#include <vector>\n\ntemplate <typename T>\nT max2(T a, T b) {\n  if (a > b) {\n    return a;\n  }\n  return b;\n}\n"
	rb := "def f(x)\n  if x\n    1\n  else\n    y = 2\n    y\n  end\n  z\nend\n"
	java := "class A {\n  @Override\n  public String toString() {\n    return \"a\";\n  }\n}\n"
	c := "struct p {\n  int x;\n};\n\nstatic int sum(int a, int b)\n{\n  return a + b;\n}\n"
	py := "class A:\n    \"\"\"Doc.\"\"\"\n\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n\n\nif __name__ == \"__main__\":\n    A()\n"
	ts := "try {\n  f();\n} catch (err) {\n  g();\n}\napp.get(\"/\", () => {\n  h();\n});\n"
	tests := []struct {
		name, path, text string
		line, start, end int // start 0: unresolved
	}{
		{"cpp template line takes the template", "a.cpp", cpp, 3, 3, 9},
		{"cpp function under template", "a.cpp", cpp, 4, 4, 9},
		{"ruby if", "a.rb", rb, 2, 2, 7},
		{"ruby else clause", "a.rb", rb, 4, 4, 6},
		{"ruby end", "a.rb", rb, 7, 0, 0},
		{"ruby first statement of a def body stays itself", "a.rb", rb, 2, 2, 7},
		{"java annotation takes the method", "A.java", java, 2, 2, 5},
		{"java method line under annotation", "A.java", java, 3, 0, 0},
		{"c struct through };", "a.c", c, 1, 1, 3},
		{"c function with brace on next line", "a.c", c, 5, 5, 8},
		{"c lone brace is the compound statement", "a.c", c, 6, 6, 8},
		{"python docstring line is just the docstring", "a.py", py, 2, 2, 2},
		{"python first method is just the method", "a.py", py, 4, 4, 5},
		{"python class", "a.py", py, 1, 1, 8},
		{"python if __name__", "a.py", py, 11, 11, 12},
		{"ts catch line", "a.ts", ts, 3, 0, 0},
		{"ts call with arrow body", "a.ts", ts, 6, 6, 8},
		{"ts closer", "a.ts", ts, 8, 0, 0},
	}
	for _, tc := range tests {
		s, e, ok := DefaultResolver.BlockRange(tc.path, tc.text, tc.line)
		if tc.start == 0 {
			if ok {
				t.Errorf("%s: got %d-%d, want unresolved", tc.name, s, e)
			}
			continue
		}
		if !ok || s != tc.start || e != tc.end {
			t.Errorf("%s: got %d-%d ok=%v, want %d-%d", tc.name, s, e, ok, tc.start, tc.end)
		}
	}
}
