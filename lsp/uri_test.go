package lsp

import (
	"runtime"
	"testing"

	"go.lsp.dev/uri"
)

func TestURIToPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX paths")
	}
	cases := []struct {
		in   string
		want string
		ok   bool
	}{
		{"file:///home/u/a.go", "/home/u/a.go", true},
		{"file:///home/u/my%20dir/a%23b.go", "/home/u/my dir/a#b.go", true},
		{"file:///home/u/%E6%97%A5%E6%9C%AC.go", "/home/u/日本.go", true},
		{"file://localhost/etc/x", "/etc/x", true},
		{"FILE:///x/../y", "/y", true},
		{"file:///a b/100%.go", "/a b/100%.go", true}, // raw, unencoded
		{"file://server/share/x", "", false},
		{"untitled:Untitled-1", "", false},
		{"git:/x/y?ref", "", false},
		{"file:", "", false},
		{"", "", false},
		{"file://%zz", "", false},
		{"file:relative/path", "", false},
	}
	for _, c := range cases {
		got, ok := uriToPath(uri.URI(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("uriToPath(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestPathToURIRoundTrip(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX paths")
	}
	for _, p := range []string{"/a/b.go", "/a b/c#d?.go", "/日本/語.go", "/x/100%/y", "/a:b/c"} {
		u := pathToURI(p)
		back, ok := uriToPath(u)
		if !ok || back != p {
			t.Errorf("%q -> %q -> %q, %v", p, u, back, ok)
		}
		if pu := protocolURI(string(u)); pu != u {
			t.Errorf("%q is not canonical: the protocol decoder makes it %q", u, pu)
		}
	}
}

func TestLanguageFileName(t *testing.T) {
	cases := []struct{ u, lang, want string }{
		{"untitled:Untitled-1", "go", "untitled.go"},
		{"untitled:Untitled-1", "typescriptreact", "untitled.tsx"},
		{"untitled:/tmp/x.py", "python", "x.py"},
		{"untitled:Untitled-2", "unknown-lang", "untitled"},
		{"git:/a/b.rs?%7B%7D", "rust", "b.rs"},
		{"vscode-notebook-cell:/x?y", "rust", "untitled.rs"},
	}
	for _, c := range cases {
		if got := languageFileName(uri.URI(c.u), c.lang); got != c.want {
			t.Errorf("languageFileName(%q, %q) = %q, want %q", c.u, c.lang, got, c.want)
		}
	}
}

func FuzzURIToPath(f *testing.F) {
	f.Add("file:///home/u/my%20dir/a%23b.go")
	f.Add("file:///c%3A/x")
	f.Add("untitled:Untitled-1")
	f.Fuzz(func(t *testing.T, s string) {
		p, ok := uriToPath(uri.URI(s))
		if ok && p == "" {
			t.Fatal("ok with an empty path")
		}
		_ = languageFileName(uri.URI(s), "go")
		_ = uriScheme(uri.URI(s))
		_ = protocolURI(s)
		if ok {
			_ = pathToURI(p)
		}
	})
}
