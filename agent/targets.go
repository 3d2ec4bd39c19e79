package agent

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	pathpkg "path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashls/hashls/workspace"
	"github.com/hashls/hashls/workspace/archive"
	"github.com/hashls/hashls/workspace/sqlitedb"
)

// Archive listing cap (read.md "Limits & Caps").
const archiveListLimit = 500

// targetDetails is the structured part of an archive or SQLite read.
type targetDetails struct {
	Path         string           `json:"path"`
	ResolvedPath string           `json:"resolvedPath"` // the archive or database file
	Kind         string           `json:"kind"`         // archive, archive-member, sqlite
	Member       string           `json:"member,omitempty"`
	SHA256       string           `json:"sha256,omitempty"` // of the archive file (write's expectedSha256)
	IsDirectory  bool             `json:"isDirectory,omitempty"`
	Entries      int              `json:"entries,omitempty"`
	Lines        int              `json:"lines,omitempty"`
	Shown        *shownRange      `json:"shown,omitempty"`
	Truncation   *truncation      `json:"truncation,omitempty"`
	Binary       bool             `json:"binary,omitempty"`
	Raw          bool             `json:"raw,omitempty"`
	Limits       *targetListLimit `json:"limits,omitempty"`
	// Editable is always false: archive members and SQLite rows carry no
	// ¶PATH#TAG anchor; change them with write.
	Editable bool               `json:"editable"`
	SQLite   *sqlitedb.ReadInfo `json:"sqlite,omitempty"`
}

type targetListLimit struct {
	ResultLimit int `json:"resultLimit"`
	Total       int `json:"total"`
}

// targetWriteDetails is the structured part of an archive or SQLite write.
type targetWriteDetails struct {
	Path             string                `json:"path"`
	Kind             string                `json:"kind"` // archive-member, sqlite
	SourcePath       string                `json:"sourcePath"`
	Member           string                `json:"member,omitempty"`
	Op               string                `json:"op"`
	Bytes            int                   `json:"bytes,omitempty"`
	SHA256           string                `json:"sha256,omitempty"` // of the new archive file
	AuditID          int64                 `json:"auditId,omitempty"`
	TrashID          int64                 `json:"trashId,omitempty"`
	StrippedPrefixes bool                  `json:"strippedPrefixes,omitempty"`
	Row              *sqlitedb.WriteResult `json:"row,omitempty"`
}

// isRegular reports whether p is an existing regular file (or an open
// buffer).
func isRegular(env *Env, p workspace.Path) bool {
	in, err := env.WS.Stat(p)
	return err == nil && in.Regular
}

// archiveTarget picks the archive reading of path. forWrite falls back to
// the last candidate when no archive file exists yet.
func archiveTarget(env *Env, path string, forWrite bool) (p workspace.Path, c archive.Candidate, ok bool, err error) {
	cands := archive.Candidates(path)
	if len(cands) == 0 {
		return workspace.Path{}, archive.Candidate{}, false, nil
	}
	var firstErr error
	for _, c := range cands {
		p, err := env.WS.Resolve(c.Archive)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if isRegular(env, p) {
			return p, c, true, nil
		}
	}
	// No archive file exists. A plain file whose name merely holds ".zip:"
	// is read as a plain file.
	if whole, err := env.WS.Resolve(path); err == nil && isRegular(env, whole) {
		return workspace.Path{}, archive.Candidate{}, false, nil
	}
	if firstErr != nil {
		return workspace.Path{}, archive.Candidate{}, false, firstErr
	}
	last := cands[len(cands)-1]
	if forWrite {
		p, err := env.WS.Resolve(last.Archive)
		return p, last, err == nil, err
	}
	if !last.HasMember {
		return workspace.Path{}, archive.Candidate{}, false, nil // plain read reports the missing file
	}
	return workspace.Path{}, archive.Candidate{}, false, &Error{Kind: KindNotFound, Message: fmt.Sprintf("Archive %s not found.", last.Archive),
		SuggestedAction: "Check the path[ (list its directory with {list})], or write a member to create it."}
}

