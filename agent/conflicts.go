package agent

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/workspace"
	"github.com/hashls/hashls/workspace/conflict"
)

// Merge conflicts: read FILE:conflicts lists the regions with their ids;
// write FILE:conflict:N replaces region N by the content. The listing
// records the file's content under the conflicts key; a write is refused
// unless the file's current content is one a listing showed, so ids always
// name the regions the caller saw.

// conflictsKey is the store key of a file's conflict listings.
func conflictsKey(p workspace.Path) workspace.Path {
	return workspace.Path{Abs: p.Abs + "#conflicts", Rel: p.Rel}
}

// conflictRegion is one region in read's details.
type conflictRegion struct {
	ID          int    `json:"id"`
	Start       int    `json:"start"`
	End         int    `json:"end"`
	OursLabel   string `json:"oursLabel,omitempty"`
	TheirsLabel string `json:"theirsLabel,omitempty"`
	Diff3       bool   `json:"diff3,omitempty"`
	Target      string `json:"target"` // write path resolving it
}

// maxConflictSideLines bounds the lines shown per side of one region.
const maxConflictSideLines = 60

func readConflicts(env *Env, p workspace.Path, data []byte, d *readDetails) (*Result, error) {
	regs := conflict.Parse(data)
	tag := edit.Tag(data)
	d.Kind, d.Tag = "conflicts", tag
	if len(regs) == 0 {
		return &Result{Text: fmt.Sprintf("%s\nNo merge-conflict regions (<<<<<<< … ======= … >>>>>>>) in %s.\n", header(p.Rel, tag), showName(p.Rel)), Details: d}, nil
	}
	if err := record(env, conflictsKey(p), tag, data, nil, nil); err != nil {
		return nil, err
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s\n%d merge-conflict region%s in %s:\n", header(p.Rel, tag), len(regs), plural(len(regs)), showName(p.Rel))
	var out []conflictRegion
	var seen []workspace.LineRange
	for _, r := range regs {
		target := fmt.Sprintf("%s:conflict:%d", showName(p.Rel), r.ID)
		out = append(out, conflictRegion{ID: r.ID, Start: r.Start, End: r.End, OursLabel: r.OursLabel, TheirsLabel: r.TheirsLabel, Diff3: r.HasBase, Target: target})
		if sb.Len() > env.limits().ReadBytes {
			continue // the ids and ranges are in details; the text stays in its cap
		}
		fmt.Fprintf(&sb, "\n[conflict %d] lines %d-%d → write %s\n", r.ID, r.Start, r.End, target)
		seen = append(seen, workspace.LineRange{Start: r.Start, End: r.End})
		writeSide(&sb, "ours", r.OursLabel, r.OursStart, r.Ours)
		if r.HasBase {
			writeSide(&sb, "base", r.BaseLabel, r.BaseStart, r.Base)
		}
		writeSide(&sb, "theirs", r.TheirsLabel, r.TheirsStart, r.Theirs)
	}
	if sb.Len() > env.limits().ReadBytes {
		fmt.Fprintf(&sb, "\n[Listing cut at %d KiB; every region's id and lines are in details.conflicts. Read %s:A-B for a region's text.]\n", env.limits().ReadBytes/1024, showName(p.Rel))
	}
	if h := env.hint("[Resolve a region with {write} path %s:conflict:N and its replacement text as content (the markers go too); ids stay valid until the file changes.]"); h != "" {
		fmt.Fprintf(&sb, "\n"+h+"\n", showName(p.Rel))
	}
	// The rows shown are anchors an edit may use as well.
	if err := record(env, p, tag, data, nil, nonNil(seen)); err != nil {
		return nil, err
	}
	d.Conflicts = out
	return &Result{Text: sb.String(), Details: d, Shown: []Shown{{Path: p.Rel, Tag: tag, SHA256: d.SHA256}}}, nil
}

func writeSide(sb *strings.Builder, side, label string, start int, lines []string) {
	name := side
	if label != "" {
		name += " (" + label + ")"
	}
	if len(lines) == 0 {
		fmt.Fprintf(sb, "%s: (empty)\n", name)
		return
	}
	fmt.Fprintf(sb, "%s: lines %d-%d\n", name, start, start+len(lines)-1)
	for i, l := range lines {
		if i == maxConflictSideLines {
			fmt.Fprintf(sb, "  … %d more lines (read %s lines %d-%d)\n", len(lines)-i, side, start+i, start+len(lines)-1)
			break
		}
		fmt.Fprintf(sb, "%d:%s\n", start+i, l)
	}
}

// writeConflict replaces conflict region id of the file at path by
// content, through the commit path.
func writeConflict(ctx context.Context, env *Env, path string, id int, content string, want *string, allowVCS bool) (*Result, error) {
	p, err := env.WS.Resolve(path)
	if err != nil {
		return nil, err
	}
	f, err := env.WS.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if err := checkExpectedSha(p, f.Bytes, want); err != nil {
		return nil, err
	}
	st := env.WS.Store()
	if st == nil {
		return nil, &Error{Kind: KindStore, Message: fmt.Sprintf("Cannot resolve %s:conflict:%d: the store is unavailable, so the conflict listing cannot be checked.", showName(p.Rel), id),
			SuggestedAction: "Fix the state directory (hashls doctor), or edit the markers[ with {edit}]."}
	}
	tag := edit.Tag(f.Bytes)
	snap, ok, err := st.LookupMeta(conflictsKey(p).Abs, tag)
	if err != nil {
		return nil, err
	}
	if !ok || snap.SHA256 != sha256.Sum256(f.Bytes) {
		return nil, &Error{Kind: KindStale, Message: fmt.Sprintf("%s changed since its conflicts were listed (or they never were), so conflict %d may name another region. Read %s:conflicts again and use the id it shows.", p.Rel, id, p.Rel)}
	}
	regs := conflict.Parse(f.Bytes)
	if id > len(regs) {
		return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("%s has %d conflict region%s; there is no conflict %d. Read %s:conflicts to list them.", p.Rel, len(regs), plural(len(regs)), id, p.Rel)}
	}
	r := regs[id-1]
	body, stripped, _ := stripReadPrefixes(content)
	newBytes, err := conflict.Replace(f.Bytes, r, body)
	if err != nil {
		return nil, &Error{Kind: KindInternal, Message: "conflict replace: " + err.Error(), Err: err}
	}
	pw := plannedWrite(p, f.Bytes, newBytes, fmt.Sprintf("resolved conflict %d (lines %d-%d)", id, r.Start, r.End))
	changes, err := commit(ctx, env, "write", []planned{pw}, allowVCS)
	if err != nil {
		return nil, err
	}
	c := changes[0]
	rest := conflict.Parse(newBytes)
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s\nResolved conflict %d of %s (lines %d-%d replaced by %d line%s).", header(p.Rel, c.NewTag), id, showName(p.Rel), r.Start, r.End, countLines(body), plural(countLines(body)))
	if stripped {
		sb.WriteString("\nNote: removed the pasted read header and N: row prefixes.")
	}
	if len(rest) > 0 {
		// The new content's regions are the old ones less this one: they
		// are listed, so their ids (renumbered) are valid for the next write.
		if err := record(env, conflictsKey(p), c.NewTag, newBytes, nil, nil); err != nil {
			return nil, err
		}
		var ids []string
		for _, r := range rest {
			ids = append(ids, fmt.Sprintf("%d (lines %d-%d)", r.ID, r.Start, r.End))
		}
		fmt.Fprintf(&sb, "\n%d conflict%s remain, renumbered: %s.", len(rest), plural(len(rest)), strings.Join(ids, ", "))
	} else {
		sb.WriteString("\nNo conflict regions remain.")
	}
	d := &writeDetails{Path: p.Rel, Tag: c.NewTag, SHA256: c.NewSHA256, Op: "update", Bytes: len(newBytes), Diff: c.Diff, AuditID: c.AuditID, StrippedPrefixes: stripped}
	if len(c.TrashIDs) > 0 {
		d.TrashID = c.TrashIDs[0]
	}
	return &Result{Text: sb.String(), Details: d, Changes: changes}, nil
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}
