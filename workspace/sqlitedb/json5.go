package sqlitedb

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Field is one key/value of a row payload, in source order.
type Field struct {
	Key   string
	Value any // nil, bool, int64, float64, string; []any or []Field for nested values
}

// ParseJSON5Object parses a row payload: a JSON object, with the JSON5
// conveniences unquoted identifier keys, single-quoted strings, trailing
// commas, comments, hexadecimal numbers, leading '+', leading/trailing '.'
// and Infinity/NaN. Duplicate keys are an error.
func ParseJSON5Object(s string) ([]Field, error) {
	p := &j5{s: s}
	p.space()
	if p.err != nil {
		return nil, p.err
	}
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return nil, p.fail("the payload must be a JSON5 object such as {name: 'Ada', active: true}")
	}
	v := p.value(0)
	if p.err != nil {
		return nil, p.err
	}
	p.space()
	if p.err == nil && p.i < len(p.s) {
		return nil, p.fail("unexpected text after the object")
	}
	if p.err != nil {
		return nil, p.err
	}
	return v.([]Field), nil
}

type j5 struct {
	s   string
	i   int
	err error
}

func (p *j5) fail(msg string) error {
	if p.err == nil {
		line := 1 + strings.Count(p.s[:min(p.i, len(p.s))], "\n")
		p.err = usagef("invalid JSON5 payload at line %d (offset %d): %s", line, p.i, msg)
	}
	return p.err
}

func (p *j5) space() {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			p.i++
		case strings.HasPrefix(p.s[p.i:], "\u00a0"), strings.HasPrefix(p.s[p.i:], "\ufeff"), strings.HasPrefix(p.s[p.i:], "\u2028"), strings.HasPrefix(p.s[p.i:], "\u2029"):
			_, n := utf8.DecodeRuneInString(p.s[p.i:])
			p.i += n
		case strings.HasPrefix(p.s[p.i:], "//"):
			j := strings.IndexByte(p.s[p.i:], '\n')
			if j < 0 {
				p.i = len(p.s)
			} else {
				p.i += j + 1
			}
		case strings.HasPrefix(p.s[p.i:], "/*"):
			j := strings.Index(p.s[p.i+2:], "*/")
			if j < 0 {
				p.fail("unterminated /* comment")
				p.i = len(p.s)
				return
			}
			p.i += 2 + j + 2
		default:
			return
		}
	}
}

const maxDepth = 64

func (p *j5) value(depth int) any {
	if depth > maxDepth {
		p.fail("nesting too deep")
		return nil
	}
	p.space()
	if p.err != nil {
		return nil
	}
	if p.i >= len(p.s) {
		p.fail("unexpected end of input")
		return nil
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"' || c == '\'':
		return p.str()
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		return p.number()
	default:
		w := p.ident()
		switch w {
		case "true":
			return true
		case "false":
			return false
		case "null":
			return nil
		case "Infinity":
			return math.Inf(1)
		case "NaN":
			return math.NaN()
		}
		p.fail(fmt.Sprintf("unexpected %q; strings need quotes", firstRune(p.s[p.i-len(w):])))
		return nil
	}
}

func firstRune(s string) string {
	if s == "" {
		return ""
	}
	r, _ := utf8.DecodeRuneInString(s)
	return string(r)
}

func (p *j5) object(depth int) any {
	p.i++ // {
	out := []Field{}
	seen := map[string]bool{}
	for {
		p.space()
		if p.err != nil {
			return nil
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return out
		}
		var key string
		if p.i < len(p.s) && (p.s[p.i] == '"' || p.s[p.i] == '\'') {
			key = p.str()
		} else {
			key = p.ident()
			if key == "" {
				p.fail("expected a key or '}'")
				return nil
			}
		}
		if p.err != nil {
			return nil
		}
		if seen[key] {
			p.fail(fmt.Sprintf("duplicate key %q", key))
			return nil
		}
		seen[key] = true
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			p.fail("expected ':' after key " + strconv.Quote(key))
			return nil
		}
		p.i++
		v := p.value(depth + 1)
		if p.err != nil {
			return nil
		}
		out = append(out, Field{Key: key, Value: v})
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return out
		}
		p.fail("expected ',' or '}'")
		return nil
	}
}

func (p *j5) array(depth int) any {
	p.i++ // [
	out := []any{}
	for {
		p.space()
		if p.err != nil {
			return nil
		}
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return out
		}
		v := p.value(depth + 1)
		if p.err != nil {
			return nil
		}
		out = append(out, v)
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return out
		}
		p.fail("expected ',' or ']'")
		return nil
	}
}

func (p *j5) ident() string {
	start := p.i
	for p.i < len(p.s) {
		r, n := utf8.DecodeRuneInString(p.s[p.i:])
		if r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || (p.i > start && r >= '0' && r <= '9') || r >= 0x80 && r != 0xa0 && r != 0xfeff && r != 0x2028 && r != 0x2029 && r != utf8.RuneError {
			p.i += n
			continue
		}
		break
	}
	return p.s[start:p.i]
}

func (p *j5) str() string {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String()
		case c == '\n' || c == '\r':
			p.fail("unescaped line break in a string")
			return ""
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				p.fail("unterminated string")
				return ""
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'v':
				b.WriteByte('\v')
			case '0':
				b.WriteByte(0)
			case '\n':
			case '\r':
				if p.i < len(p.s) && p.s[p.i] == '\n' {
					p.i++
				}
			case 'x':
				if p.i+2 > len(p.s) {
					p.fail("bad \\x escape")
					return ""
				}
				n, err := strconv.ParseUint(p.s[p.i:p.i+2], 16, 8)
				if err != nil {
					p.fail("bad \\x escape")
					return ""
				}
				b.WriteRune(rune(n))
				p.i += 2
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return ""
				}
				if r >= 0xd800 && r < 0xdc00 && strings.HasPrefix(p.s[p.i:], "\\u") {
					p.i += 2
					lo, ok := p.hex4()
					if !ok {
						return ""
					}
					r = 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00)
				}
				b.WriteRune(r)
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	p.fail("unterminated string")
	return ""
}

func (p *j5) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		p.fail("bad \\u escape")
		return 0, false
	}
	n, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil {
		p.fail("bad \\u escape")
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

func (p *j5) number() any {
	start := p.i
	neg := false
	if c := p.s[p.i]; c == '+' || c == '-' {
		neg = c == '-'
		p.i++
	}
	rest := p.s[p.i:]
	switch {
	case strings.HasPrefix(rest, "Infinity"):
		p.i += len("Infinity")
		if neg {
			return math.Inf(-1)
		}
		return math.Inf(1)
	case strings.HasPrefix(rest, "NaN"):
		p.i += 3
		return math.NaN()
	case strings.HasPrefix(rest, "0x") || strings.HasPrefix(rest, "0X"):
		p.i += 2
		h := p.i
		for p.i < len(p.s) && isHex(p.s[p.i]) {
			p.i++
		}
		n, err := strconv.ParseInt(p.s[h:p.i], 16, 64)
		if err != nil {
			p.fail("bad hexadecimal number")
			return nil
		}
		if neg {
			n = -n
		}
		return n
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || ((c == '+' || c == '-') && (p.s[p.i-1] == 'e' || p.s[p.i-1] == 'E')) {
			p.i++
			continue
		}
		break
	}
	text := p.s[start:p.i]
	t := strings.TrimPrefix(text, "+")
	if !strings.ContainsAny(t, ".eE") {
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return n
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || t == "" || t == "-" {
		p.fail(fmt.Sprintf("bad number %q", text))
		return nil
	}
	return f
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
