package workspace

import (
	"fmt"
	"strings"
)

// This file is the Windows path grammar as pure string functions, so that
// its table tests run on every OS (path_windows.go applies it; elsewhere a
// name such as "a:b" or "NUL" is an ordinary file name).
//
// A path hashls accepts on Windows is one of
//
//	rel\a.go, rel/a.go          relative to the workspace root
//	C:\root\a.go, C:/root/a.go  absolute with a drive letter
//	\\server\share\root\a.go    absolute on a share (UNC)
//	\\?\C:\root\a.go            the long-path prefix, removed
//	\\?\UNC\server\share\a.go   the same for a share, made \\server\share\a.go
//	/C:/root/a.go, \C:\root     the path part of a file:///C:/... URI
//
// and is then confined to the root like any other. Refused, with the
// reason: a drive-relative path ("C:a.go", "C:"), a path rooted on the
// current drive ("\a.go"), the device namespaces ("\\.\", "\??\", and
// "\\?\" before anything but a drive or UNC), a ':' in a name (an alternate
// data stream such as "a.txt:stream", which would write beside the file,
// not into it), the characters Windows forbids in names (< > " | ? * and
// control characters), a name ending in '.' or ' ' (Windows drops them, so
// "a.go." would be "a.go" and ".. " would be ".."), and the reserved device
// names (CON, PRN, AUX, NUL, COM0-9, LPT0-9, CONIN$, CONOUT$, with any
// extension: "nul.txt" is the NUL device too).
//
// Case-insensitivity and 8.3 short names ("PROGRA~1") need the disk, not
// the string: Resolve's filepath.EvalSymlinks replaces each existing name
// by its long name in its stored case, so every spelling of an existing
// file leads to one Path.

// windowsPath checks p against the Windows path grammar and returns it with
// its long-path or URI prefix removed and '/' turned into '\'.
func windowsPath(p string) (string, error) {
	orig := p
	p = strings.ReplaceAll(p, "/", `\`)
	refuse := func(why string) (string, error) {
		return "", &Error{Kind: KindInvalid, Msg: fmt.Sprintf("path %s %s", shortPrefix(orig), why)}
	}
	// The path part of a file URI: \C:\x -> C:\x.
	if len(p) >= 3 && p[0] == '\\' && isDriveLetter(p[1]) && p[2] == ':' && (len(p) == 3 || p[3] == '\\') {
		p = p[1:]
	}
	switch {
	case strings.HasPrefix(p, `\\?\UNC\`):
		p = `\\` + p[len(`\\?\UNC\`):]
	case strings.HasPrefix(p, `\\?\`):
		rest := p[len(`\\?\`):]
		if len(rest) < 3 || !isDriveLetter(rest[0]) || rest[1] != ':' || rest[2] != '\\' {
			return refuse(`uses a Windows device path (\\?\ before something other than a drive or UNC share); give a path with a drive letter, such as C:\dir\file, or one relative to the workspace root`)
		}
		p = rest
	case strings.HasPrefix(p, `\\.\`), strings.HasPrefix(p, `\??\`):
		return refuse(`names a Windows device (\\.\ or \??\), not a file; give a path relative to the workspace root`)
	}
	var names string
	switch {
	case len(p) >= 2 && isDriveLetter(p[0]) && p[1] == ':':
		if len(p) == 2 || p[2] != '\\' {
			return refuse(fmt.Sprintf(`is relative to the current directory of drive %c:, which hashls does not use; write %c:\ and the full path, or a path relative to the workspace root`, p[0], p[0]))
		}
		names = p[3:]
	case strings.HasPrefix(p, `\\`):
		parts := strings.SplitN(p[2:], `\`, 3)
		if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
			return refuse(`is an incomplete network path; write \\server\share\dir\file`)
		}
		for _, s := range parts[:2] {
			if why := windowsNameProblem(s); why != "" {
				return refuse(why)
			}
		}
		if len(parts) == 3 {
			names = parts[2]
		}
	case strings.HasPrefix(p, `\`):
		return refuse(`starts at the root of the current drive; write the drive letter (C:\...) or a path relative to the workspace root`)
	default:
		names = p
	}
	for _, name := range strings.Split(names, `\`) {
		if why := windowsNameProblem(name); why != "" {
			return refuse(why)
		}
	}
	return p, nil
}

// windowsNameProblem says what is wrong with one element of a Windows path
// ("" when nothing is).
func windowsNameProblem(name string) string {
	if name == "" || name == "." || name == ".." {
		return ""
	}
	if i := strings.IndexByte(name, ':'); i >= 0 {
		return fmt.Sprintf("names an alternate data stream (%q after the ':' in %q), which hashls does not read or write; give the file's own path", name[i+1:], name)
	}
	for _, c := range name {
		if c < 32 || strings.ContainsRune(`<>"|?*`, c) {
			return fmt.Sprintf("has a character Windows forbids in file names (%q in %q); rename it without < > \" | ? * or control characters", c, name)
		}
	}
	if last := name[len(name)-1]; last == '.' || last == ' ' {
		return fmt.Sprintf("has a name ending in %q (%q), which Windows drops, so it would name another file; write the name without it", last, name)
	}
	if isReservedWindowsName(name) {
		return fmt.Sprintf("uses %q, a reserved Windows device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9, with any extension); choose another name", name)
	}
	return ""
}

// isReservedWindowsName reports whether name is a DOS device name, with or
// without an extension ("NUL", "com1.txt", "Aux .go").
func isReservedWindowsName(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	base = strings.TrimRight(base, " ")
	switch strings.ToUpper(base) {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) >= 4 {
		prefix := strings.ToUpper(base[:3])
		if prefix == "COM" || prefix == "LPT" {
			switch base[3:] {
			case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
				return true
			}
		}
	}
	return false
}

func isDriveLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// shortPrefix is s, or its first 200 bytes quoted when it is longer.
func shortPrefix(s string) string {
	if len(s) > 200 {
		return fmt.Sprintf("%q…", s[:200])
	}
	return s
}
