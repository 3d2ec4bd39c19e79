package ignore

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// configFiles lists the git config files in increasing precedence: system
// (unless GIT_CONFIG_NOSYSTEM; GIT_CONFIG_SYSTEM overrides the path),
// global (GIT_CONFIG_GLOBAL, else $XDG_CONFIG_HOME/git/config and
// ~/.gitconfig) and the repository's (gitDir/config).
func configFiles(gitDir string) []string {
	home := os.Getenv("HOME")
	xdg := xdgConfigHome()
	var files []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		if p := os.Getenv("GIT_CONFIG_SYSTEM"); p != "" {
			files = append(files, p)
		} else {
			files = append(files, "/etc/gitconfig")
		}
	}
	if p := os.Getenv("GIT_CONFIG_GLOBAL"); p != "" {
		files = append(files, p)
	} else {
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	if gitDir != "" {
		files = append(files, filepath.Join(gitDir, "config"))
	}
	return files
}

func xdgConfigHome() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return x
	}
	if home := os.Getenv("HOME"); home != "" {
		return filepath.Join(home, ".config")
	}
	return ""
}

// lastConfigValue returns the value of section.key in the last file of
// files that sets it.
func lastConfigValue(files []string, section, key string) (string, bool) {
	value, found := "", false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if v, ok := configValue(b, section, key); ok {
			value, found = v, true
		}
	}
	return value, found
}

// configBool reads a git boolean.
func configBool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1":
		return true
	}
	return false
}

// globalExcludesFile returns the path of the global excludes file:
// core.excludesFile from the config files (the last one set wins; "~/"
// expanded), else $XDG_CONFIG_HOME/git/ignore (~/.config/git/ignore).
func globalExcludesFile(files []string) string {
	if v, ok := lastConfigValue(files, "core", "excludesfile"); ok && v != "" {
		if home := os.Getenv("HOME"); strings.HasPrefix(v, "~/") && home != "" {
			v = filepath.Join(home, v[2:])
		}
		return v
	}
	xdg := xdgConfigHome()
	if xdg == "" {
		return ""
	}
	return filepath.Join(xdg, "git", "ignore")
}

// configValue returns the last value of section.key (both lower case, no
// subsection) in a git config file. It understands the common syntax:
// [section], key = value, quotes, escapes and comments; include directives
// are not followed.
func configValue(data []byte, section, key string) (string, bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	cur := ""
	value, found := "", false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			name := strings.TrimSpace(line[1:end])
			if strings.ContainsAny(name, " \t\"") {
				cur = "" // subsection: not the one we want
			} else {
				cur = strings.ToLower(name)
			}
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		if cur != section {
			continue
		}
		k, v, hasEq := strings.Cut(line, "=")
		if strings.ToLower(strings.TrimSpace(k)) != key {
			continue
		}
		if !hasEq {
			value, found = "true", true
			continue
		}
		value, found = configUnquote(strings.TrimSpace(v)), true
	}
	return value, found
}

// configUnquote decodes a config value: quotes, escapes, trailing comments.
func configUnquote(v string) string {
	var b strings.Builder
	inQuote := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			inQuote = !inQuote
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				// backspace: drop the previous byte
				s := b.String()
				if len(s) > 0 {
					b.Reset()
					b.WriteString(s[:len(s)-1])
				}
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !inQuote:
			return strings.TrimRight(b.String(), " \t")
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimRight(b.String(), " \t")
}
