package agent

import (
	"context"
	"fmt"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/workspace"
)

// planned is one change a tool has planned, with what it saw: tools plan
// in memory, then hand every change to the workspace's commit path at once.
type planned struct {
	ch     workspace.Change
	old    []byte // the content the tool planned against; nil when absent
	diff   string // the tool's own diff; "" computes a unified diff
	oldTag string // old's tag when the tool has it; "" computes it
	binary bool   // no text diff (an archive)
}

// plannedWrite plans replacing the content old (nil: absent) of p by new.
func plannedWrite(p workspace.Path, old, new []byte, note string) planned {
	base := workspace.BaseAbsent()
	if old != nil {
		base = workspace.BaseOf(old)
	}
	return plannedChange(p, base, old, new, edit.Tag(new), note)
}

// plannedChange is plannedWrite for a caller that has base (old's sha256,
// or absent) and new's tag already, as the edit engine's result carries
// them: each is computed once per edit.
func plannedChange(p workspace.Path, base workspace.Base, old, new []byte, newTag, note string) planned {
	return planned{ch: workspace.Change{Path: p, Base: base, New: new, NewTag: newTag, Note: note}, old: old}
}

// plannedDelete plans deleting p, which holds old.
func plannedDelete(p workspace.Path, old []byte, note string) planned {
	return planned{ch: workspace.Change{Path: p, Base: workspace.BaseOf(old), Delete: true, Note: note}, old: old}
}

// commit applies the planned changes through the commit path, all or
// nothing, and returns them as typed changes in the same order. allowVCS
// is the caller's explicit override for changes under .git, .hg and .svn.
func commit(ctx context.Context, env *Env, tool string, plans []planned, allowVCS bool) ([]Change, error) {
	chs := make([]workspace.Change, len(plans))
	for i, p := range plans {
		chs[i] = p.ch
	}
	before := env.after.begin(ctx, env, plans)
	res, err := env.WS.Commit(ctx, tool, chs, env.commitOptions(allowVCS))
	if err != nil {
		return nil, err
	}
	if env.LS != nil {
		// The running language servers see what changed.
		var paths, deleted []string
		for _, f := range res.Files {
			if f.Op == "delete" {
				deleted = append(deleted, f.Path.Abs)
			} else {
				paths = append(paths, f.Path.Abs)
			}
		}
		env.LS.Changed(ctx, paths, deleted)
	}
	out := make([]Change, len(res.Files))
	for i, f := range res.Files {
		p := plans[i]
		c := Change{Path: f.Path.Rel, Op: f.Op, MovedFrom: f.MovedFrom, OldSHA256: f.OldSHA256, NewSHA256: f.NewSHA256,
			NewTag: f.NewTag, TrashIDs: f.TrashIDs, AuditID: f.AuditID, Overlay: f.Overlay, Note: f.Note, Diff: p.diff}
		switch {
		case p.oldTag != "":
			c.OldTag = p.oldTag
		case p.old != nil:
			c.OldTag = edit.Tag(p.old)
		}
		if c.Diff == "" && !p.binary {
			var nb []byte
			if !p.ch.Delete {
				nb = p.ch.New
			}
			c.Diff = edit.UnifiedDiff(f.Path.Rel, p.old, nb)
		}
		c.old, c.new, c.held = heldContents(p, f.Op, env.after)
		out[i] = c
	}
	if env.after != nil {
		out = env.after.formatChanged(ctx, env, tool, out, allowVCS)
		if env.after.format {
			// The diagnostics are of what is on disk now.
			for i := range plans {
				if f, err := env.WS.ReadFile(plans[i].ch.Path); err == nil && !plans[i].ch.Delete {
					plans[i].ch.New = f.Bytes
				}
			}
		}
		env.after.finish(ctx, env, before, plans)
	}
	return out, nil
}

// heldContents are p's content before and after its commit (op, the
// committed file's), when the commit proved the old one (a content base,
// or a file created) and no formatter is to change the new one after.
func heldContents(p planned, op string, after *afterEdit) (old, new []byte, ok bool) {
	if after != nil && after.format {
		return nil, nil, false
	}
	old = p.ch.Base.Content()
	if (old == nil) != (op == "create") {
		return nil, nil, false // (a base that proved no content)
	}
	if !p.ch.Delete {
		new = p.ch.New
	}
	return old, new, true
}

// ReplaceContent commits new in place of old (the content the caller saw,
// checked by the commit path) for path: a change the person makes from the
// editor that is no agent tool, such as undoing hunks of an agent's change
// under review. It is audited as tool, with note, under env's transport and
// attribution; the result names the new tag.
func ReplaceContent(ctx context.Context, env *Env, tool, path string, old, new []byte, note string) (*Result, error) {
	p, err := env.WS.Resolve(path)
	if err != nil {
		return nil, err
	}
	changes, err := commit(ctx, env, tool, []planned{plannedWrite(p, old, new, note)}, false)
	if err != nil {
		return nil, err
	}
	c := changes[0]
	return &Result{Text: fmt.Sprintf("%s\n%s: %s\n", header(c.Path, c.NewTag), note, showName(c.Path)), Details: map[string]any{"path": c.Path, "tag": c.NewTag, "sha256": c.NewSHA256, "auditId": c.AuditID}, Changes: changes}, nil
}
