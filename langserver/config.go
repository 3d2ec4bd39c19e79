package langserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashls/hashls/internal/kinded"
)

// ConfigFile is the per-root settings file read for server overrides.
const ConfigFile = ".hashls.json"

// Server is one language server definition.
type Server struct {
	Name string `json:"-"`
	// Command is the program and its arguments (the program is looked up
	// in PATH).
	Command []string `json:"command,omitempty"`
	// FileTypes are extensions (".go") or exact base names ("Dockerfile").
	FileTypes []string `json:"fileTypes,omitempty"`
	// RootMarkers: the server is used only when one of these exists at the
	// root (empty: always).
	RootMarkers []string `json:"rootMarkers,omitempty"`
	// Install is how to install the program, shown when it is missing.
	Install string `json:"install,omitempty"`
	// LanguageID is the textDocument languageId per file type (default:
	// derived from the extension).
	LanguageID map[string]string `json:"languageId,omitempty"`
	// InitOptions are sent as initializationOptions; Settings answer
	// workspace/configuration and are sent by didChangeConfiguration.
	InitOptions json.RawMessage `json:"initializationOptions,omitempty"`
	Settings    json.RawMessage `json:"settings,omitempty"`
	// Disabled turns a default server off.
	Disabled bool `json:"disabled,omitempty"`
}

