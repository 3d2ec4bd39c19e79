package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashls/hashls/workspace"
)

// BenchmarkFindGoroot runs the find tool over $GOROOT/src (skipped when
// GOROOT is not set in the environment).
func BenchmarkFindGoroot(b *testing.B) { benchTool(b, "find", `{"paths":["**/*.go"]}`) }

// BenchmarkSearchGoroot runs the search tool over $GOROOT/src.
func BenchmarkSearchGoroot(b *testing.B) {
	benchTool(b, "search", `{"pattern":"func main\\(","paths":"."}`)
}

func benchTool(b *testing.B, name, args string) {
	goroot := os.Getenv("GOROOT")
	if goroot == "" {
		b.Skip("set GOROOT to run")
	}
	ws, err := workspace.Open(filepath.Join(goroot, "src"), workspace.Options{StateDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	env := &Env{WS: ws}
	for b.Loop() {
		if _, err := runEnv(env, name, json.RawMessage(args)); err != nil {
			b.Fatal(err)
		}
	}
}
