package search

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// goroot is $GOROOT/src, the corpus of the walk benchmarks (skipped when
// GOROOT is not set in the environment).
func goroot(b *testing.B) string {
	if os.Getenv("GOROOT") == "" {
		b.Skip("GOROOT not set")
	}
	return filepath.Join(os.Getenv("GOROOT"), "src")
}

// BenchmarkWalkGoroot walks $GOROOT/src as find and list_directory do
// (hidden names, .gitignore), stat'ing nothing.
func BenchmarkWalkGoroot(b *testing.B) {
	root := goroot(b)
	for b.Loop() {
		Walk(context.Background(), root, WalkOptions{Hidden: true, Gitignore: true}, func(int, *Entry) bool { return true })
	}
}

// BenchmarkFindGoroot finds **/*.go under $GOROOT/src (a walk and an
// fstatat per match, for the newest-first order).
func BenchmarkFindGoroot(b *testing.B) {
	root := goroot(b)
	g, err := CompileGlob("**/*.go")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		Find(context.Background(), FindOptions{Root: root, Glob: g, Hidden: true, Gitignore: true})
	}
}
