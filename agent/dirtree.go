package agent

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashls/hashls/workspace"
	"github.com/hashls/hashls/workspace/search"
)

// Directory tree caps (read.md "Directory listings").
const (
	dirTreeDepth  = 2  // the directory's children and grandchildren
	dirTreePerDir = 12 // entries shown per directory; the rest are counted
)

// dirTreeSkip are directories listed but not descended into (".git" is
// not listed at all, as by every walk).
var dirTreeSkip = map[string]bool{".hg": true, ".svn": true, "node_modules": true}

// dirWalk is how a read of a directory walks it: as list_directory, find
// and search do by default (search.Walk's rules: .gitignore applies,
// hidden names are listed, .git never).
var dirWalk = search.WalkOptions{Hidden: true, Gitignore: true}

// dirTreeLimits is the structured part of a capped tree.
type dirTreeLimits struct {
	PerDir  int  `json:"perDir"`
	Depth   int  `json:"depth"`
	Elided  int  `json:"elided"`            // entries counted but not shown
	Cut     bool `json:"cut,omitempty"`     // the read caps stopped the tree
	Entries int  `json:"entries,omitempty"` // entries of the directory itself
}

// readDirectory renders a directory as a tree: depth 2, at most 12 entries
// per directory (newest first, then "… N more"), with sizes and relative
// ages, within read's line and byte caps.
func readDirectory(ctx context.Context, env *Env, p workspace.Path) (*Result, error) {
	ents, err := env.WS.ReadDir(p)
	if err != nil {
		return nil, err
	}
	t := &dirTree{env: env, now: time.Now(), top: p, filter: search.NewFilter(p.Abs, dirWalk)}
	ents = t.kept(p, ents)
	t.lim = &dirTreeLimits{PerDir: dirTreePerDir, Depth: dirTreeDepth, Entries: len(ents)}
	fmt.Fprintf(&t.sb, "%s/\n", showName(p.Rel))
	t.lines = 1
	if len(ents) == 0 {
		t.sb.WriteString("(empty directory)\n")
	}
	t.render(ctx, p, ents, 1)
	if t.lim.Cut {
		fmt.Fprintf(&t.sb, "[Listing cut at the %d-line / %d KiB read limit; read a subdirectory (%s/NAME) to see more.]\n", env.limits().ReadLines, env.limits().ReadBytes/1024, showName(p.Rel))
	} else if t.lim.Elided > 0 {
		fmt.Fprintf(&t.sb, "[%d entries not shown (at most %d per directory, %d levels deep); read a subdirectory to list it%s.]\n", t.lim.Elided, dirTreePerDir, dirTreeDepth, env.hint("[, or use {find} for a pattern]"))
	}
	d := &readDetails{Path: p.Rel, ResolvedPath: p.Rel, IsDirectory: true, Lines: len(ents), Kind: "directory", Tree: t.lim}
	return &Result{Text: t.sb.String(), Details: d}, nil
}

type dirTree struct {
	env    *Env
	now    time.Time
	top    workspace.Path
	filter *search.Filter // dirWalk's rules, from top
	sb     strings.Builder
	lines  int
	lim    *dirTreeLimits
}

// kept returns the entries of dir the walk rules keep.
func (t *dirTree) kept(dir workspace.Path, ents []workspace.DirEntry) []workspace.DirEntry {
	prefix := ""
	if dir.Rel != t.top.Rel {
		prefix = strings.TrimPrefix(dir.Rel, joinRel(t.top.Rel, "")) + "/"
	}
	return slices.DeleteFunc(ents, func(e workspace.DirEntry) bool { return t.filter.Skip(prefix+e.Name, e.Dir) })
}

// add writes one row, or reports false (and marks the tree cut) when the
// read caps are reached.
func (t *dirTree) add(row string) bool {
	if t.lim.Cut {
		return false
	}
	if t.lines+1 > t.env.limits().ReadLines-2 || t.sb.Len()+len(row)+1 > t.env.limits().ReadBytes-256 {
		t.lim.Cut = true
		return false
	}
	t.sb.WriteString(row)
	t.sb.WriteByte('\n')
	t.lines++
	return true
}

func (t *dirTree) render(ctx context.Context, dir workspace.Path, ents []workspace.DirEntry, depth int) {
	sortNewestFirst(ents)
	indent := strings.Repeat("  ", depth)
	for i, e := range ents {
		if ctx.Err() != nil {
			t.lim.Cut = true
			return
		}
		if i == dirTreePerDir {
			rest := len(ents) - i
			t.lim.Elided += rest
			t.add(fmt.Sprintf("%s… %d more", indent, rest))
			return
		}
		var row string
		if e.Dir {
			row = fmt.Sprintf("%s%s/%s", indent, showName(e.Name), t.age(e.ModTime, ""))
		} else {
			row = fmt.Sprintf("%s%s%s", indent, showName(e.Name), t.age(e.ModTime, humanSize(e.Size)))
		}
		if !t.add(row) {
			return
		}
		if e.Dir && depth < dirTreeDepth && !dirTreeSkip[e.Name] {
			child, err := t.env.WS.Resolve(joinRel(dir.Rel, e.Name))
			if err != nil {
				continue // a link out of the root: listed, not followed
			}
			kids, err := t.env.WS.ReadDir(child)
			if err != nil {
				t.add(fmt.Sprintf("%s  (cannot list: %v)", indent, err))
				continue
			}
			t.render(ctx, child, t.kept(child, kids), depth+1)
		}
	}
}

// sortNewestFirst orders siblings newest first, then by name.
func sortNewestFirst(ents []workspace.DirEntry) {
	sort.SliceStable(ents, func(i, j int) bool {
		if !ents[i].ModTime.Equal(ents[j].ModTime) {
			return ents[i].ModTime.After(ents[j].ModTime)
		}
		return ents[i].Name < ents[j].Name
	})
}

// age renders " (size, 3h ago)" (size may be "").
func (t *dirTree) age(mt time.Time, size string) string {
	var parts []string
	if size != "" {
		parts = append(parts, size)
	}
	if !mt.IsZero() {
		parts = append(parts, relativeAge(t.now.Sub(mt)))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// relativeAge renders a duration as "just now", "5m ago", "3h ago", "2d
// ago", "4mo ago" or "2y ago".
func relativeAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	case d < 365*24*time.Hour:
		return fmt.Sprintf("%dmo ago", int(d/(30*24*time.Hour)))
	default:
		return fmt.Sprintf("%dy ago", int(d/(365*24*time.Hour)))
	}
}
