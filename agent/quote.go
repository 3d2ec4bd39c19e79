package agent

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounded echo of caller input. Error messages, warnings and activity
// entries quote what the caller sent (a path, a pattern, a line of an edit)
// so that the caller can see what was wrong; they never repeat all of it.
// These are the one place that decides how input is quoted and how long a
// message that carries it may be; every transport (CLI, LSP) renders tool
// errors through AsError, which applies BoundMessage.
const (
	// quotePrefix is how many bytes of a long input are shown.
	quotePrefix = 64
	// maxToken is the longest run of non-space bytes a message keeps whole.
	maxToken = 256
	// maxMessage is the longest message kept whole (after long tokens
	// are shortened).
	maxMessage = 4096
)

// QuoteInput renders caller input s for a message: Go-quoted (%q) when it
// is short, else its first bytes (cut at a character boundary), an
// ellipsis and its length: "aaaa…" (104857600 bytes).
func QuoteInput(s string) string {
	if len(s) <= quotePrefix+16 {
		return strconv.Quote(s)
	}
	return strconv.Quote(prefix(s, quotePrefix)+"…") + " (" + strconv.Itoa(len(s)) + " bytes)"
}

// ClipInput is QuoteInput without the quotes, for fields that hold one
// input each (the paths of an activity entry): s itself when short, else
// its first bytes, an ellipsis and its length.
func ClipInput(s string) string {
	if len(s) <= quotePrefix+16 {
		return s
	}
	return prefix(s, quotePrefix) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// BoundMessage bounds a message that may embed caller input anywhere
// (wrapped OS errors repeat paths, parsers quote lines): every run of
// non-space bytes longer than maxToken keeps its first bytes and names its
// length, and a message still longer than maxMessage keeps its beginning
// and its end (where the advice is) around a note of what was left out.
// Short messages come back unchanged.
func BoundMessage(msg string) string {
	if len(msg) <= maxMessage {
		return msg
	}
	var b strings.Builder
	for i := 0; i < len(msg); {
		if isSpace(msg[i]) {
			b.WriteByte(msg[i])
			i++
			continue
		}
		j := i
		for j < len(msg) && !isSpace(msg[j]) {
			j++
		}
		tok := msg[i:j]
		if len(tok) > maxToken {
			closing := ""
			if q := tok[0]; (q == '"' || q == '\'' || q == '`') && tok[len(tok)-1] == q {
				closing = string(q)
			}
			tok = prefix(tok, quotePrefix) + "…" + closing + " (" + strconv.Itoa(j-i) + " bytes)"
		}
		b.WriteString(tok)
		i = j
	}
	out := b.String()
	if len(out) <= maxMessage {
		return out
	}
	head, tail := maxMessage*3/4, maxMessage/4
	h := prefix(out, head)
	t := out[len(out)-tail:]
	for len(t) > 0 && !utf8.RuneStart(t[0]) {
		t = t[1:]
	}
	return h + " … (" + strconv.Itoa(len(msg)-len(h)-len(t)) + " bytes of the message left out) … " + t
}

// prefix returns the first n bytes of s, cut back to a character boundary.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// notUnicode counts what JSON decoding would silently replace with U+FFFD
// in one raw JSON value: bytes that are not UTF-8, and \u escapes of UTF-16
// surrogates that do not form a pair (a lone \ud800). JSON carries Unicode
// text only; such input cannot be written as sent, so it is refused rather
// than changed (see checkArgs).
func notUnicode(raw []byte) int {
	n := 0
	inString := false
	for i := 0; i < len(raw); {
		c := raw[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				n++
			}
			i += size
			continue
		}
		switch {
		case c == '"':
			inString = !inString
			i++
		case c == '\\' && inString && i+1 < len(raw):
			if raw[i+1] != 'u' {
				i += 2
				continue
			}
			r, ok := hex4(raw, i+2)
			i += 6
			if !ok || r < 0xD800 || r > 0xDFFF {
				continue
			}
			if r <= 0xDBFF && i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
				if lo, ok := hex4(raw, i+2); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					i += 6 // a valid pair
					continue
				}
			}
			n++
		default:
			i++
		}
	}
	return n
}

// hex4 decodes the four hex digits at raw[i:].
func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	var r rune
	for _, c := range raw[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