// sqliteTarget picks the SQLite reading of path: an existing file with a
// SQLite header. ok is false when path is better read as a plain file.
func sqliteTarget(env *Env, path, verb string) (p workspace.Path, c sqlitedb.Candidate, ok bool, err error) {
	cands := sqlitedb.Candidates(path)
	if len(cands) == 0 {
		return workspace.Path{}, sqlitedb.Candidate{}, false, nil
	}
	var firstErr error
	var nonSQLite *sqlitedb.Candidate
	var nonSQLiteRel string
	for i, c := range cands {
		p, err := env.WS.Resolve(c.DB)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if !isRegular(env, p) {
			continue
		}
		if isSQLite(env, p) {
			return p, c, true, nil
		}
		if nonSQLite == nil {
			nonSQLite, nonSQLiteRel = &cands[i], p.Rel
		}
	}
	if whole, err := env.WS.Resolve(path); err == nil && isRegular(env, whole) {
		return workspace.Path{}, sqlitedb.Candidate{}, false, nil
	}
	if nonSQLite != nil {
		if nonSQLite.Rest == "" {
			return workspace.Path{}, sqlitedb.Candidate{}, false, nil
		}
		// "notes.db:5" on a plain text file is a line selector.
		if verb == "read" && strings.HasPrefix(nonSQLite.Rest, ":") {
			if pp, _, err := workspace.SplitSelector(path); err == nil && pp == nonSQLite.DB {
				return workspace.Path{}, sqlitedb.Candidate{}, false, nil
			}
		}
		return workspace.Path{}, sqlitedb.Candidate{}, false, &Error{Kind: KindUsage, Message: fmt.Sprintf("%s is not a SQLite database (it lacks the \"SQLite format 3\" header), so %q is not a table selector. Use %s without the selector to %s it as a plain file.", nonSQLiteRel, nonSQLite.Rest, nonSQLite.DB, verb)}
	}
	if firstErr != nil {
		return workspace.Path{}, sqlitedb.Candidate{}, false, firstErr
	}
	last := cands[len(cands)-1]
	if last.Rest == "" {
		return workspace.Path{}, sqlitedb.Candidate{}, false, nil // a plain (missing or new) file
	}
	msg := fmt.Sprintf("SQLite database '%s' not found; a write never creates databases.", last.DB)
	if verb == "read" {
		msg = fmt.Sprintf("SQLite database '%s' not found.", last.DB)
	}
	return workspace.Path{}, sqlitedb.Candidate{}, false, &Error{Kind: KindNotFound, Message: msg, SuggestedAction: "Check the path[ (list its directory with {list})]."}
}

// isSQLite reports whether p is a SQLite database (a regular file with its
// header), read beneath the root.
func isSQLite(env *Env, p workspace.Path) bool {
	dir, name, err := env.WS.OpenParent(p)
	if err != nil {
		return false
	}
	defer dir.Close()
	return sqlitedb.IsSQLiteFile(sqlitedb.File{Dir: dir, Name: name})
}

// openSQLite opens the SQLite database p, read-only or for writing,
// through its directory opened beneath the root (sqlitedb.File: SQLite
// opens its files by name, and then names them through it).
func openSQLite(env *Env, p workspace.Path, write bool) (*sql.DB, error) {
	dir, name, err := env.WS.OpenParent(p)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	f := sqlitedb.File{Dir: dir, Name: name}
	if write {
		return sqlitedb.OpenReadWrite(f)
	}
	return sqlitedb.OpenReadOnly(f)
}

