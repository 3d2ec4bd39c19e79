package agent

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hashls/hashls/edit"
)

// TestEdgeFilesReadPlainAndBlockErrors: files the structural summary and
// the block resolver must decline get a plain read, and a block op on them
// fails with the exact resolver error (spec §7, §9).
func TestEdgeFilesReadPlainAndBlockErrors(t *testing.T) {
	goFunc := func(i int) string {
		return fmt.Sprintf("func f%d() {\n\tx := %d\n\t_ = x\n\t_ = x\n\t_ = x\n}\n\n", i, i)
	}
	var big20k, big2MiB strings.Builder
	big20k.WriteString("package p\n\n")
	for big20k.Len() == 0 || strings.Count(big20k.String(), "\n") < 20001 {
		big20k.WriteString(goFunc(strings.Count(big20k.String(), "\n")))
	}
	big2MiB.WriteString("package p\n\n")
	for i := 0; big2MiB.Len() <= 2<<20; i++ {
		big2MiB.WriteString("// " + strings.Repeat("padding ", 40) + "\n" + goFunc(i))
	}
	var syntaxErr strings.Builder
	syntaxErr.WriteString("package p\n\n")
	for i := 0; i < 40; i++ {
		syntaxErr.WriteString(goFunc(i))
	}
	syntaxErr.WriteString("func broken( {\n")
	unknown := strings.Repeat("func f() {\n\tx\n}\n", 60)

	tests := []struct {
		name, path, content string
		blockLine           int
	}{
		// Errors elsewhere do not matter; the broken node itself fails.
		{"syntax error", "broken.go", syntaxErr.String(), strings.Count(syntaxErr.String(), "\n")},
		{"unknown extension", "code.unknownext", unknown, 1},
		{"20,001 lines", "long.go", big20k.String(), 3},
		{"over 2 MiB", "huge.go", big2MiB.String(), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newTestEnv(t)
			writeRootFile(t, env, tt.path, tt.content)
			res, err := runTool(env, "read", map[string]string{"path": tt.path})
			if err != nil {
				t.Fatal(err)
			}
			if res.Details.(*readDetails).Summary != nil || strings.Contains(res.Text, "lines elided") || !strings.Contains(res.Text, "\n1:") {
				t.Fatalf("not a plain read:\n%.300s", res.Text)
			}
			input := "¶" + tt.path + "#" + edit.Tag([]byte(tt.content)) + fmt.Sprintf("\nreplace block %d:\n+x", tt.blockLine)
			_, err = runTool(env, "edit", map[string]string{"input": input})
			want := fmt.Sprintf("`replace block %d:` could not resolve a syntactic block beginning on line %d.", tt.blockLine, tt.blockLine)
			if tt.name == "20,001 lines" || tt.name == "over 2 MiB" {
				// Block ops have no size limit: the block resolves.
				if err != nil {
					t.Fatalf("block op on a large file: %v", err)
				}
				return
			}
			var ae *Error
			if !errors.As(err, &ae) || ae.Kind != KindEdit || !strings.Contains(ae.Message, want) {
				t.Fatalf("block op: %v\nwant %q", err, want)
			}
		})
	}
}

func TestEditBinaryRefused(t *testing.T) {
	env := newTestEnv(t)
	content := "\x7fELF\x00\x01\x02\x00binary"
	writeRootFile(t, env, "a.bin", content)
	_, err := runTool(env, "edit", map[string]string{"input": "¶a.bin#" + edit.Tag([]byte(content)) + "\ndelete 1"})
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindBinary {
		t.Fatalf("edit of a binary file: %v", err)
	}
}
