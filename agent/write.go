package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/workspace"
)

type writeTool struct{}

func init() { register(writeTool{}) }

func (writeTool) Name() string { return "write" }
func (writeTool) Description() string {
	return "Create or overwrite a file with the given content (old content to the trash, a fresh ¶PATH#TAG back); also an archive member (a.zip:dir/f.txt) or a SQLite row (db.sqlite:table inserts, db.sqlite:table:key updates, blank content deletes)"
}
func (writeTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"File path inside the root (missing parent directories are created), an archive member a.zip:dir/f.txt (the archive is rewritten atomically, created if missing), or a SQLite row: db.sqlite:table (insert) or db.sqlite:table:key (update; blank content deletes)"},"content":{"type":"string","description":"The complete new content of the file or member; for SQLite a JSON5 object of column values"},"expectedSha256":{"type":"string","description":"Optional stale-file gate: the sha256 (hex) of the file as you read it (read's details.sha256); \"\" means the file must not exist yet"}},"required":["path","content"],"additionalProperties":false}`)
}

type writeArgs struct {
	Path           string  `json:"path"`
	Content        string  `json:"content"`
	ExpectedSha256 *string `json:"expectedSha256"`
}

type writeDetails struct {
	Path    string `json:"path"`
	Tag     string `json:"tag"`
	Op      string `json:"op"` // "create" or "update"
	Bytes   int    `json:"bytes"`
	Diff    string `json:"diff,omitempty"`
	AuditID int64  `json:"auditId,omitempty"`
	TrashID int64  `json:"trashId,omitempty"`
	// StrippedPrefixes is set when pasted ¶PATH#TAG / N: read prefixes were removed.
	StrippedPrefixes bool `json:"strippedPrefixes,omitempty"`
}

var (
	pastedHeaderRE = regexp.MustCompile(`^(?:¶|\[)[^\n]*#[0-9A-Fa-f]{4}\]?[ \t]*\r?\n`)
	pastedRowRE    = regexp.MustCompile(`^[1-9][0-9]*:`)
)

// stripReadPrefixes removes a ¶PATH#TAG header and N: row prefixes copied
// from read output, but only when every line carries a prefix.
func stripReadPrefixes(s string) (string, bool) {
	out := pastedHeaderRE.ReplaceAllString(s, "")
	changed := out != s
	lines := strings.SplitAfter(out, "\n")
	n := 0
	for _, l := range lines {
		if l == "" {
			continue
		}
		if !pastedRowRE.MatchString(l) {
			return out, changed
		}
		n++
	}
	if n == 0 {
		return out, changed
	}
	for i, l := range lines {
		if loc := pastedRowRE.FindStringIndex(l); loc != nil {
			lines[i] = l[loc[1]:]
		}
	}
	return strings.Join(lines, ""), true
}

func (writeTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a writeArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: "write: " + err.Error()}
	}
	if strings.TrimSpace(a.Path) == "" {
		return nil, &Error{Kind: KindUsage, Message: "write: path is empty; pass the file to create or overwrite"}
	}
	if res, ok, err := writeTarget(ctx, env, a.Path, a.Content, a.ExpectedSha256); ok || err != nil {
		return res, err
	}
	p, err := env.WS.Resolve(a.Path)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(p.Abs); err == nil && st.IsDir() {
		return nil, &Error{Kind: KindIO, Message: fmt.Sprintf("Cannot write %s: it is a directory. Pass a file path.", p.Rel)}
	}
	content, stripped := stripReadPrefixes(a.Content)
	unlock, err := env.WS.Lock(ctx, p)
	if err != nil {
		return nil, err
	}
	defer unlock()

	var old []byte
	d := &writeDetails{Path: p.Rel, Op: "create", Bytes: len(content), StrippedPrefixes: stripped}
	f, err := env.WS.ReadFile(p)
	switch {
	case err == nil:
		old = f.Bytes
		d.Op = "update"
	case workspace.IsKind(err, workspace.KindNotFound):
		if err := os.MkdirAll(filepath.Dir(p.Abs), 0o755); err != nil {
			return nil, &Error{Kind: KindIO, Message: fmt.Sprintf("Cannot create the directory for %s: %v", p.Rel, err), Err: err}
		}
	default:
		return nil, err
	}
	if want := a.ExpectedSha256; want != nil {
		switch {
		case *want == "" && old != nil:
			return nil, &Error{Kind: KindStale, Message: fmt.Sprintf("%s already exists, but expectedSha256 \"\" says it must not. Re-read the file to obtain the current sha256 and re-apply your edit.", p.Rel)}
		case *want != "" && old == nil:
			return nil, &Error{Kind: KindStale, Message: fmt.Sprintf("%s does not exist any more, but expectedSha256 names a version of it. Re-read the file to obtain the current sha256 and re-apply your edit.", p.Rel)}
		case *want != "" && !strings.EqualFold(*want, sha256Hex(old)):
			return nil, &Error{Kind: KindStale, Message: fmt.Sprintf("%s changed since it was read (its sha256 is %s, not %s). Re-read the file to obtain the current sha256 and re-apply your edit.", p.Rel, sha256Hex(old), *want)}
		}
	}
	newBytes := []byte(content)
	st := env.WS.Store()
	if old != nil && st != nil {
		if d.TrashID, err = st.Trash(p.Abs, old, "write"); err != nil {
			return nil, err
		}
	}
	if err := env.WS.WriteFile(ctx, p, old, newBytes, "hashls write"); err != nil {
		return nil, err
	}
	d.Tag = edit.Tag(newBytes)
	if d.AuditID, err = commitChange(env, "write", p, old, newBytes, d.Tag, ""); err != nil {
		return nil, unrecorded(p, err)
	}
	if old != nil {
		d.Diff = edit.UnifiedDiff(p.Rel, old, newBytes)
	}
	text := fmt.Sprintf("¶%s#%s\nSuccessfully wrote %d bytes to %s", p.Rel, d.Tag, len(newBytes), p.Rel)
	if stripped {
		text += "\nNote: removed ¶PATH#TAG / N: prefixes copied from read output; content must be the raw file text."
	}
	return &Result{Text: text, Details: d}, nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
