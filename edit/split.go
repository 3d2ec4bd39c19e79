package edit

import (
	"strings"
	"unicode/utf8"

	"github.com/hashls/hashls/internal/lazy"
	"github.com/hashls/hashls/internal/names"
)

const headerPilcrow = "¶"

func parseErr(msg string) *Error { return &Error{Kind: KindParse, Msg: msg} }

// jsonQuote quotes s the way JSON.stringify does (the reference's texts use it).
func jsonQuote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				const hexd = "0123456789abcdef"
				b.WriteString(`\u00`)
				b.WriteByte(hexd[r>>4])
				b.WriteByte(hexd[r&15])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// truncRunes returns the first n runes of s.
func truncRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for c := 0; c < n && i < len(s); c++ {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i]
}

var (
	applyPatchNoiseRe = lazy.Regexp(`(?i)^\*{0,3}\s*(?:(?:update|add|delete|move)[^A-Za-z0-9]*(?:file|to)?[^A-Za-z0-9]*:)?\s*\*{0,3}\s*`)
	trailingTagRe     = lazy.Regexp(`#([0-9A-Fa-f]{4})\s*$`)
	firstLineDiffRe   = lazy.Regexp(`^@@\s+[-+]?\d+,\d+\s+[-+]?\d+,\d+\s+@@`)
)

// unquotePath reads a path as a header or `MV` writes it: its elements
// may be $'…' quoted (package names: names with line breaks, quotes,
// leading spaces, bytes that are not UTF-8, …); a plain path may be
// wrapped in "…", '…' or `…` (taken off).
func unquotePath(p string) (string, error) {
	if name, rest, ok, err := names.Cut(p); ok {
		if err != nil {
			return "", err
		}
		return name + strings.TrimRight(rest, " \t"), nil
	}
	if len(p) >= 2 {
		f, l := p[0], p[len(p)-1]
		if (f == '"' || f == '\'' || f == '`') && f == l {
			return p[1 : len(p)-1], nil
		}
	}
	return p, nil
}

// headerInner reports whether line is a section header candidate and returns
// the text between the delimiters: "¶X" → X, "[X]" → X.
func headerInner(line string) (inner string, pilcrow, ok bool) {
	t := strings.TrimRight(line, " \t\r\n\v\f")
	if strings.HasPrefix(t, headerPilcrow) {
		return t[len(headerPilcrow):], true, true
	}
	if len(t) >= 2 && t[0] == '[' && t[len(t)-1] == ']' {
		return t[1 : len(t)-1], false, true
	}
	return "", false, false
}

// IsHeaderLine reports whether line is a ¶PATH#TAG or [PATH#TAG] section header
// candidate (it may still be malformed).
func IsHeaderLine(line string) bool {
	_, _, ok := headerInner(line)
	return ok
}

// parseHeader parses a header line. ok is false when line is not a header
// candidate at all; err is set when it is one but malformed. The path is
// everything before the trailing #TAG ('#' may appear in it); its
// elements may be $'…' quoted (package names).
func parseHeader(line string) (path, tag string, ok bool, err *Error) {
	inner, pilcrow, ok := headerInner(line)
	if !ok {
		return "", "", false, nil
	}
	if strings.TrimSpace(inner) == "" {
		if pilcrow {
			return "", "", true, parseErr(`Input header "¶" is empty; provide a file path.`)
		}
		return "", "", true, parseErr(`Input header "[]" is empty; provide a file path.`)
	}
	// Messages quote the header and teach the form the caller wrote.
	shown, form := "["+inner+"]", "[PATH] or [PATH#TAG]"
	if pilcrow {
		shown, form = headerPilcrow+inner, "¶PATH or ¶PATH#TAG"
	}
	malformed := func() *Error {
		return parseErr("Input header must be " + form + " with a 4-hex content-hash tag; got " + jsonQuote(shown) + ".")
	}
	body := applyPatchNoiseRe().ReplaceAllString(strings.TrimSpace(inner), "")
	// The elements up to the last quoted one; the tag is in what follows.
	quoted, body, hasQuoted, qerr := names.Cut(body)
	if qerr != nil {
		return "", "", true, parseErr("Input header " + jsonQuote(truncRunes(shown, 200)) + " has a quoted path element that does not read: " + qerr.Error() + ". Copy the header from your latest read/search/edit output.")
	}
	var pathText string
	if m := trailingTagRe().FindStringSubmatchIndex(body); m != nil {
		pathText = body[:m[0]]
		tag = strings.ToUpper(body[m[2]:m[3]])
	} else {
		pathText = strings.TrimRight(body, " \t")
		if strings.Contains(pathText, "#") {
			// No tag at the end, but a '#': a tag that is not one.
			return "", "", true, malformed()
		}
	}
	if hasQuoted {
		return quoted + pathText, tag, true, nil
	}
	p, _ := unquotePath(strings.TrimSpace(pathText))
	p = strings.TrimSpace(applyPatchNoiseRe().ReplaceAllString(p, ""))
	if p == "" {
		return "", "", true, malformed()
	}
	return p, tag, true, nil
}