// readTarget reads an archive member or a SQLite target named by path. ok
// is false when path names neither (the caller reads a plain file).
func readTarget(ctx context.Context, env *Env, path string) (res *Result, ok bool, err error) {
	p, c, ok, err := archiveTarget(env, path, false)
	if err != nil {
		return nil, true, err
	}
	if ok {
		if err := ctx.Err(); err != nil {
			return nil, true, &Error{Kind: KindIO, Message: "read cancelled: " + err.Error(), Err: err}
		}
		res, err := readArchive(env, path, p, c)
		return res, true, err
	}
	sp, sc, ok, err := sqliteTarget(env, path, "read")
	if err != nil {
		return nil, true, err
	}
	if ok {
		res, err := readSQLite(ctx, env, path, sp, sc)
		return res, true, err
	}
	return nil, false, nil
}

func fileSHA256(env *Env, p workspace.Path) (string, error) {
	sum, err := env.WS.FileSHA256(p)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(sum[:]), nil
}

func archiveErr(p workspace.Path, err error) error {
	if errors.Is(err, archive.ErrCorrupt) {
		return &Error{Kind: KindIO, Message: fmt.Sprintf("Cannot read %s: %v. Check that it is a valid %s archive (re-create it, or replace the file).", p.Rel, err, strings.TrimPrefix(filepath.Ext(p.Rel), ".")), Err: err}
	}
	return &Error{Kind: KindIO, Message: fmt.Sprintf("Cannot read %s: %v", p.Rel, err), Err: err}
}

func readArchive(env *Env, path string, p workspace.Path, c archive.Candidate) (*Result, error) {
	memberStr, sel, err := workspace.SplitSelector(c.Member)
	if err != nil {
		return nil, &Error{Kind: KindUsage, Message: err.Error()}
	}
	member, _, err := archive.NormalizeMember(memberStr)
	if err != nil {
		return nil, &Error{Kind: KindUsage, Message: err.Error()}
	}
	f, err := env.WS.OpenReader(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	idx, err := archive.List(f)
	if err != nil {
		return nil, archiveErr(p, err)
	}
	sum, err := fileSHA256(env, p)
	if err != nil {
		return nil, archiveErr(p, err)
	}
	d := &targetDetails{Path: path, ResolvedPath: p.Rel, Member: member, SHA256: sum, Raw: sel.Raw}
	display := p.Rel + ":" + member
	if e, found := idx.Find(member); found && member != "" {
		return readArchiveMember(env, f, p, member, e, sel, d)
	}
	children, exists := idx.Children(member)
	if !exists {
		return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("%s has no entry %q. %s", p.Rel, member, archiveHint(idx, p.Rel, member))}
	}
	if len(sel.Ranges) > 0 {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("%s is a directory inside the archive; line selectors apply to files. Read %s:%s/<file>:N-M.", display, p.Rel, member)}
	}
	return listArchiveDir(idx, p, member, children, d), nil
}

