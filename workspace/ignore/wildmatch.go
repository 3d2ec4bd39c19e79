package ignore

// This file is a port of git's wildmatch.c (dowild), the matcher behind
// .gitignore patterns, pathspecs and fnmatch in git. The port keeps the
// control flow of the C code so that its corner cases (escapes, "**" only
// next to slashes, "[!...]" and "[^...]" negation, POSIX classes, ranges,
// ']' first in a class) behave exactly like git.

// Match flags.
const (
	// Pathname makes '*', '?' and classes refuse '/', and enables "**/"
	// (git's WM_PATHNAME).
	Pathname = 1 << iota
	// CaseFold compares ASCII letters case-insensitively (WM_CASEFOLD).
	CaseFold
)

const (
	wmMatch           = 0
	wmNoMatch         = 1
	wmAbortAll        = -1
	wmAbortToStarStar = -2
)

// Wildmatch reports whether text matches the wildmatch pattern with flags
// (Pathname, CaseFold), exactly as git's wildmatch() does.
func Wildmatch(pattern, text string, flags int) bool {
	return dowild(pattern, 0, text, 0, flags) == wmMatch
}

func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func toLower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}
func toUpper(c byte) byte {
	if isLower(c) {
		return c - ('a' - 'A')
	}
	return c
}

// at returns s[i] or 0 past the end (C strings are NUL-terminated).
func at(s string, i int) byte {
	if i < len(s) && i >= 0 {
		return s[i]
	}
	return 0
}

