package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path"

	"github.com/hashls/hashls/workspace"
)

// delete_file, restore_file and move_file: a file's lifecycle in the file
// tools. A delete keeps the content in the trash, restore_file brings a
// trash entry back (restore's code) and never overwrites what it has not
// been shown, and a move is one commit of the destination written and the
// source deleted, never onto an existing path.

type deleteFileTool struct{}
type restoreFileTool struct{}
type moveFileTool struct{}

func (deleteFileTool) Name() string { return "delete_file" }
func (deleteFileTool) Description() string {
	return "Delete a file into the trash (restore_file brings it back); optionally only if expectedSha256 is still its sha256"
}
func (deleteFileTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"one file"},` +
		`"expectedSha256":{"type":"string","description":"read_file's sha256"},` +
		`"allowVcs":{"type":"boolean","description":"allow changes under .git, .hg or .svn"}` +
		`},"required":["path"],"additionalProperties":false}`)
}

func (restoreFileTool) Name() string { return "restore_file" }
func (restoreFileTool) Description() string {
	return "Restore a trashed file by trash id, or by path (its newest entry); an existing file is replaced only with expectedSha256 of its content"
}
func (restoreFileTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"id":{"type":"integer","minimum":1,"description":"trash entry id"},` +
		`"path":{"type":"string","description":"without id: the deleted file; with id: restore here"},` +
		`"expectedSha256":{"type":"string","description":"sha256 of the file it replaces"},` +
		`"allowVcs":{"type":"boolean","description":"allow changes under .git, .hg or .svn"}` +
		`},"additionalProperties":false}`)
}

func (moveFileTool) Name() string { return "move_file" }
func (moveFileTool) Description() string {
	return "Move or rename a file, never over an existing one; optionally only if expectedSha256 is still the source's sha256"
}
func (moveFileTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"source":{"type":"string","description":"file to move"},` +
		`"destination":{"type":"string","description":"new path (must not exist)"},` +
		`"expectedSha256":{"type":"string","description":"the source's sha256"},` +
		`"allowVcs":{"type":"boolean","description":"allow changes under .git, .hg or .svn"}` +
		`},"required":["source","destination"],"additionalProperties":false}`)
}

func (deleteFileTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a struct {
		Path           string  `json:"path"`
		ExpectedSha256 *string `json:"expectedSha256"`
		AllowVCS       bool    `json:"allowVcs"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("delete_file: %v", err)}
	}
	f, err := gatedSource(env, "delete_file", "path", a.Path, a.ExpectedSha256)
	if err != nil {
		return nil, err
	}
	changes, err := commit(ctx, env, "delete_file", []planned{plannedDelete(f.Path, f.Bytes, "deleted")}, a.AllowVCS)
	if err != nil {
		return nil, err
	}
	head := fmt.Sprintf("Deleted %s", showName(f.Path.Rel))
	if ids := changes[0].TrashIDs; len(ids) > 0 {
		head += fmt.Sprintf(`; restore it with restore_file {"id": %d}`, ids[0])
	}
	return fileWriteResult(changes, nil, head), nil
}

