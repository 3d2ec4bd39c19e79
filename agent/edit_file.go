package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hashls/hashls/workspace"
)

// edit_file limits.
const (
	editFileMaxEdits   = 200
	editFileShownLines = 5 // match line numbers listed in an ambiguity error
)

type editFileTool struct{}

func (editFileTool) Name() string { return "edit_file" }
func (editFileTool) Description() string {
	return "Replace exact text in a file, edits in order, all or none, only if expectedSha256 is still its sha256; each oldText must match once (or use replaceAll)"
}
func (editFileTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"file path"},` +
		`"expectedSha256":{"type":"string","description":"read_file's sha256"},` +
		`"edits":{"type":"array","minItems":1,"items":{"type":"object","properties":{"oldText":{"type":"string","description":"exact text, whitespace included"},"newText":{"type":"string"},"replaceAll":{"type":"boolean"}},"required":["oldText","newText"],"additionalProperties":false}},` +
		`"allowVcs":{"type":"boolean","description":"allow changes under .git, .hg or .svn"},` + afterEditProps +
		`},"required":["path","expectedSha256","edits"],"additionalProperties":false}`)
}

// textEdit is one exact-string replacement.
type textEdit struct {
	OldText    string `json:"oldText"`
	NewText    string `json:"newText"`
	ReplaceAll bool   `json:"replaceAll"`
}

func (editFileTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	var a struct {
		Path           string     `json:"path"`
		ExpectedSha256 *string    `json:"expectedSha256"`
		Edits          []textEdit `json:"edits"`
		AllowVCS       bool       `json:"allowVcs"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields() // edits' items: Toolset.Run checks top-level fields only
	if err := dec.Decode(&a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("edit_file: %v", err), SuggestedAction: "Each edit is {\"oldText\": ..., \"newText\": ..., \"replaceAll\"?: bool}."}
	}
	if len(a.Edits) == 0 || len(a.Edits) > editFileMaxEdits {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("edit_file: edits must hold 1..%d edits, not %d", editFileMaxEdits, len(a.Edits))}
	}
	if err := checkSHAArg("edit_file", "expectedSha256", a.ExpectedSha256, true); err != nil {
		return nil, err
	}
	if *a.ExpectedSha256 == "" {
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("edit_file: expectedSha256 \"\" says %s must not exist, but this tool changes an existing file", shortQuote(a.Path)), SuggestedAction: "Create a new file[ with {create}]."}
	}
	p, err := resolveFile(env, "edit_file", "path", a.Path)
	if err != nil {
		return nil, err
	}
	f, err := readGated(env, "edit_file", p)
	if err != nil {
		return nil, err
	}
	// The sha256 gate first: a stale file is stale_file, whatever it holds.
	if err := checkExpectedSha(p, f.Bytes, a.ExpectedSha256); err != nil {
		return nil, err
	}
	if workspace.IsBinary(f.Bytes) {
		return nil, errBinary("edit_file", p.Rel, len(f.Bytes))
	}
	out, err := applyTextEdits(p.Rel, f.Bytes, a.Edits)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(out.content, f.Bytes) {
		return nil, &Error{Kind: KindNoChange, Message: fmt.Sprintf("edit_file: the edits leave %s unchanged", p.Rel), SuggestedAction: "Check newText: the file already holds the result; re-read it with read_file."}
	}
	changes, err := commit(ctx, env, "edit_file", []planned{plannedWrite(p, f.Bytes, out.content, "")}, a.AllowVCS)
	if err != nil {
		return nil, err
	}
	var notes []string
	if out.crlf {
		notes = append(notes, "oldText written with \\n matched the file's \\r\\n line endings; newText was written with \\r\\n")
	}
	n := 0
	for _, c := range out.counts {
		n += c
	}
	res := fileWriteResult(changes, notes, fmt.Sprintf("Edited %s: %d replacement%s", showName(p.Rel), n, plural(n)))
	res.Details.(*fileWriteDetails).Replacements = out.counts
	return res, nil
}

// textEditOutcome is what applyTextEdits did.
type textEditOutcome struct {
	content []byte
	counts  []int // replacements per edit
	crlf    bool  // some oldText matched only with its \n read as \r\n
}