// readArchiveMember reads the archive member e of the archive f (the file
// p) for a read with the selector sel: a link says where it points, a
// binary member is refused, text is shown as rows without a tag.
func readArchiveMember(env *Env, f *os.File, p workspace.Path, member string, e archive.Entry, sel workspace.Selector, d *targetDetails) (*Result, error) {
	display := p.Rel + ":" + member
	d.Kind = "archive-member"
	if e.Link != "" {
		d.Kind = "archive-link"
		what := "a symbolic link"
		target := e.Link
		if e.Hard {
			what = "a hard link"
		} else if !strings.HasPrefix(target, "/") {
			target = pathpkg.Join(archive.Dir(member), target)
		}
		return &Result{Text: fmt.Sprintf("%s is %s to %s (no content of its own). Read %s:%s for its content; a write through the link is refused.\n", display, what, e.Link, showName(p.Rel), target), Details: d}, nil
	}
	if e.Size > archive.MaxMemberBytes {
		return nil, &Error{Kind: KindIO, Message: fmt.Sprintf("Cannot read %s: the member is %s, over the %d MiB limit. Extract it with an archive tool instead.", display, humanSize(e.Size), archive.MaxMemberBytes>>20)}
	}
	data, err := archive.ReadMember(f, member, archive.MaxMemberBytes)
	switch {
	case errors.Is(err, archive.ErrTooLarge):
		return nil, &Error{Kind: KindIO, Message: fmt.Sprintf("Cannot read %s: the member is over the %d MiB limit. Extract it with an archive tool instead.", display, archive.MaxMemberBytes>>20), Err: err}
	case err != nil:
		return nil, archiveErr(p, err)
	}
	if workspace.IsBinary(data) || !utf8.Valid(data) {
		d.Binary = true
		return &Result{Text: fmt.Sprintf("[Cannot read binary archive entry '%s' (%s); only UTF-8 text members can be shown.]\n", display, humanSize(int64(len(data)))), Details: d}, nil
	}
	lines := splitDisplayLines(data)
	d.Lines = len(lines)
	if len(lines) == 0 {
		return &Result{Text: fmt.Sprintf("(empty archive member %s)\n", display), Details: d}, nil
	}
	// Members are not hashline-editable: rows carry line numbers
	// (unless :raw) but no ¶PATH#TAG anchor.
	text, shown, tr, _ := env.limits().renderRowsFrom(display, sliceLines(lines), sel, !sel.Raw)
	d.Shown, d.Truncation = shown, tr
	return &Result{Text: text, Details: d}, nil
}

// listArchiveDir lists the entries of the archive directory member (the
// whole archive when member is empty).
func listArchiveDir(idx *archive.Index, p workspace.Path, member string, children []archive.Entry, d *targetDetails) *Result {
	display := p.Rel + ":" + member
	d.Kind, d.IsDirectory, d.Entries = "archive", true, len(children)
	var sb strings.Builder
	if member == "" {
		fmt.Fprintf(&sb, "%s:\n", showName(p.Rel))
	} else {
		fmt.Fprintf(&sb, "%s/\n", display)
	}
	if len(children) == 0 {
		sb.WriteString("(empty archive)\n")
	}
	for i, e := range children {
		if i == archiveListLimit {
			d.Limits = &targetListLimit{ResultLimit: archiveListLimit, Total: len(children)}
			fmt.Fprintf(&sb, "[Showing %d of %d entries; read a subdirectory (%s:dir) to see the rest.]\n", archiveListLimit, len(children), showName(p.Rel))
			break
		}
		switch {
		case e.Link != "" && e.Hard:
			fmt.Fprintf(&sb, "  %s => %s (hard link)\n", e.Name, e.Link)
		case e.Link != "":
			fmt.Fprintf(&sb, "  %s -> %s (symlink)\n", e.Name, e.Link)
		case e.Dir:
			fmt.Fprintf(&sb, "  %s/\n", e.Name)
		case e.Size > 0:
			fmt.Fprintf(&sb, "  %s (%s)\n", e.Name, humanSize(e.Size))
		default:
			fmt.Fprintf(&sb, "  %s\n", e.Name)
		}
	}
	if idx.Unsafe > 0 && member == "" {
		fmt.Fprintf(&sb, "[%d entr%s with unsafe names (absolute or containing '..') not shown.]\n", idx.Unsafe, map[bool]string{true: "y", false: "ies"}[idx.Unsafe == 1])
	}
	return &Result{Text: sb.String(), Details: d}
}

// archiveHint suggests what to read when member is missing.
func archiveHint(idx *archive.Index, rel, member string) string {
	parent := archive.Dir(member)
	if kids, ok := idx.Children(parent); ok && len(kids) > 0 {
		var names []string
		for i, k := range kids {
			if i == 10 {
				names = append(names, "…")
				break
			}
			n := k.Name
			if k.Dir {
				n += "/"
			}
			names = append(names, n)
		}
		where := rel
		if parent != "" {
			where += ":" + parent
		}
		return fmt.Sprintf("Entries in %s: %s. Read %s to list them.", where, strings.Join(names, ", "), where)
	}
	return fmt.Sprintf("Read %s to list its entries.", rel)
}