func (restoreFileTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a struct {
		ID             *int64  `json:"id"`
		Path           string  `json:"path"`
		ExpectedSha256 *string `json:"expectedSha256"`
		AllowVCS       bool    `json:"allowVcs"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("restore_file: %v", err)}
	}
	if err := checkSHAArg("restore_file", "expectedSha256", a.ExpectedSha256, false); err != nil {
		return nil, err
	}
	var id int64
	switch {
	case a.ID != nil && *a.ID < 1:
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("restore_file: id %d is not a trash entry id", *a.ID), SuggestedAction: "Pass the id of a trash entry[ ({trash} lists them)], or the path of the deleted file."}
	case a.ID != nil:
		id = *a.ID
	case a.Path == "":
		return nil, &Error{Kind: KindUsage, Message: "restore_file: give id or path", SuggestedAction: "Pass the trash entry id, or the path of the deleted file."}
	default:
		newest, err := newestTrash(env, a.Path)
		if err != nil {
			return nil, err
		}
		id = newest
	}
	// Never overwrite what the caller has not been shown.
	gate := func(p workspace.Path, exists bool, sum string) error {
		if exists && a.ExpectedSha256 == nil {
			return &Error{Kind: KindAlreadyExists, Message: fmt.Sprintf(
				"restore_file: %s exists; restoring over it needs expectedSha256 of its current content. Nothing was changed", p.Rel), SuggestedAction: "Read it with read_file and pass its sha256 as expectedSha256 to replace it, or restore to another path."}

		}
		return checkExpectedSum(p, exists, sum, a.ExpectedSha256)
	}
	target := ""
	if a.ID != nil {
		target = a.Path
	}
	r, err := restoreTrash(ctx, env, "restore_file", id, target, a.AllowVCS, gate)
	if err != nil {
		return nil, err
	}
	return fileWriteResult(r.changes, nil, fmt.Sprintf("Restored %s (%d bytes) from trash #%d", showName(r.path.Rel), r.size, r.entry.ID)), nil
}

// newestTrash returns the id of the newest trash entry of the file spelled.
func newestTrash(env *Env, spelled string) (int64, error) {
	st, err := storeOf(env, "restore_file")
	if err != nil {
		return 0, err
	}
	p, err := resolveFile(env, "restore_file", "path", spelled)
	if err != nil {
		return 0, err
	}
	ents, err := st.TrashList(p.Abs, 1)
	if err != nil {
		return 0, err
	}
	if len(ents) == 0 {
		return 0, &Error{Kind: KindNotFound, Message: fmt.Sprintf("restore_file: the trash holds nothing for %s", p.Rel), SuggestedAction: "Check the path[; {trash} lists what the trash holds, to restore by id]."}
	}
	return ents[0].ID, nil
}

func (moveFileTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a struct {
		Source         string  `json:"source"`
		Destination    string  `json:"destination"`
		ExpectedSha256 *string `json:"expectedSha256"`
		AllowVCS       bool    `json:"allowVcs"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("move_file: %v", err)}
	}
	src, err := gatedSource(env, "move_file", "source", a.Source, a.ExpectedSha256)
	if err != nil {
		return nil, err
	}
	dst, err := resolveFile(env, "move_file", "destination", a.Destination)
	if err != nil {
		return nil, err
	}
	if dst.Abs == src.Path.Abs {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("move_file: source and destination are the same file (%s)", dst.Rel), SuggestedAction: "Give a different destination."}
	}
	if info, err := env.WS.Stat(dst); err == nil && info.Dir {
		into := joinRel(dst.Rel, path.Base(src.Path.Rel))
		return nil, &Error{Kind: KindAlreadyExists, Message: fmt.Sprintf(
			"move_file: %s already exists (a directory); move_file never overwrites, and the destination is the file's new path, not a directory to move it into. Nothing was changed", dst.Rel), SuggestedAction: fmt.Sprintf("To move the file into that directory, give its full new path: {\"source\": %q, \"destination\": %q}.", src.Path.Rel, into)}

	}
	if err := mustNotExist(env, "move_file", dst); err != nil {
		return nil, err
	}
	// One commit: the destination written (moved from the source) and the
	// source deleted; a rename has no text diff.
	to := plannedWrite(dst, nil, src.Bytes, "moved from "+showName(src.Path.Rel))
	to.ch.MovedFrom, to.binary = src.Path.Rel, true
	if !src.Overlay {
		to.ch.Mode = src.Mode // a moved file keeps its permissions
	}
	from := plannedDelete(src.Path, src.Bytes, "moved to "+showName(dst.Rel))
	from.binary = true
	changes, err := commit(ctx, env, "move_file", []planned{to, from}, a.AllowVCS)
	if err != nil {
		return nil, existsOnStale(env, "move_file", dst, err)
	}
	return fileWriteResult(changes, nil, fmt.Sprintf("Moved %s to %s", showName(src.Path.Rel), showName(dst.Rel))), nil
}

// gatedSource reads the one existing file a delete or move acts on: a
// symbolic link (the tools never act through one) and a directory are
// refused, and expectedSha256, when given, must be its sha256.
func gatedSource(env *Env, tool, field, spelled string, expected *string) (*workspace.File, error) {
	if err := checkSHAArg(tool, "expectedSha256", expected, false); err != nil {
		return nil, err
	}
	p, err := resolveFile(env, tool, field, spelled)
	if err != nil {
		return nil, err
	}
	if p.Link {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: %s is a symbolic link; %s does not act through links", tool, shortQuote(spelled), tool), SuggestedAction: "Name the link's target (" + p.Rel + ") instead."}
	}
	if info, err := env.WS.Stat(p); err == nil && info.Dir {
		verb := map[string]string{"delete_file": "delete", "move_file": "move"}[tool]
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf(
			"%s: %s is a directory; %s acts on one file, not a directory. Nothing was changed", tool, p.Rel, tool), SuggestedAction: fmt.Sprintf("List its files with list_directory {\"path\": %q, \"recursive\": true} and %s them one at a time.", p.Rel, verb)}

	}
	var f *workspace.File
	if expected != nil && *expected != "" {
		f, err = readGated(env, tool, p)
	} else {
		f, err = readExisting(env, tool, p, true)
	}
	if err != nil {
		return nil, err
	}
	if err := checkExpectedSha(p, f.Bytes, expected); err != nil {
		return nil, err
	}
	return f, nil
}