// dowild matches text[t:] against pat[p:] (wmMatch, wmNoMatch, or
// wmAbortAll/wmAbortToStarStar to stop the callers' retries).
//
// Long: a port of git's wildmatch.c dowild, kept case for case with the C
// so that it can be checked against git's source and its test table.
func dowild(pat string, p int, text string, t int, flags int) int {
	for ; at(pat, p) != 0; t, p = t+1, p+1 {
		pCh := pat[p]
		tCh := at(text, t)
		if tCh == 0 && pCh != '*' {
			return wmAbortAll
		}
		if flags&CaseFold != 0 {
			tCh = toLower(tCh)
			pCh = toLower(pCh)
		}
		switch pCh {
		case '\\':
			// Literal match with the following character; a trailing
			// backslash matches nothing (the NUL never equals tCh).
			p++
			pCh = at(pat, p) // not case-folded, as in git
			if tCh != pCh || pCh == 0 {
				return wmNoMatch
			}
			continue
		default:
			if tCh != pCh {
				return wmNoMatch
			}
			continue
		case '?':
			if flags&Pathname != 0 && tCh == '/' {
				return wmNoMatch
			}
			continue
		case '*':
			var matchSlash bool
			p++
			if at(pat, p) == '*' {
				prevP := p - 2
				for p++; at(pat, p) == '*'; p++ {
				}
				if flags&Pathname == 0 {
					matchSlash = true
				} else if (prevP < 0 || pat[prevP] == '/') &&
					(at(pat, p) == 0 || at(pat, p) == '/' ||
						(at(pat, p) == '\\' && at(pat, p+1) == '/')) {
					// "**/" may match nothing: try the rest of the
					// pattern on the remaining text first.
					if at(pat, p) == '/' && dowild(pat, p+1, text, t, flags) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				} else {
					matchSlash = false
				}
			} else {
				matchSlash = flags&Pathname == 0
			}
			if at(pat, p) == 0 {
				// Trailing "**" matches everything; trailing "*" only
				// when no slash remains.
				if !matchSlash {
					for i := t; i < len(text); i++ {
						if text[i] == '/' {
							return wmNoMatch
						}
					}
				}
				return wmMatch
			} else if !matchSlash && at(pat, p) == '/' {
				// One asterisk followed by a slash matches the next
				// directory.
				slash := -1
				for i := t; i < len(text); i++ {
					if text[i] == '/' {
						slash = i
						break
					}
				}
				if slash < 0 {
					return wmNoMatch
				}
				t = slash
				// The slash is consumed by the loop.
				continue
			}
			for {
				if tCh == 0 {
					break
				}
				// Advance fast when the star is followed by a literal.
				if !isGlobSpecial(at(pat, p)) {
					pc := at(pat, p)
					if flags&CaseFold != 0 {
						pc = toLower(pc)
					}
					for {
						tCh = at(text, t)
						if tCh == 0 || (!matchSlash && tCh == '/') {
							break
						}
						if flags&CaseFold != 0 {
							tCh = toLower(tCh)
						}
						if tCh == pc {
							break
						}
						t++
					}
					if tCh != pc {
						if matchSlash {
							return wmAbortAll
						}
						return wmAbortToStarStar
					}
				}
				matched := dowild(pat, p, text, t, flags)
				if matched != wmNoMatch {
					if !matchSlash || matched != wmAbortToStarStar {
						return matched
					}
				} else if !matchSlash && tCh == '/' {
					return wmAbortToStarStar
				}
				t++
				tCh = at(text, t)
				if flags&CaseFold != 0 {
					tCh = toLower(tCh)
				}
			}
			return wmAbortAll
		case '[':
			p++
			pCh = at(pat, p)
			if pCh == '^' {
				pCh = '!'
			}
			negated := pCh == '!'
			if negated {
				p++
				pCh = at(pat, p)
			}
			var prevCh byte
			matched := false
			for {
				if pCh == 0 {
					return wmAbortAll
				}
				if pCh == '\\' {
					p++
					pCh = at(pat, p)
					if pCh == 0 {
						return wmAbortAll
					}
					if tCh == pCh {
						matched = true
					}
				} else if pCh == '-' && prevCh != 0 && at(pat, p+1) != 0 && at(pat, p+1) != ']' {
					p++
					pCh = at(pat, p)
					if pCh == '\\' {
						p++
						pCh = at(pat, p)
						if pCh == 0 {
							return wmAbortAll
						}
					}
					if tCh <= pCh && tCh >= prevCh {
						matched = true
					} else if flags&CaseFold != 0 && isLower(tCh) {
						u := toUpper(tCh)
						if u <= pCh && u >= prevCh {
							matched = true
						}
					}
					pCh = 0 // makes prevCh 0
				} else if pCh == '[' && at(pat, p+1) == ':' {
					p += 2
					s := p
					for ; at(pat, p) != 0 && at(pat, p) != ']'; p++ {
					}
					pCh = at(pat, p)
					if pCh == 0 {
						return wmAbortAll
					}
					i := p - s - 1
					if i < 0 || at(pat, p-1) != ':' {
						// No ":]": treat '[' as a normal member.
						p = s - 2
						pCh = '['
						if tCh == pCh {
							matched = true
						}
					} else {
						ok, valid := posixClass(pat[s:s+i], tCh, flags)
						if !valid {
							return wmAbortAll
						}
						if ok {
							matched = true
						}
						pCh = 0
					}
				} else if tCh == pCh {
					matched = true
				}
				prevCh = pCh
				p++
				pCh = at(pat, p)
				if pCh == ']' {
					break
				}
			}
			if matched == negated || (flags&Pathname != 0 && tCh == '/') {
				return wmNoMatch
			}
			continue
		}
	}
	if t < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// posixClass tests c against [:name:]; valid is false for unknown names.
//
// Long: one case per POSIX class, as git's wildmatch.c has them.
func posixClass(name string, c byte, flags int) (ok, valid bool) {
	isDigit := c >= '0' && c <= '9'
	isAlpha := isUpper(c) || isLower(c)
	isSpace := c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
	isPrint := c >= 0x20 && c < 0x7f
	switch name {
	case "alnum":
		return isAlpha || isDigit, true
	case "alpha":
		return isAlpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return isPrint && c != ' ', true
	case "lower":
		return isLower(c) || (flags&CaseFold != 0 && isUpper(c)), true
	case "print":
		return isPrint, true
	case "punct":
		return isPrint && c != ' ' && !isAlpha && !isDigit, true
	case "space":
		return isSpace, true
	case "upper":
		return isUpper(c) || (flags&CaseFold != 0 && isLower(c)), true
	case "xdigit":
		return isDigit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