func readSQLite(ctx context.Context, env *Env, path string, p workspace.Path, c sqlitedb.Candidate) (*Result, error) {
	sel, err := sqlitedb.ParseSelector(c.Rest)
	if err != nil {
		return nil, AsError(err)
	}
	db, err := openSQLite(env, p, false)
	if err != nil {
		return nil, AsError(err)
	}
	defer db.Close()
	text, info, err := sqlitedb.Read(ctx, db, p.Rel, sel)
	if err != nil {
		return nil, AsError(err)
	}
	d := &targetDetails{Path: path, ResolvedPath: p.Rel, Kind: "sqlite", SQLite: &info}
	if info.Kind == "list" && info.Truncated {
		d.Limits = &targetListLimit{ResultLimit: sqlitedb.MaxTables, Total: int(info.Total)}
	}
	return &Result{Text: text, Details: d}, nil
}

// writeTarget writes an archive member or a SQLite row named by path. ok is
// false when path names neither (the caller writes a plain file).
func writeTarget(ctx context.Context, env *Env, path, content string, expectedSha256 *string, allowVCS bool) (res *Result, ok bool, err error) {
	p, c, ok, err := archiveTarget(env, path, true)
	if err != nil {
		return nil, true, err
	}
	if ok {
		res, err := writeArchiveMember(ctx, env, path, p, c, content, expectedSha256, allowVCS)
		return res, true, err
	}
	sp, sc, ok, err := sqliteTarget(env, path, "write")
	if err != nil {
		return nil, true, err
	}
	if ok {
		res, err := writeSQLite(ctx, env, path, sp, sc, content, expectedSha256, allowVCS)
		return res, true, err
	}
	return nil, false, nil
}

func writeArchiveMember(ctx context.Context, env *Env, path string, p workspace.Path, c archive.Candidate, content string, want *string, allowVCS bool) (*Result, error) {
	if !c.HasMember {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("Archive write path must target a file inside the archive, e.g. %s:dir/file.txt", c.Archive)}
	}
	member, dir, err := archive.NormalizeMember(c.Member)
	if err != nil {
		return nil, &Error{Kind: KindUsage, Message: err.Error()}
	}
	if member == "" {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("Archive write path must target a file inside the archive, e.g. %s:dir/file.txt", c.Archive)}
	}
	if dir {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("Archive write path must target a file, not a directory: drop the trailing '/' from %s", c.Member)}
	}
	kind, _ := archive.KindOf(p.Abs)
	body, stripped, _ := stripReadPrefixes(content)
	var old []byte
	switch f, err := env.WS.ReadFile(p); {
	case err == nil:
		old = f.Bytes
	case workspace.IsKind(err, workspace.KindIsDir):
		return nil, &Error{Kind: KindIO, Message: fmt.Sprintf("Cannot write %s: it is a directory, not an archive.", p.Rel)}
	case !workspace.IsKind(err, workspace.KindNotFound):
		return nil, err
	}
	if want != nil {
		switch {
		case *want == "" && old != nil:
			return nil, &Error{Kind: KindStale, Message: fmt.Sprintf("%s already exists, but expectedSha256 \"\" says it must not. Read it to obtain the current sha256 (details.sha256) and retry.", p.Rel)}
		case *want != "" && old == nil:
			return nil, &Error{Kind: KindStale, Message: fmt.Sprintf("%s does not exist, but expectedSha256 names a version of it. Drop expectedSha256 (or pass \"\") to create it.", p.Rel)}
		case *want != "" && !strings.EqualFold(*want, sha256Hex(old)):
			return nil, &Error{Kind: KindStale, Message: fmt.Sprintf("%s changed since it was read (its sha256 is %s, not %s). Re-read it and retry.", p.Rel, sha256Hex(old), *want)}
		}
	}
	newBytes, err := archive.Rewrite(old, kind, member, []byte(body), time.Now())
	if err != nil {
		if errors.Is(err, archive.ErrCorrupt) {
			return nil, &Error{Kind: KindIO, Message: fmt.Sprintf("Cannot rewrite %s: %v. The archive was not changed; repair or remove it first.", p.Rel, err), Err: err}
		}
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("Cannot write %s:%s: %v", p.Rel, member, err), Err: err}
	}
	pw := plannedWrite(p, old, newBytes, "archive member "+member)
	pw.binary = true
	changes, err := commit(ctx, env, "write", []planned{pw}, allowVCS)
	if err != nil {
		return nil, err
	}
	d := &targetWriteDetails{Path: p.Rel + ":" + member, Kind: "archive-member", SourcePath: p.Rel, Member: member, Op: "create", Bytes: len(body), StrippedPrefixes: stripped, SHA256: changes[0].NewSHA256, AuditID: changes[0].AuditID}
	if old != nil {
		d.Op = "update"
	}
	if len(changes[0].TrashIDs) > 0 {
		d.TrashID = changes[0].TrashIDs[0]
	}
	text := fmt.Sprintf("Successfully wrote %d bytes to %s:%s", len(body), showName(p.Rel), member)
	if stripped {
		text += "\nNote: removed the pasted read header and N: prefixes; content must be the raw member text."
	}
	return &Result{Text: text, Details: d, Changes: changes}, nil
}

