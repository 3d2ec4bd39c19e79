//go:build windows

package lsp

import (
	"testing"

	"go.lsp.dev/uri"
)

// The URIs VS Code sends on Windows: the drive letter lower-cased, its ':'
// percent-encoded.
func TestURIToPathWindows(t *testing.T) {
	cases := []struct {
		in   string
		want string
		ok   bool
	}{
		{"file:///c%3A/Users/me/proj/a.go", `c:\Users\me\proj\a.go`, true},
		{"file:///C:/Users/me/proj/a.go", `C:\Users\me\proj\a.go`, true},
		{"file:///c%3A/my%20dir/a%23b.go", `c:\my dir\a#b.go`, true},
		{"file:///c%3A/x/../y.go", `c:\y.go`, true},
		{"file://server/share/x.go", `\\server\share\x.go`, true},
		{"file:///x/y.go", "", false}, // no drive
		{"untitled:Untitled-1", "", false},
	}
	for _, c := range cases {
		got, ok := uriToPath(uri.URI(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("uriToPath(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	// The way back is the way VS Code writes it.
	if got, want := pathToURI(`C:\Users\me\a.go`), uri.URI("file:///c%3A/Users/me/a.go"); got != want {
		t.Errorf("pathToURI = %q, want %q", got, want)
	}
}
