package agent

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/workspace"
)

// applyPatchTool applies a Codex-format patch (*** Begin Patch … *** End
// Patch) to several files at once, all-or-nothing. Parsing and matching are
// package edit's (ParsePatch, ApplyPatchChunks); this file confines paths,
// checks the sha256 gate and plans the changes, which the workspace's commit
// path applies (locks, trash, atomic writes, audit, crash recovery).
type applyPatchTool struct{}

func (applyPatchTool) Name() string { return "apply_patch" }
func (applyPatchTool) Description() string {
	return "Apply a Codex-format patch to several files, all or nothing"
}
func (applyPatchTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"input":{"type":"string","description":"*** Begin Patch, then per file *** Add File: P (+ lines) | *** Delete File: P | *** Update File: P [*** Move to: Q] with @@ chunks of ' ' context, - and + lines, then *** End Patch"},` +
		`"expectedSha256ByPath":{"type":"object","additionalProperties":{"type":"string"},"description":"optional: path → sha256 it must have (\"\": must not exist)"},` +
		`"allowVcs":{"type":"boolean","description":"allow changes under .git, .hg or .svn"},` + afterEditProps +
		`},"required":["input"],"additionalProperties":false}`)
}

type applyPatchArgs struct {
	Input    string            `json:"input"`
	Expected map[string]string `json:"expectedSha256ByPath"`
	AllowVCS bool              `json:"allowVcs"`
}

// applyPatchFile is the per-file part of apply_patch's details.
type applyPatchFile struct {
	Path      string  `json:"path"`
	Op        string  `json:"op"` // "add", "update" or "delete"
	MovedFrom string  `json:"movedFrom,omitempty"`
	Tag       string  `json:"tag,omitempty"`    // new tag ("" for a delete)
	SHA256    string  `json:"sha256,omitempty"` // sha256 of the new bytes ("" for a delete)
	Overwrote bool    `json:"overwrote,omitempty"`
	Unchanged bool    `json:"unchanged,omitempty"`
	Diff      string  `json:"diff,omitempty"`
	AuditIDs  []int64 `json:"auditIds,omitempty"`
	TrashIDs  []int64 `json:"trashIds,omitempty"`
	Overlay   bool    `json:"overlay,omitempty"`
	Note      string  `json:"note,omitempty"`
}

type applyPatchDetails struct {
	Files []applyPatchFile `json:"files"`
	Diff  string           `json:"diff,omitempty"` // every file's diff, joined
}

func (d *applyPatchDetails) withoutDiffs() any {
	c := *d
	c.Diff = ""
	c.Files = withoutDiff(d.Files, func(f *applyPatchFile) *string { return &f.Diff })
	return &c
}

// patchTarget is one path a patch touches, as read under the lock.
type patchTarget struct {
	spelled string // as written in the patch
	path    workspace.Path
	file    *workspace.File // nil when the path does not exist
	isDir   bool
	symlink bool // the path as written is a symbolic link (Abs is its target)
}

func (t *patchTarget) old() []byte {
	if t.file == nil {
		return nil
	}
	return t.file.Bytes
}

// patchStep is one prepared file operation.
type patchStep struct {
	op       edit.PatchOp
	src      *patchTarget
	dst      *patchTarget // move destination, nil when not moving
	newBytes []byte       // add/update result
}

func (applyPatchTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a applyPatchArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: "apply_patch: " + err.Error()}
	}
	patch, err := edit.ParsePatch(a.Input)
	if err != nil {
		return nil, err
	}
	steps, targets, order, err := patchTargets(env, patch)
	if err != nil {
		return nil, err
	}
	expected, err := expectedHashes(env, a.Expected, targets)
	if err != nil {
		return nil, err
	}
	if err := readPatchTargets(env, order, targets, expected); err != nil {
		return nil, err
	}
	if err := patchContents(steps); err != nil {
		return nil, err
	}
	plans, files, owner, err := planPatch(env, steps)
	if err != nil {
		return nil, err
	}
	changes, err := commit(ctx, env, "apply_patch", plans, a.AllowVCS)
	if err != nil {
		return nil, err
	}
	patchFilesCommitted(files, owner, changes)
	res := applyPatchResult(files)
	res.Changes = changes
	return res, nil
}

// patchTargets resolves every path a patch names, one target per file; a
// file touched by two sections is refused.
func patchTargets(env *Env, patch *edit.Patch) (steps []*patchStep, targets map[string]*patchTarget, order []*patchTarget, err error) {
	targets = map[string]*patchTarget{}
	target := func(spelled string) (*patchTarget, error) {
		p, err := env.WS.Resolve(spelled)
		if err != nil {
			return nil, err
		}
		if t, ok := targets[p.Abs]; ok {
			return nil, &Error{Kind: KindInput, Message: fmt.Sprintf("Invalid patch: multiple operations target the same file %s ('%s' and '%s'). Use one section per file: a single '*** Update File:' can hold several @@ chunks.", p.Rel, t.spelled, spelled)}
		}
		t := &patchTarget{spelled: spelled, path: p, symlink: p.Link}
		targets[p.Abs] = t
		order = append(order, t)
		return t, nil
	}
	steps = make([]*patchStep, len(patch.Ops))
	for i, op := range patch.Ops {
		s := &patchStep{op: op}
		if s.src, err = target(op.Path); err != nil {
			return nil, nil, nil, err
		}
		if op.MoveTo != "" {
			p, err := env.WS.Resolve(op.MoveTo)
			if err != nil {
				return nil, nil, nil, err
			}
			if p.Abs != s.src.path.Abs {
				if s.dst, err = target(op.MoveTo); err != nil {
					return nil, nil, nil, err
				}
			}
		}
		steps[i] = s
	}
	return steps, targets, order, nil
}

// readPatchTargets reads every target (order; targets holds them by
// absolute path) and checks the sha256 gate (expected, by absolute path)
// before anything else looks at the content.
func readPatchTargets(env *Env, order []*patchTarget, targets map[string]*patchTarget, expected map[string]string) error {
	for _, t := range order {
		f, err := env.WS.ReadFile(t.path)
		switch {
		case err == nil:
			t.file = f
		case workspace.IsKind(err, workspace.KindNotFound):
		case workspace.IsKind(err, workspace.KindIsDir):
			t.isDir = true
		default:
			return err
		}
	}
	// The sha256 gate, before anything else looks at the content.
	for abs, want := range expected {
		t := targets[abs]
		switch {
		case want == "" && (t.file != nil || t.isDir):
			return &Error{Kind: KindStale, Message: fmt.Sprintf("Stale file: %s exists, but expectedSha256ByPath gave \"\" (must not exist). Re-read the file to obtain the current sha256 and re-apply your edit.", t.path.Rel)}
		case want != "" && t.file == nil:
			return &Error{Kind: KindStale, Message: fmt.Sprintf("Stale file: %s does not exist, but expectedSha256ByPath gave sha256 %s. Re-read the file to obtain the current sha256 and re-apply your edit.", t.path.Rel, want)}
		case want != "":
			if got := sha256Hex(t.file.Bytes); got != want {
				return &Error{Kind: KindStale, Message: fmt.Sprintf("Stale file: %s changed since it was read (sha256 is %s, expectedSha256ByPath gave %s). Re-read the file to obtain the current sha256 and re-apply your edit.", t.path.Rel, got, want)}
			}
		}
	}

	return nil
}

// patchContents computes every new content in memory: nothing is written
// unless all apply.
func patchContents(steps []*patchStep) error {
	for _, s := range steps {
		op, src := s.op, s.src
		switch op.Kind {
		case edit.PatchAdd:
			if src.isDir {
				return &Error{Kind: KindIO, Message: fmt.Sprintf("Failed to write file %s: it is a directory. Add File needs a file path.", op.Path)}
			}
			s.newBytes = edit.AddFileContent(op.Content, src.old())
		case edit.PatchDelete:
			if src.isDir {
				return &Error{Kind: KindIO, Message: fmt.Sprintf("Failed to delete file %s: it is a directory. Delete File removes one file; delete the files inside it one by one.", op.Path)}
			}
			if src.file == nil {
				return &Error{Kind: KindNotFound, Message: fmt.Sprintf("Failed to delete file %s: it does not exist; nothing was changed.", op.Path), SuggestedAction: "Check the path[ ({find} lists files)]."}
			}
			if src.symlink {
				return &Error{Kind: KindInput, Message: fmt.Sprintf("Failed to delete file %s: it is a symbolic link to %s. A patch does not delete through links; name the target path instead.", op.Path, src.path.Rel)}
			}
		case edit.PatchUpdate:
			if src.isDir {
				return &Error{Kind: KindIO, Message: fmt.Sprintf("Failed to read file to update %s: it is a directory. Update File needs a file path.", op.Path)}
			}
			if src.file == nil {
				return &Error{Kind: KindNotFound, Message: fmt.Sprintf("Failed to read file to update %s: file not found. Check the path, or create the file with '*** Add File: %s'; nothing was changed.", op.Path, op.Path)}
			}
			if workspace.IsBinary(src.file.Bytes) {
				return errBinary("apply_patch", op.Path, -1)
			}
			if s.dst != nil && src.symlink {
				return &Error{Kind: KindInput, Message: fmt.Sprintf("Failed to move %s: it is a symbolic link to %s. A patch does not move links; update the target path instead.", op.Path, src.path.Rel)}
			}
			if s.dst != nil && s.dst.isDir {
				return &Error{Kind: KindIO, Message: fmt.Sprintf("Failed to move %s to %s: the destination is a directory. Give the full new file path in '*** Move to:'.", op.Path, op.MoveTo)}
			}
			nb, err := edit.ApplyPatchChunks(op.Path, src.file.Bytes, op.Chunks)
			if err != nil {
				return err
			}
			s.newBytes = nb
		}
	}

	return nil
}

// planPatch plans the changes in patch order, to be committed at once:
// files are the details' entries and owner the plans of each.
func planPatch(env *Env, steps []*patchStep) (plans []planned, files []applyPatchFile, owner [][]int, err error) {
	for _, s := range steps {
		op, src := s.op, s.src
		switch {
		case op.Kind == edit.PatchDelete:
			files = append(files, applyPatchFile{Path: src.path.Rel, Op: "delete", Overlay: src.file.Overlay,
				Diff: edit.UnifiedDiff(src.path.Rel, src.file.Bytes, nil)})
			owner = append(owner, []int{len(plans)})
			plans = append(plans, plannedDelete(src.path, src.file.Bytes, "deleted"))
		case op.Kind == edit.PatchUpdate && s.dst == nil && bytes.Equal(s.newBytes, src.file.Bytes):
			tag := edit.Tag(src.file.Bytes)
			if err := record(env, src.path, tag, src.file.Bytes, nil, nil); err != nil {
				return nil, nil, nil, err
			}
			files = append(files, applyPatchFile{Path: src.path.Rel, Op: "update", Tag: tag, SHA256: sha256Hex(src.file.Bytes), Unchanged: true, Overlay: src.file.Overlay})
			owner = append(owner, nil)
		default:
			dest, kind := src, "add"
			if op.Kind == edit.PatchUpdate {
				kind = "update"
				if s.dst != nil {
					dest = s.dst
				}
			}
			fr := applyPatchFile{Path: dest.path.Rel, Op: kind, Overwrote: op.Kind == edit.PatchAdd && src.file != nil || s.dst != nil && s.dst.file != nil}
			if dest.file != nil {
				fr.Overlay = dest.file.Overlay
			}
			pw := plannedWrite(dest.path, dest.old(), s.newBytes, "")
			base := dest.old()
			idx := []int{len(plans)}
			if s.dst != nil {
				fr.MovedFrom = src.path.Rel
				base = src.file.Bytes
				pw.ch.MovedFrom = src.path.Rel
				pw.ch.Note = "moved from " + showName(src.path.Rel)
				if !src.file.Overlay {
					pw.ch.Mode = src.file.Mode // a moved file keeps its permissions
				}
				plans = append(plans, pw)
				idx = append(idx, len(plans))
				plans = append(plans, plannedDelete(src.path, src.file.Bytes, "moved to "+showName(dest.path.Rel)))
			} else {
				plans = append(plans, pw)
			}
			fr.Diff = edit.UnifiedDiff(dest.path.Rel, base, s.newBytes)
			plans[idx[0]].diff = fr.Diff
			files = append(files, fr)
			owner = append(owner, idx)
		}
	}
	return plans, files, owner, nil
}

// patchFilesCommitted fills each file entry with what the commit of its
// plans (owner) did: new tag and sha256, trash and audit ids, notes.
func patchFilesCommitted(files []applyPatchFile, owner [][]int, changes []Change) {
	for i := range files {
		for k, pi := range owner[i] {
			c := changes[pi]
			if k == 0 && c.Op != "delete" {
				files[i].Tag, files[i].SHA256 = c.NewTag, c.NewSHA256
			}
			files[i].TrashIDs = append(files[i].TrashIDs, c.TrashIDs...)
			if c.AuditID != 0 {
				files[i].AuditIDs = append(files[i].AuditIDs, c.AuditID)
			}
			if c.Note != "" {
				files[i].Note = c.Note
			}
		}
	}
}

// expectedHashes resolves the gate's paths to the targets' keys and checks
// the values ("" or 64 hex digits).
func expectedHashes(env *Env, m map[string]string, targets map[string]*patchTarget) (map[string]string, error) {
	out := map[string]string{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := strings.ToLower(strings.TrimSpace(m[k]))
		if v != "" {
			if b, err := hex.DecodeString(v); err != nil || len(b) != 32 {
				return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("apply_patch: expectedSha256ByPath[%q] = %q is not a sha256; give the 64 hex digits from read's sha256, or \"\" for a file that must not exist.", k, m[k])}
			}
		}
		p, err := env.WS.Resolve(k)
		if err != nil {
			return nil, err
		}
		if _, ok := targets[p.Abs]; !ok {
			return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("apply_patch: expectedSha256ByPath names %s, which the patch does not touch; fix the path or remove the entry.", k)}
		}
		if prev, ok := out[p.Abs]; ok && prev != v {
			return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("apply_patch: expectedSha256ByPath gives two different values for %s; give one.", p.Rel)}
		}
		out[p.Abs] = v
	}
	return out, nil
}

// applyPatchResult renders the summary: added, then modified, then deleted
// files, each with its ¶PATH#TAG header.
func applyPatchResult(files []applyPatchFile) *Result {
	var n [3]int
	var sb strings.Builder
	var diffs []string
	for pass, kind := range []string{"add", "update", "delete"} {
		for _, f := range files {
			if f.Op != kind {
				continue
			}
			n[pass]++
			if f.Diff != "" {
				diffs = append(diffs, f.Diff)
			}
			if f.Tag != "" {
				fmt.Fprintf(&sb, "%s\n", header(f.Path, f.Tag))
			}
			var parts []string
			switch {
			case kind == "add" && f.Overwrote:
				parts = append(parts, "replaced an existing file")
			case kind == "add":
				parts = append(parts, "new file")
			case kind == "delete":
				parts = append(parts, "deleted")
			}
			if f.MovedFrom != "" {
				parts = append(parts, "moved from "+showName(f.MovedFrom))
				if f.Overwrote {
					parts = append(parts, "replaced the existing file")
				}
			}
			if f.Unchanged {
				parts = append(parts, "unchanged (the chunks change nothing)")
			} else if kind == "add" && !f.Overwrote {
				plus, _ := diffCounts(f.Diff)
				if plus == 1 {
					parts = append(parts, "1 line")
				} else {
					parts = append(parts, fmt.Sprintf("%d lines", plus))
				}
			} else if kind != "delete" {
				plus, minus := diffCounts(f.Diff)
				parts = append(parts, fmt.Sprintf("+%d -%d lines", plus, minus))
			}
			if len(f.TrashIDs) > 0 {
				ids := make([]string, len(f.TrashIDs))
				for i, id := range f.TrashIDs {
					ids[i] = fmt.Sprintf("#%d", id)
				}
				parts = append(parts, "old content in trash "+strings.Join(ids, ", "))
			}
			if f.Note != "" {
				parts = append(parts, f.Note)
			}
			fmt.Fprintf(&sb, "%s %s: %s\n", map[string]string{"add": "A", "update": "M", "delete": "D"}[kind], f.Path, strings.Join(parts, "; "))
		}
	}
	head := fmt.Sprintf("Success. Applied the patch: %d added, %d modified, %d deleted.\n", n[0], n[1], n[2])
	return &Result{Text: head + strings.TrimSuffix(sb.String(), "\n"), Details: &applyPatchDetails{Files: files, Diff: strings.Join(diffs, "")}}
}

// diffCounts counts added and removed lines of a unified diff (after its
// two header lines).
func diffCounts(d string) (plus, minus int) {
	lines := strings.Split(d, "\n")
	for i, l := range lines {
		if i < 2 || strings.HasPrefix(l, "@@") {
			continue
		}
		if strings.HasPrefix(l, "+") {
			plus++
		} else if strings.HasPrefix(l, "-") {
			minus++
		}
	}
	return plus, minus
}
