// Package names shows file names in tool output so that no name can forge
// a row or a header, and reads them back: each '/'-separated element of a
// path that needs it is written quoted, $'…', as bash's ANSI-C quoting
// writes it (dir/$'a\n12:x.txt'), and every other element as it is, so a
// directory and a name listed in it join into a path as they are. edit
// (headers, MV) and workspace (selectors) read the quoted form, agent
// writes it; they may not import each other, so the grammar lives here,
// once.
//
// Entry points: Show writes a path, Cut reads one, NeedsQuote says which
// elements are quoted.
package names

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Show returns the slash-separated path as tool output shows it: each
// element as it is, or $'…' quoted when NeedsQuote.
func Show(path string) string {
	if !needsQuoteAny(path) {
		return path
	}
	elems := strings.Split(path, "/")
	for i, e := range elems {
		if NeedsQuote(e) {
			elems[i] = Quote(e)
		}
	}
	return strings.Join(elems, "/")
}

// needsQuoteAny reports whether an element of path needs quotes.
func needsQuoteAny(path string) bool {
	for _, e := range strings.Split(path, "/") {
		if NeedsQuote(e) {
			return true
		}
	}
	return false
}

// Quote writes name in $'…': printable characters as they are, except '
// and \ (\' and \\); \n, \r and \t; other bytes below 0x20, 0x7f and
// bytes that are not UTF-8 as \xHH; other characters that are not
// printable (line and paragraph separators, bidirectional controls, spaces
// other than ' ') as \uHHHH or \UHHHHHHHH.
func Quote(name string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(name); {
		r, w := utf8.DecodeRuneInString(name[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			fmt.Fprintf(&b, `\x%02x`, name[i])
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case EscapeControl(&b, r):
		case r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += w
	}
	b.WriteByte('\'')
	return b.String()
}

// EscapeControl writes the escape of r to b when r is a control
// character (\n, \r, \t, else \xHH for the others below 0x20 and 0x7f),
// as names and table cells show them, and reports whether it did.
func EscapeControl(b *strings.Builder, r rune) bool {
	switch {
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case r == '\t':
		b.WriteString(`\t`)
	case r < 0x20 || r == 0x7f:
		fmt.Fprintf(b, `\x%02x`, r)
	default:
		return false
	}
	return true
}

// EscapeControls is s with its control characters escaped as
// EscapeControl escapes them, every other rune kept (a byte that is not
// UTF-8 becomes U+FFFD).
func EscapeControls(s string) string {
	var b strings.Builder
	for _, r := range s {
		if !EscapeControl(&b, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// NeedsQuote reports whether a path element is shown quoted: it is not UTF-8, holds a
// character that is not printable (a line break above all: it would start
// a forged row), starts or ends with a space, starts with a quote, "$'" or
// '*', or "add:"-like words (which a header's reader would take off), ends
// in what reads as a tag ("#1A2B") or a selector (":5", ":raw"), or holds
// ":conflict:".
func NeedsQuote(name string) bool {
	if name == "" {
		return false
	}
	if !Printable(name) {
		return true
	}
	switch name[0] {
	case ' ', '"', '\'', '`', '*':
		return true
	case '$':
		if strings.HasPrefix(name, "$'") {
			return true
		}
	}
	if strings.HasSuffix(name, " ") {
		return true
	}
	lower := strings.ToLower(name)
	for _, w := range []string{"update", "add", "delete", "move"} {
		if strings.HasPrefix(lower, w) && strings.Contains(name, ":") {
			return true
		}
	}
	if i := strings.LastIndexByte(name, '#'); i >= 0 && len(name)-i == 5 && isHex(name[i+1:]) {
		return true
	}
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		if s := name[i+1:]; s == "raw" || s == "conflicts" || s != "" && strings.Trim(s, "0123456789,+-L@") == "" {
			return true
		}
	}
	return strings.Contains(name, ":conflict:")
}

// Printable reports whether s is UTF-8 made of printable characters and
// ' ': nothing in it can start a line or hide what follows it.
func Printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != ' ' && !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// ErrQuote is wrapped by every error about a malformed $'…' name.
var ErrQuote = errors.New("malformed $'…' name")

// Cut reads a path whose elements may be $'…' quoted (an element: what
// starts s or follows a '/'). It returns the path spelled up to the end of
// the last quoted element, and what follows that element's closing quote
// as it is written (rest: more of the path, a selector, a tag, …). ok is
// false when s holds no quoted element (rest is then s); a malformed quote
// is an error that says what is wrong.
func Cut(s string) (name, rest string, ok bool, err error) {
	var b strings.Builder
	end := -1 // where the last quoted element ends in s
	for i := 0; i < len(s); {
		if (i == 0 || s[i-1] == '/') && strings.HasPrefix(s[i:], "$'") {
			n, err := unquote(&b, s[i+2:])
			if err != nil {
				return "", s, true, err
			}
			i += 2 + n
			end = i
			continue
		}
		j := strings.Index(s[i:], "/$'")
		if j < 0 {
			break
		}
		b.WriteString(s[i : i+j+1])
		i += j + 1
	}
	if end < 0 {
		return "", s, false, nil
	}
	return b.String()[:b.Len()], s[end:], true, nil
}

// unquote writes the element quoted at the start of s (after "$'") to b
// and returns the bytes of s it read, its closing quote included.
func unquote(b *strings.Builder, s string) (int, error) {
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '\'':
			return i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				return 0, fmt.Errorf("%w: it ends with a lone \\", ErrQuote)
			}
			e := s[i+1]
			i += 2
			switch e {
			case '\\', '\'', '"':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'e':
				b.WriteByte(0x1b)
			case 'f':
				b.WriteByte('\f')
			case 'v':
				b.WriteByte('\v')
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				if i+n > len(s) {
					return 0, fmt.Errorf("%w: \\%c needs %d hex digits", ErrQuote, e, n)
				}
				v, err := strconv.ParseUint(s[i:i+n], 16, 32)
				if err != nil {
					return 0, fmt.Errorf("%w: \\%c%s is not %d hex digits", ErrQuote, e, s[i:i+n], n)
				}
				i += n
				if e == 'x' {
					b.WriteByte(byte(v))
				} else if !utf8.ValidRune(rune(v)) {
					return 0, fmt.Errorf("%w: \\%c%x is not a character", ErrQuote, e, v)
				} else {
					b.WriteRune(rune(v))
				}
			default:
				return 0, fmt.Errorf("%w: \\%c is not an escape (use \\\\, \\', \\n, \\r, \\t, \\xHH, \\uHHHH or \\UHHHHHHHH)", ErrQuote, e)
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return 0, fmt.Errorf("%w: the closing ' is missing", ErrQuote)
}