// Defaults are the built-in server definitions (the first available server
// for a file type is its primary server).
func Defaults() []Server {
	return []Server{
		{Name: "gopls", Command: []string{"gopls"}, FileTypes: []string{".go", "go.mod", "go.sum", "go.work"},
			RootMarkers: []string{"go.mod", "go.work"}, Install: "go install golang.org/x/tools/gopls@latest",
			LanguageID: map[string]string{".go": "go", "go.mod": "go.mod", "go.sum": "go.sum", "go.work": "go.work"}},
		{Name: "basedpyright", Command: []string{"basedpyright-langserver", "--stdio"}, FileTypes: []string{".py", ".pyi"},
			RootMarkers: []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pyrightconfig.json"},
			Install:     "npm install -g basedpyright (or pip install basedpyright)"},
		{Name: "pyright", Command: []string{"pyright-langserver", "--stdio"}, FileTypes: []string{".py", ".pyi"},
			RootMarkers: []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pyrightconfig.json"},
			Install:     "npm install -g pyright"},
		{Name: "typescript-language-server", Command: []string{"typescript-language-server", "--stdio"},
			FileTypes:   []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"},
			RootMarkers: []string{"package.json", "tsconfig.json", "jsconfig.json"},
			Install:     "npm install -g typescript-language-server typescript",
			LanguageID:  map[string]string{".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact", ".jsx": "javascriptreact", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript"}},
		{Name: "rust-analyzer", Command: []string{"rust-analyzer"}, FileTypes: []string{".rs"},
			RootMarkers: []string{"Cargo.toml"}, Install: "rustup component add rust-analyzer"},
		{Name: "clangd", Command: []string{"clangd"}, FileTypes: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"},
			RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt", "Makefile"},
			Install:     "apt-get install clangd (or your OS's package of clangd)",
			LanguageID:  map[string]string{".c": "c", ".h": "c"}},
	}
}

// fileConfig is the shape of .hashls.json this package reads: other keys
// belong to others.
type fileConfig struct {
	LanguageServers map[string]Server `json:"languageServers"`
}

// Config is the servers of one root, in priority order.
type Config struct {
	Servers []Server
	// Source names where the configuration came from ("defaults" or the
	// settings file), for status.
	Source string
}

// LoadConfig builds the configuration of root: the defaults whose root
// markers exist at root, merged with the overrides in root/.hashls.json
// (a server named there replaces the fields it sets; a new name adds a
// server; "disabled": true removes one). extra, when not nil, is applied
// after the file (tests and embedders).
func LoadConfig(root string, extra map[string]Server) (*Config, error) {
	servers := Defaults()
	cfg := &Config{Source: "defaults"}
	b, err := os.ReadFile(filepath.Join(root, ConfigFile))
	switch {
	case err == nil:
		var fc fileConfig
		if err := json.Unmarshal(b, &fc); err != nil {
			return nil, fmt.Errorf("reading %s: %w; fix the JSON (languageServers: {name: {command, fileTypes, rootMarkers, settings}})", ConfigFile, err)
		}
		servers = merge(servers, fc.LanguageServers)
		cfg.Source = ConfigFile
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("reading %s: %w", ConfigFile, err)
	}
	if extra != nil {
		servers = merge(servers, extra)
	}
	for _, s := range servers {
		if s.Disabled || len(s.Command) == 0 || len(s.FileTypes) == 0 {
			continue
		}
		if len(s.RootMarkers) > 0 && !hasMarker(root, s.RootMarkers) {
			continue
		}
		cfg.Servers = append(cfg.Servers, s)
	}
	return cfg, nil
}

func merge(base []Server, over map[string]Server) []Server {
	names := make([]string, 0, len(over))
	for n := range over {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		o := over[n]
		o.Name = n
		found := false
		for i := range base {
			if base[i].Name != n {
				continue
			}
			found = true
			b := &base[i]
			if o.Command != nil {
				b.Command = o.Command
			}
			if o.FileTypes != nil {
				b.FileTypes = o.FileTypes
			}
			if o.RootMarkers != nil {
				b.RootMarkers = o.RootMarkers
			}
			if o.Install != "" {
				b.Install = o.Install
			}
			if o.LanguageID != nil {
				b.LanguageID = o.LanguageID
			}
			if o.InitOptions != nil {
				b.InitOptions = o.InitOptions
			}
			if o.Settings != nil {
				b.Settings = o.Settings
			}
			b.Disabled = o.Disabled
		}
		if !found {
			// A configured server comes before the defaults for its types.
			base = append([]Server{o}, base...)
		}
	}
	return base
}

func hasMarker(root string, markers []string) bool {
	for _, m := range markers {
		if _, err := os.Stat(filepath.Join(root, m)); err == nil {
			return true
		}
	}
	return false
}

// Matches reports whether s handles the file at path.
func (s Server) Matches(path string) bool {
	base := filepath.Base(path)
	ext := strings.ToLower(filepath.Ext(base))
	for _, t := range s.FileTypes {
		if t == base || (strings.HasPrefix(t, ".") && strings.EqualFold(t, ext)) {
			return true
		}
	}
	return false
}

// languageID is the languageId of path for s.
func (s Server) languageID(path string) string {
	base := filepath.Base(path)
	if id, ok := s.LanguageID[base]; ok {
		return id
	}
	ext := strings.ToLower(filepath.Ext(base))
	if id, ok := s.LanguageID[ext]; ok {
		return id
	}
	switch ext {
	case ".py", ".pyi":
		return "python"
	case ".rs":
		return "rust"
	case ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx":
		return "cpp"
	}
	return strings.TrimPrefix(ext, ".")
}

// Available reports whether s's program is found (in PATH or as a path).
func (s Server) Available() (string, bool) {
	p, err := exec.LookPath(s.Command[0])
	return p, err == nil
}

// Error is the package's one error type (internal/kinded's, as package
// workspace's is): its kind is kinded.NotFound for a server whose program
// is not installed (it wraps exec.ErrNotFound: missingErr) and
// kinded.Usage for a file no configured server handles (noServerErr).
type Error = kinded.Error

// missingErr is the error of a server whose program is not installed:
// what to install, or where to point the configuration.
func missingErr(s Server) error {
	msg := fmt.Sprintf("language server %s is not installed: %q was not found in PATH", s.Name, s.Command[0])
	if s.Install != "" {
		msg += "; install it with `" + s.Install + "`"
	}
	msg += ", or point " + ConfigFile + " languageServers." + s.Name + ".command at it"
	return &Error{Kind: kinded.NotFound, Msg: msg, Err: exec.ErrNotFound}
}
