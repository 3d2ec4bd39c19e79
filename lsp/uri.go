package lsp

import (
	"net/url"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"go.lsp.dev/uri"
)

// This file holds every conversion between URIs and paths. None of these
// functions panic, whatever the input: VS Code percent-encodes aggressively
// (spaces, '#', ':' after a Windows drive letter), other clients send raw
// paths, and some documents have no path at all (untitled:, git:, ...).

// uriToPath returns the absolute filesystem path named by a file: URI, or ok
// false for any other scheme or a malformed URI.
func uriToPath(u uri.URI) (p string, ok bool) {
	defer func() {
		if recover() != nil {
			p, ok = "", false
		}
	}()
	s := string(u)
	if len(s) < 5 || !strings.EqualFold(s[:5], "file:") {
		return "", false
	}
	parsed, err := url.Parse(s)
	if err != nil {
		// Tolerate a raw, unencoded path such as "file:///a b/100%.go".
		rest := s[5:]
		rest = strings.TrimPrefix(rest, "//")
		if i := strings.IndexByte(rest, '/'); i > 0 {
			rest = rest[i:] // drop an authority
		}
		if rest == "" {
			return "", false
		}
		return cleanFSPath(rest)
	}
	p = parsed.Path
	if parsed.Host != "" && parsed.Host != "localhost" {
		if runtime.GOOS != "windows" {
			return "", false // a UNC share is meaningless here
		}
		p = `\\` + parsed.Host + p
	}
	if p == "" {
		return "", false
	}
	return cleanFSPath(p)
}

// cleanFSPath turns the path part of a file URI into an OS path.
func cleanFSPath(p string) (string, bool) {
	if runtime.GOOS == "windows" {
		// "/c:/x" -> "c:/x"
		if len(p) >= 3 && p[0] == '/' && p[2] == ':' {
			p = p[1:]
		}
		p = filepath.FromSlash(p)
		if !filepath.IsAbs(p) {
			return "", false
		}
		return filepath.Clean(p), true
	}
	if !strings.HasPrefix(p, "/") {
		return "", false
	}
	return filepath.Clean(p), true
}

// pathToURI returns the file: URI for an absolute path, percent-encoded the
// way VS Code encodes it, so that the editor recognises it as the same
// document. It never fails; a relative path is made absolute first.
func pathToURI(p string) (u uri.URI) {
	if p == "" {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	defer func() {
		if recover() != nil {
			u = encodeFileURI(p)
		}
	}()
	return uri.File(p)
}

// encodeFileURI is the fallback encoder of pathToURI.
func encodeFileURI(p string) uri.URI {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // c:/x -> /c:/x
	}
	var b strings.Builder
	b.WriteString("file://")
	for i := 0; i < len(p); i++ {
		c := p[i]
		if isURIPathSafe(c) {
			b.WriteByte(c)
			continue
		}
		// VS Code keeps ':' of a drive letter encoded as %3A; do the same.
		b.WriteByte('%')
		b.WriteByte("0123456789ABCDEF"[c>>4])
		b.WriteByte("0123456789ABCDEF"[c&15])
	}
	return uri.URI(b.String())
}

func isURIPathSafe(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~' || c == '/'
}

// uriScheme returns the lower-cased scheme of u ("" when there is none).
func uriScheme(u uri.URI) string {
	s := string(u)
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return ""
	}
	for _, c := range s[:i] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return ""
		}
	}
	return strings.ToLower(s[:i])
}

// languageFileName returns a file name whose extension selects the language
// of a document that has no path of its own (untitled:, or an unknown
// scheme), from the languageId the editor sent. The name is only used to
// pick a tree-sitter grammar.
func languageFileName(u uri.URI, languageID string) string {
	str := string(u)
	if i := strings.IndexAny(str, "?#"); i >= 0 {
		str = str[:i]
	}
	base := path.Base(str)
	if i := strings.LastIndexAny(base, ":/"); i >= 0 {
		base = base[i+1:]
	}
	if unesc, err := url.PathUnescape(base); err == nil {
		base = unesc
	}
	if path.Ext(base) != "" {
		return base
	}
	if ext, ok := languageExt[languageID]; ok {
		return "untitled" + ext
	}
	return "untitled"
}

var languageExt = map[string]string{
	"go": ".go", "python": ".py", "javascript": ".js", "javascriptreact": ".jsx",
	"typescript": ".ts", "typescriptreact": ".tsx", "rust": ".rs", "c": ".c",
	"cpp": ".cpp", "java": ".java", "ruby": ".rb", "shellscript": ".sh",
	"json": ".json", "jsonc": ".json", "yaml": ".yaml", "html": ".html", "css": ".css",
	"markdown": ".md", "lua": ".lua", "toml": ".toml", "php": ".php",
	"csharp": ".cs", "kotlin": ".kt", "swift": ".swift", "scala": ".scala",
	"elixir": ".ex", "ocaml": ".ml", "sql": ".sql", "bash": ".sh", "hcl": ".hcl",
	"dockerfile": ".dockerfile", "protobuf": ".proto", "svelte": ".svelte",
}

// protocolURI converts a URI string received outside the protocol types to
// the canonical form the protocol decoder produces.
func protocolURI(s string) (u uri.URI) {
	defer func() {
		if recover() != nil {
			u = uri.URI(s)
		}
	}()
	if p, err := uri.Parse(s); err == nil {
		return p
	}
	return uri.URI(s)
}