func writeSQLite(ctx context.Context, env *Env, path string, p workspace.Path, c sqlitedb.Candidate, content string, want *string, allowVCS bool) (*Result, error) {
	table, key, hasKey, err := sqlitedb.ParseWriteSelector(c.Rest)
	if err != nil {
		return nil, AsError(err)
	}
	if want != nil {
		return nil, &Error{Kind: KindUsage, Message: "expectedSha256 does not apply to SQLite row writes: rows have no file hash, and the database file changes under other writers. Drop expectedSha256; the write runs in one transaction."}
	}

	var wr sqlitedb.WriteResult
	rowName := p.Rel + ":" + table
	if hasKey {
		rowName += ":" + key
	}
	rc := workspace.RowChange{DB: p, Key: rowName, Apply: func(ctx context.Context, keepOld func([]byte) error) ([]byte, bool, string, error) {
		db, err := openSQLite(env, p, true)
		if err != nil {
			return nil, false, "", AsError(err)
		}
		defer db.Close()
		wr, err = sqlitedb.Write(ctx, db, p.Rel, table, key, hasKey, content, func(old json.RawMessage) error { return keepOld(old) })
		if err != nil {
			return nil, false, "", AsError(err)
		}
		return wr.NewRow, wr.Changed, "sqlite " + wr.Op, nil
	}}
	cf, err := env.WS.CommitRow(ctx, "write", rc, env.commitOptions(allowVCS))
	if err != nil {
		return nil, err
	}
	target := p.Rel + ":" + wr.Table
	if wr.Key != "" {
		target += ":" + wr.Key
	}
	d := &targetWriteDetails{Path: target, Kind: "sqlite", SourcePath: p.Rel, Op: wr.Op, Row: &wr, AuditID: cf.AuditID}
	if len(cf.TrashIDs) > 0 {
		d.TrashID = cf.TrashIDs[0]
	}
	text := wr.Text
	if wr.OldRow != nil && wr.Op == "delete" {
		text += "\nOld row (kept in the trash): " + compactJSON(wr.OldRow)
	}
	ch := Change{Path: target, Op: cf.Op, OldSHA256: cf.OldSHA256, NewSHA256: cf.NewSHA256, TrashIDs: cf.TrashIDs, AuditID: cf.AuditID}
	return &Result{Text: text, Details: d, Changes: []Change{ch}}, nil
}

func compactJSON(b json.RawMessage) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}