// applyTextEdits applies edits in order to content, all or nothing: each
// oldText must occur exactly once in the text so far (any number of times,
// at least once, with ReplaceAll). A UTF-8 BOM is kept aside; an oldText
// with "\n" that is not found as given is tried with "\r\n" (newText then
// gets "\r\n" too). A miss whose oldText appears with other whitespace is
// reported with the lines of that near miss, never applied.
func applyTextEdits(path string, content []byte, edits []textEdit) (*textEditOutcome, error) {
	bom := ""
	text := string(content)
	if strings.HasPrefix(text, "\uFEFF") {
		bom, text = "\uFEFF", text[len("\uFEFF"):]
	}
	out := &textEditOutcome{counts: make([]int, len(edits))}
	for i, e := range edits {
		if e.OldText == "" {
			return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("edit_file: edits[%d].oldText is empty", i), SuggestedAction: "Give the exact text to replace[; to write a whole file use {write}][, to create one {create}]."}
		}
		if e.OldText == e.NewText {
			return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("edit_file: edits[%d] changes nothing (newText equals oldText)", i), SuggestedAction: "Leave the edit out, or give the newText you want."}
		}
		oldText, newText := e.OldText, e.NewText
		n := strings.Count(text, oldText)
		if n == 0 && strings.Contains(oldText, "\n") && strings.Contains(text, "\r\n") {
			if c := toCRLF(oldText); strings.Count(text, c) > 0 {
				oldText, newText, out.crlf = c, toCRLF(newText), true
				n = strings.Count(text, c)
			}
		}
		switch {
		case n == 0:
			return nil, missError(path, text, i, e.OldText)
		case n > 1 && !e.ReplaceAll:
			ls := newDisplayLines([]byte(text))
			var lines []string
			for off, k := 0, 0; k < n && k < editFileShownLines; k++ {
				j := strings.Index(text[off:], oldText)
				lines = append(lines, fmt.Sprint(ls.lineOf(off+j)))
				off += j + len(oldText)
			}
			if n > editFileShownLines {
				lines = append(lines, "…")
			}
			return nil, &Error{Kind: KindEdit, Message: fmt.Sprintf(
				"edit_file: edits[%d].oldText matches %d places in %s (lines %s); nothing was changed", i, n, path, strings.Join(lines, ", ")), SuggestedAction: "Add surrounding lines to oldText so that it matches exactly one place, or set replaceAll: true to replace every occurrence."}

		}
		if e.ReplaceAll {
			text = strings.ReplaceAll(text, oldText, newText)
		} else {
			text = strings.Replace(text, oldText, newText, 1)
		}
		out.counts[i] = n
	}
	out.content = []byte(bom + text)
	return out, nil
}

// toCRLF gives every line end of s as "\r\n".
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// missError is the error of an oldText found nowhere: a near miss (the
// same text with other whitespace) names its lines.
func missError(path, text string, i int, oldText string) *Error {
	msg := fmt.Sprintf("edit_file: edits[%d].oldText was not found in %s", i, path)
	if i > 0 {
		msg += " (after the edits before it)"
	}
	if from, to, ok := nearMiss(text, oldText); ok {
		span := fmt.Sprintf("line %d", from)
		if to > from {
			span = fmt.Sprintf("lines %d-%d", from, to)
		}
		return &Error{Kind: KindEdit, Message: fmt.Sprintf(
			"%s; the closest candidate, at %s, differs only in whitespace (spaces, tabs or line breaks). Nothing was changed", msg, span), SuggestedAction: fmt.Sprintf("Re-read %s with read_file (startLine %d, endLine %d) and copy oldText exactly, whitespace included.", span, from, to)}

	}
	return &Error{Kind: KindEdit, Message: fmt.Sprintf("%s; nothing was changed", msg), SuggestedAction: "Re-read the file with read_file and copy oldText exactly as it appears now, whitespace included."}
}

// nearMiss finds oldText in text ignoring all whitespace and returns the
// lines the first such occurrence spans.
func nearMiss(text, oldText string) (from, to int, ok bool) {
	squash := func(s string, keep func(i int)) string {
		var sb strings.Builder
		for i, r := range s {
			if unicode.IsSpace(r) {
				continue
			}
			sb.WriteRune(r)
			if keep != nil {
				for k := range utf8.RuneLen(r) { // as many bytes as WriteRune wrote
					keep(i + k)
				}
			}
		}
		return sb.String()
	}
	want := squash(oldText, nil)
	if want == "" {
		return 0, 0, false
	}
	var at []int // at[k]: the offset in text of byte k of the squashed text
	hay := squash(text, func(i int) { at = append(at, i) })
	j := strings.Index(hay, want)
	if j < 0 || len(at) != len(hay) {
		return 0, 0, false
	}
	ls := newDisplayLines([]byte(text))
	return ls.lineOf(at[j]), ls.lineOf(at[j+len(want)-1]), true
}
