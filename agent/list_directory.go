package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashls/hashls/workspace"
	"github.com/hashls/hashls/workspace/search"
)

// list_directory limits.
const (
	listDirDefaultEntries   = 1000
	listDirMaxEntries       = 10000
	listDirDefaultRecursive = 10 // depth of a recursive listing without depth
	listDirMaxDepth         = 64
	listDirWalkCap          = 100000 // entries collected before the walk stops
)

type listDirectoryTool struct{}

func (listDirectoryTool) Name() string { return "list_directory" }
func (listDirectoryTool) Description() string {
	return "List a directory: kind, size, modification time; recursive to a depth; gitignore-aware"
}
func (listDirectoryTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"directory (default the root)"},` +
		`"recursive":{"type":"boolean","description":"list subdirectories too"},` +
		`"depth":{"type":"integer","minimum":1,"description":"levels (default 1, recursive 10; max 64)"},` +
		`"maxEntries":{"type":"integer","minimum":1,"description":"default 1000, max 10000"},` +
		`"gitignore":{"type":"boolean","description":"leave out ignored files (default true)"},` +
		`"hidden":{"type":"boolean","description":"include dot files (default true)"}` +
		`},"additionalProperties":false}`)
}

// dirEntry is one listed path.
type dirEntry struct {
	Path    string    `json:"path"` // root-relative
	Name    string    `json:"name"`
	Kind    string    `json:"kind"` // "file", "directory", "symlink" or "other"
	Size    int64     `json:"size"`
	ModTime time.Time `json:"modTime,omitzero"`
	Overlay bool      `json:"overlay,omitempty"` // open in the editor: size is the buffer's

	typeName string // what the text calls an entry of kind "other" or "symlink" (workspace.TypeName)
}

type listDirectoryDetails struct {
	Path         string     `json:"path"`
	Entries      []dirEntry `json:"entries"`
	TotalEntries int        `json:"totalEntries"` // before maxEntries (a lower bound when walkCapped)
	Truncated    bool       `json:"truncated"`
	Depth        int        `json:"depth"`
	WalkCapped   bool       `json:"walkCapped,omitempty"`
	Unreadable   int        `json:"unreadable,omitempty"` // directories the walk could not read
}

func (listDirectoryTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a struct {
		Path       string `json:"path"`
		Recursive  bool   `json:"recursive"`
		Depth      *int   `json:"depth"`
		MaxEntries *int   `json:"maxEntries"`
		Gitignore  *bool  `json:"gitignore"`
		Hidden     *bool  `json:"hidden"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("list_directory: %v", err)}
	}
	depth, limit := 1, listDirDefaultEntries
	if a.Recursive {
		depth = listDirDefaultRecursive
	}
	if a.Depth != nil {
		if *a.Depth < 1 || *a.Depth > listDirMaxDepth {
			return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("list_directory: depth must be 1..%d, not %d", listDirMaxDepth, *a.Depth)}
		}
		depth = *a.Depth
	}
	if a.MaxEntries != nil {
		if *a.MaxEntries < 1 || *a.MaxEntries > listDirMaxEntries {
			return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("list_directory: maxEntries must be 1..%d, not %d", listDirMaxEntries, *a.MaxEntries)}
		}
		limit = *a.MaxEntries
	}
	if a.Path == "" {
		a.Path = "."
	}
	p, err := resolveArg(env, a.Path)
	if err != nil {
		return nil, err
	}
	info, err := env.WS.Stat(p)
	switch {
	case err != nil:
		return nil, err
	case !info.Exists:
		return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("list_directory: %s does not exist", p.Rel), SuggestedAction: "Check the path: list its parent directory[, or search for it with {find}]."}
	case info.Kind != workspace.InfoDir:
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("list_directory: %s is a %s, not a directory", p.Rel, info.Kind), SuggestedAction: "Give the path of a directory[; read a file with {read}]."}
	}

	dir, err := env.WS.OpenDir(p)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	var mu sync.Mutex
	var ents []dirEntry
	capped := false
	wo := search.WalkOptions{Hidden: a.Hidden == nil || *a.Hidden, Gitignore: a.Gitignore == nil || *a.Gitignore,
		Descend: func(rel string) bool { return strings.Count(rel, "/")+1 < depth }, Dir: dir}
	stats, err := search.Walk(ctx, p.Abs, wo, func(_ int, e *search.Entry) bool {
		de := dirEntry{Path: joinRel(p.Rel, e.Rel), Name: path.Base(e.Rel), Kind: entryKind(e.Type), typeName: workspace.TypeName(e.Type)}
		if fi, err := e.Info(); err == nil {
			de.ModTime = fi.ModTime()
			if de.Kind == workspace.InfoFile {
				de.Size = fi.Size()
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if len(ents) >= listDirWalkCap {
			capped = true
			return false
		}
		ents = append(ents, de)
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("list_directory: %s: %w", p.Rel, err)
	}
	ents = withOverlays(env, p, depth, wo, ents)
	sort.Slice(ents, func(i, j int) bool { return ents[i].Path < ents[j].Path })
	d := &listDirectoryDetails{Path: p.Rel, TotalEntries: len(ents), Depth: depth, WalkCapped: capped, Truncated: capped, Unreadable: int(stats.Unreadable)}
	if len(ents) > limit {
		ents, d.Truncated = ents[:limit], true
	}
	d.Entries = ents
	return &Result{Text: listDirectoryText(d), Details: d}, nil
}

// listDirectoryText is list_directory's text: the directory, its entries
// (sizes and times of files), and what was left out.
func listDirectoryText(d *listDirectoryDetails) string {
	ents, depth, capped := d.Entries, d.Depth, d.WalkCapped
	dir := d.Path
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s/ (%d entr%s", showName(dir), d.TotalEntries, map[bool]string{true: "y", false: "ies"}[d.TotalEntries == 1])
	if depth > 1 {
		fmt.Fprintf(&sb, ", depth %d", depth)
	}
	sb.WriteString(")\n")
	for _, e := range ents {
		name := strings.TrimPrefix(e.Path, dir+"/")
		if dir == "." {
			name = e.Path
		}
		name = showName(name)
		switch e.Kind {
		case workspace.InfoDir:
			fmt.Fprintf(&sb, "  %s/\n", name)
		case workspace.InfoFile:
			fmt.Fprintf(&sb, "  %s  %s  %s", name, humanSize(e.Size), e.ModTime.Format(time.DateTime))
			if e.Overlay {
				sb.WriteString("  (open in the editor)")
			}
			sb.WriteByte('\n')
		default:
			fmt.Fprintf(&sb, "  %s  (%s)\n", name, e.typeName)
		}
	}
	if d.Truncated {
		fmt.Fprintf(&sb, "[Showing %d of %d%s entries; raise maxEntries (at most %d), lower depth or list a subdirectory.]\n",
			len(ents), d.TotalEntries, map[bool]string{true: "+", false: ""}[capped], listDirMaxEntries)
	}
	if d.Unreadable > 0 {
		sb.WriteString(unreadableNote(d.Unreadable) + "\n")
	}
	return sb.String()
}

// entryKind names a walk entry's type.
func entryKind(t fs.FileMode) string {
	switch {
	case t.IsDir():
		return workspace.InfoDir
	case t&fs.ModeSymlink != 0:
		return workspace.InfoSymlink
	case t.IsRegular():
		return workspace.InfoFile
	default:
		return workspace.InfoOther
	}
}

// withOverlays applies the editor's open buffers below dir (within depth)
// that the walk with wo would list to ents: a listed file gets its
// buffer's size, an unsaved buffer with no file on disk is added.
func withOverlays(env *Env, dir workspace.Path, depth int, wo search.WalkOptions, ents []dirEntry) []dirEntry {
	open := openBuffersUnder(env, dir, wo)
	if len(open) == 0 {
		return ents
	}
	index := map[string]int{}
	for i, e := range ents {
		index[e.Path] = i
	}
	for _, b := range open {
		if strings.Count(b.rel, "/")+1 > depth {
			continue
		}
		info, err := env.WS.Stat(b.path)
		if err != nil || !info.Overlay {
			continue
		}
		if i, ok := index[b.path.Rel]; ok {
			ents[i].Size, ents[i].Overlay = info.Size, true
			continue
		}
		ents = append(ents, dirEntry{Path: b.path.Rel, Name: path.Base(b.path.Rel), Kind: workspace.InfoFile, Size: info.Size, ModTime: info.ModTime, Overlay: true})
	}
	return ents
}

// openBuffer is an open buffer below a directory.
type openBuffer struct {
	path workspace.Path
	rel  string // relative to the directory
}

// openBuffersUnder lists the editor's open buffers below dir that a walk
// of dir with opts lists (search.Filter: hidden names and gitignore apply
// to them as to the disk's entries), sorted by path.
func openBuffersUnder(env *Env, dir workspace.Path, opts search.WalkOptions) []openBuffer {
	var f *search.Filter
	var out []openBuffer
	for _, p := range env.WS.Overlays() {
		rel := p.Rel
		if dir.Rel != "." {
			if !strings.HasPrefix(rel, dir.Rel+"/") {
				continue
			}
			rel = strings.TrimPrefix(rel, dir.Rel+"/")
		}
		if f == nil {
			f = search.NewFilter(dir.Abs, opts)
		}
		if !f.Skip(rel, false) {
			out = append(out, openBuffer{path: p, rel: rel})
		}
	}
	return out
}