type envelopeKind int

const (
	envNone envelopeKind = iota
	envBegin
	envEnd
	envAbort
)

func envelope(line string) envelopeKind {
	switch strings.TrimRight(line, " \t\r") {
	case "*** Begin Patch":
		return envBegin
	case "*** End Patch":
		return envEnd
	case "*** Abort":
		return envAbort
	}
	return envNone
}

// SplitInput splits an edit input into sections (reference §2): same-path
// sections merged, conflicting tags an error, empty sections dropped.
// Headers may be written ¶PATH#TAG or [PATH#TAG].
func SplitInput(input string) ([]Section, error) {
	input = strings.TrimPrefix(input, "\ufeff")
	lines := strings.Split(input, "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	first := 0
	for first < len(lines) && (strings.TrimSpace(lines[first]) == "" || envelope(lines[first]) == envBegin) {
		first++
	}
	if first == len(lines) {
		return nil, parseErr("No hashline sections found in input.")
	}
	lines = lines[first:]
	if _, _, ok, err := parseHeader(lines[0]); err != nil {
		return nil, err
	} else if !ok {
		fl := strings.TrimRight(lines[0], " \t")
		if firstLineDiffRe().MatchString(fl) {
			return nil, parseErr("unified-diff hunk header (`@@ -N,M +N,M @@`) is not valid in hashline. File sections start with the `¶PATH#TAG` header a read printed; use `replace`, `delete`, or `insert` ops.")
		}
		return nil, parseErr(`input must begin with the "¶PATH#TAG" header a read printed, on the first non-blank line; got: ` +
			jsonQuote(truncRunes(lines[0], 120)) + `. Example: "¶src/foo.ts#1A2B" then edit ops.`)
	}

	type raw struct {
		path, tag string
		bracket   bool
		body      []string
	}
	var sections []raw
	var cur *raw
	flush := func() {
		if cur == nil {
			return
		}
		for _, l := range cur.body {
			if strings.TrimSpace(l) != "" {
				sections = append(sections, *cur)
				break
			}
		}
		cur = nil
	}
	for _, l := range lines {
		switch envelope(l) {
		case envEnd, envAbort:
			goto done
		case envBegin:
			continue
		}
		if p, t, ok, err := parseHeader(l); err != nil {
			return nil, err
		} else if ok {
			flush()
			_, pilcrow, _ := headerInner(l)
			cur = &raw{path: p, tag: t, bracket: !pilcrow}
			continue
		}
		if cur != nil {
			cur.body = append(cur.body, l)
		}
	}
done:
	flush()

	var out []Section
	index := map[string]int{}
	for _, s := range sections {
		body := strings.Join(s.body, "\n")
		if i, ok := index[s.path]; ok {
			m := &out[i]
			if m.Tag != "" && s.tag != "" && m.Tag != s.tag {
				return nil, parseErr("Conflicting hashline snapshot tags for " + s.path + ": #" + m.Tag + " and #" + s.tag + ". Re-read the file and retry with one current header.")
			}
			if m.Tag == "" {
				m.Tag = s.tag
			}
			m.Body += "\n" + body
			continue
		}
		index[s.path] = len(out)
		out = append(out, Section{Path: s.path, Tag: s.tag, Body: body, Bracket: s.bracket})
	}
	if len(out) == 0 {
		return nil, parseErr("No hashline sections found in input.")
	}
	return out, nil
}
