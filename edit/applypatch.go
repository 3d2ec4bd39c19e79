package edit

// The Codex `apply_patch` format: a `*** Begin Patch` … `*** End Patch`
// envelope of Add File / Delete File / Update File sections, the last made of
// `@@` chunks of ' ', '-' and '+' lines located by fuzzy line matching.
//
// ParsePatch turns the text into plain values (no filesystem); ApplyPatchChunks
// computes an Update's new bytes from the old ones, and AddFileContent an Add's.
// The caller (package agent) resolves paths, reads, writes and rolls back.
//
// Behaviour follows the Codex reference implementation (codex-rs/apply-patch)
// in its "preserve line endings" mode, with these deliberate differences:
//   - an unanchored chunk (first chunk of a file, no `@@ <line>` header) whose
//     lines match at more than one place is refused as ambiguous instead of
//     taking the first match;
//   - several `@@ <line>` headers in a row narrow the search in turn, as the
//     Codex prompt promises;
//   - a unified-diff range header (`@@ -12,3 +12,4 @@ func f`) is accepted:
//     the ranges are ignored and any trailing text is the context line;
//   - a UTF-8 BOM is kept, and an End-of-File chunk never matches before the
//     end of the previous chunk.

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"github.com/hashls/hashls/internal/lazy"
)

// Patch operation kinds (PatchOp.Kind).
const (
	PatchAdd    = "add"
	PatchDelete = "delete"
	PatchUpdate = "update"
)

// Patch is a parsed apply_patch input.
type Patch struct {
	Ops []PatchOp
	// EnvironmentID is the value of a `*** Environment ID:` preamble line
	// (a Codex feature choosing a remote environment); "" when absent.
	EnvironmentID string
}

// PatchOp is one file section of a patch.
type PatchOp struct {
	Kind   string // PatchAdd, PatchDelete or PatchUpdate
	Path   string // as written in the header (trimmed)
	MoveTo string // Update only: the `*** Move to:` path, "" when none
	// Content is an Add's new text: every `+` line followed by "\n".
	Content string
	Chunks  []PatchChunk // Update only, at least one
	Line    int          // 1-based line of the header in the patch text
}

// PatchChunk is one `@@` chunk of an Update.
type PatchChunk struct {
	// Contexts are the texts of the chunk's `@@ <line>` headers, in order:
	// each is found (one line) after the previous, and the chunk's lines are
	// searched after the last. Empty for a bare `@@` or a header-less chunk.
	Contexts []string
	Lines    []PatchLine
	EOF      bool // `*** End of File`: the lines end the file
	Line     int  // 1-based line of the chunk's first line in the patch text
}

// PatchLine is one line of a chunk: Op is ' ' (context), '-' or '+'.
type PatchLine struct {
	Op   byte
	Text string
}

// Old returns the chunk's lines that must be in the file (context and '-').
func (c PatchChunk) Old() []string {
	var out []string
	for _, l := range c.Lines {
		if l.Op != '+' {
			out = append(out, l.Text)
		}
	}
	return out
}

// New returns the lines that replace Old (context and '+').
func (c PatchChunk) New() []string {
	var out []string
	for _, l := range c.Lines {
		if l.Op != '-' {
			out = append(out, l.Text)
		}
	}
	return out
}

const (
	beginPatchMarker = "*** Begin Patch"
	endPatchMarker   = "*** End Patch"
	addFileMarker    = "*** Add File: "
	deleteFileMarker = "*** Delete File: "
	updateFileMarker = "*** Update File: "
	moveToMarker     = "*** Move to: "
	eofMarker        = "*** End of File"
	envIDMarker      = "*** Environment ID:"
)

const patchShapeHint = "An apply_patch input is '*** Begin Patch', then sections '*** Add File: PATH' (+ lines), '*** Delete File: PATH' or '*** Update File: PATH' (optional '*** Move to: PATH', then @@ chunks of ' ', '-', '+' lines), then '*** End Patch'."

func patchErr(msg string) error {
	return &Error{Kind: KindParse, Msg: "Invalid patch: " + msg}
}

func hunkErr(line int, msg string) error {
	return &Error{Kind: KindParse, Msg: fmt.Sprintf("Invalid patch hunk on line %d: %s", line, msg)}
}

// unifiedRangeRE matches the range part of a unified-diff hunk header after
// "@@ ": "-12,3 +12,4 @@" plus optional trailing text.
var unifiedRangeRE = lazy.Regexp(`^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?`)

// ParsePatch parses an apply_patch input. The text is trimmed; marker lines
// are compared after trimming; CRLF line breaks are accepted; a heredoc
// wrapper (`<<EOF`, `<<'EOF'` or `<<"EOF"` … `EOF`) is stripped. Errors are
// *Error with Kind KindParse, worded "Invalid patch: …" or "Invalid patch
// hunk on line N: …" followed by what to fix.
func ParsePatch(text string) (*Patch, error) {
	lines, first := patchLines(text)
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != beginPatchMarker {
		return nil, patchErr("The first line of the patch must be '*** Begin Patch'. " + patchShapeHint)
	}
	if len(lines) < 2 || strings.TrimSpace(lines[len(lines)-1]) != endPatchMarker {
		return nil, patchErr("The last line of the patch must be '*** End Patch'. The patch may have been cut off: send the complete patch ending with the line '*** End Patch'.")
	}
	p := &Patch{}
	body := lines[1 : len(lines)-1]
	lineNo := func(i int) int { return first + 1 + i }
	i := 0
	if i < len(body) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(body[i]), envIDMarker); ok {
			p.EnvironmentID = strings.TrimSpace(rest)
			if p.EnvironmentID == "" {
				return nil, patchErr("apply_patch environment_id cannot be empty; remove the '*** Environment ID:' line or give an id.")
			}
			i++
		}
	}
	for i < len(body) {
		t := strings.TrimSpace(body[i])
		var op PatchOp
		var err error
		switch {
		case t == "":
			i++
			continue
		case t == endPatchMarker:
			return nil, hunkErr(lineNo(i), "unexpected text after '*** End Patch'; put every file section before the single '*** End Patch' line at the end.")
		case strings.HasPrefix(t+" ", addFileMarker):
			op, i, err = parseAdd(body, i, lineNo)
		case strings.HasPrefix(t+" ", deleteFileMarker):
			op, i, err = parseDelete(body, i, lineNo)
		case strings.HasPrefix(t+" ", updateFileMarker):
			op, i, err = parseUpdate(body, i, lineNo)
		default:
			return nil, hunkErr(lineNo(i), fmt.Sprintf("'%s' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'", t))
		}
		if err != nil {
			return nil, err
		}
		p.Ops = append(p.Ops, op)
	}
	if len(p.Ops) == 0 {
		return nil, &Error{Kind: KindParse, Msg: "No files were modified. The patch has no file sections; add '*** Add File:', '*** Delete File:' or '*** Update File:' sections between '*** Begin Patch' and '*** End Patch'."}
	}
	return p, nil
}

// patchLines splits a patch's text into lines without their CR, stripping
// a heredoc wrapper; first is the 1-based line number of lines[0].
func patchLines(text string) (lines []string, first int) {
	lines = strings.Split(strings.TrimSpace(text), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	first = 1
	if strings.TrimSpace(lines[0]) != beginPatchMarker && len(lines) >= 4 {
		switch lines[0] {
		case "<<EOF", "<<'EOF'", `<<"EOF"`:
			if strings.HasSuffix(strings.TrimSpace(lines[len(lines)-1]), "EOF") {
				lines = lines[1 : len(lines)-1]
				first = 2
				for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
					lines = lines[:len(lines)-1]
				}
				for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
					lines = lines[1:]
					first++
				}
			}
		}
	}
	return lines, first
}

// parseAdd parses an Add File section starting at body[i]; it returns the
// op and the index of the first line after it.
func parseAdd(body []string, i int, lineNo func(int) int) (PatchOp, int, error) {
	t := strings.TrimSpace(body[i])
	path := strings.TrimSpace(strings.TrimPrefix(t+" ", addFileMarker))
	if path == "" {
		return PatchOp{}, 0, hunkErr(lineNo(i), "'*** Add File:' needs a path: '*** Add File: PATH'.")
	}
	op := PatchOp{Kind: PatchAdd, Path: path, Line: lineNo(i)}
	var sb strings.Builder
	i++
	for i < len(body) && strings.HasPrefix(body[i], "+") {
		sb.WriteString(body[i][1:])
		sb.WriteByte('\n')
		i++
	}
	op.Content = sb.String()
	j := i
	for j < len(body) && strings.TrimSpace(body[j]) == "" {
		j++
	}
	if j > i && j < len(body) && strings.HasPrefix(body[j], "+") {
		return op, 0, hunkErr(lineNo(i), fmt.Sprintf("Blank line inside Add File section for '%s'; every line of a new file must start with '+' (write '+' alone for an empty line).", path))
	}
	if i < len(body) {
		nt := strings.TrimSpace(body[i])
		if nt != "" && !strings.HasPrefix(nt, "***") {
			return op, 0, hunkErr(lineNo(i), fmt.Sprintf("Unexpected line in Add File section for '%s': '%s'. Every line of a new file must start with '+' (write '+' alone for an empty line).", path, body[i]))
		}
	}
	return op, i, nil
}

// parseDelete parses a Delete File section starting at body[i]; it
// returns the op and the index of the first line after it.
func parseDelete(body []string, i int, lineNo func(int) int) (PatchOp, int, error) {
	t := strings.TrimSpace(body[i])
	path := strings.TrimSpace(strings.TrimPrefix(t+" ", deleteFileMarker))
	if path == "" {
		return PatchOp{}, 0, hunkErr(lineNo(i), "'*** Delete File:' needs a path: '*** Delete File: PATH'.")
	}
	op := PatchOp{Kind: PatchDelete, Path: path, Line: lineNo(i)}
	i++
	if i < len(body) {
		nt := strings.TrimSpace(body[i])
		if nt != "" && !strings.HasPrefix(nt, "***") {
			return op, 0, hunkErr(lineNo(i), fmt.Sprintf("Unexpected line after '*** Delete File: %s': '%s'. A Delete File section has no body; start the next section with a '*** ' header.", path, body[i]))
		}
	}
	return op, i, nil
}

// chunkHeader adds what a chunk header (raw, line at) says to cur: '@@'
// alone, or '@@ ' and a line of the file before the change (after a
// unified diff's ranges, which are dropped).
func chunkHeader(cur *PatchChunk, raw string, at int) error {
	rest, ok := strings.CutPrefix(strings.TrimLeft(raw, " \t"), "@@ ")
	if !ok {
		if strings.TrimSpace(raw) != "@@" {
			return hunkErr(at, fmt.Sprintf("Invalid chunk header '%s'; write '@@' alone or '@@ ' followed by one line of the file (such as a function signature) that comes before the change.", raw))
		}
		return nil
	}
	if m := unifiedRangeRE().FindString(rest); m != "" {
		rest = rest[len(m):]
	}
	if strings.TrimSpace(rest) != "" {
		cur.Contexts = append(cur.Contexts, rest)
	}
	return nil
}

// moveTo reads an Update File section's '*** Move to:' line into op when
// body[i] is one; it returns the index of the line after it.
func moveTo(op *PatchOp, body []string, i int, lineNo func(int) int) (int, error) {
	if i >= len(body) {
		return i, nil
	}
	mt := strings.TrimSpace(body[i])
	if !strings.HasPrefix(mt+" ", moveToMarker) {
		return i, nil
	}
	op.MoveTo = strings.TrimSpace(strings.TrimPrefix(mt+" ", moveToMarker))
	if op.MoveTo == "" {
		return i, hunkErr(lineNo(i), "'*** Move to:' needs a path: '*** Move to: NEW_PATH'.")
	}
	return i + 1, nil
}

// parseUpdate parses an Update File section starting at body[i]; it returns
// the op and the index of the first line after it.
func parseUpdate(body []string, i int, lineNo func(int) int) (PatchOp, int, error) {
	t := strings.TrimSpace(body[i])
	path := strings.TrimSpace(strings.TrimPrefix(t+" ", updateFileMarker))
	op := PatchOp{Kind: PatchUpdate, Path: path, Line: lineNo(i)}
	if path == "" {
		return op, 0, hunkErr(lineNo(i), "'*** Update File:' needs a path: '*** Update File: PATH'.")
	}
	i, err := moveTo(&op, body, i+1, lineNo)
	if err != nil {
		return op, 0, err
	}
	var cur *PatchChunk // the chunk being filled; nil between chunks
	closeChunk := func(at int) error {
		if cur == nil {
			return nil
		}
		if len(cur.Lines) == 0 {
			return hunkErr(at, "Update hunk does not contain any lines; after '@@' give the ' ' context, '-' removed and '+' added lines.")
		}
		op.Chunks = append(op.Chunks, *cur)
		cur = nil
		return nil
	}
	for i < len(body) {
		raw := body[i]
		t := strings.TrimSpace(raw)
		switch {
		case strings.HasPrefix(raw, "@@") || strings.HasPrefix(t, "@@") && !strings.HasPrefix(raw, " "):
			if cur != nil && len(cur.Lines) > 0 {
				if err := closeChunk(lineNo(i)); err != nil {
					return op, 0, err
				}
			}
			if cur == nil {
				cur = &PatchChunk{Line: lineNo(i)}
			}
			if err := chunkHeader(cur, raw, lineNo(i)); err != nil {
				return op, 0, err
			}
			i++
		case raw == "":
			if cur != nil {
				cur.Lines = append(cur.Lines, PatchLine{Op: ' '})
			}
			i++
		case raw[0] == ' ' || raw[0] == '-' || raw[0] == '+':
			if cur == nil {
				if len(op.Chunks) > 0 {
					return op, 0, hunkErr(lineNo(i), fmt.Sprintf("Expected update hunk to start with a @@ context marker, got: '%s'. Start every chunk after the first with '@@' (or '@@ <line of the file before the change>').", raw))
				}
				cur = &PatchChunk{Line: lineNo(i)}
			}
			cur.Lines = append(cur.Lines, PatchLine{Op: raw[0], Text: raw[1:]})
			i++
		case t == eofMarker:
			if cur == nil || len(cur.Lines) == 0 {
				return op, 0, hunkErr(lineNo(i), "'*** End of File' must follow the lines of a chunk; put it after the chunk's last line.")
			}
			cur.EOF = true
			if err := closeChunk(lineNo(i)); err != nil {
				return op, 0, err
			}
			i++
		case strings.HasPrefix(t, "***"):
			if err := closeChunk(lineNo(i)); err != nil {
				return op, 0, err
			}
			return finishUpdate(op, i, lineNo)
		case t == "":
			// A whitespace-only line not starting with ' ' (a tab, say):
			// an empty context line inside a chunk, skipped between chunks.
			if cur != nil {
				cur.Lines = append(cur.Lines, PatchLine{Op: ' '})
			}
			i++
		default:
			return op, 0, hunkErr(lineNo(i), fmt.Sprintf("Unexpected line found in update hunk: '%s'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)", raw))
		}
	}
	if err := closeChunk(lineNo(i)); err != nil {
		return op, 0, err
	}
	return finishUpdate(op, i, lineNo)
}

func finishUpdate(op PatchOp, next int, lineNo func(int) int) (PatchOp, int, error) {
	if len(op.Chunks) == 0 {
		return op, 0, hunkErr(op.Line, fmt.Sprintf("Update file hunk for path '%s' is empty; add at least one chunk ('@@' then ' ', '-', '+' lines), or use '*** Delete File:' / '*** Add File:'.", op.Path))
	}
	return op, next, nil
}

// patchLine is one line of a file being patched: its text and terminator
// ("\r\n", "\r", "\n", or "" for a last line without one).
type patchFileLine struct {
	text, term string
}

// splitPatchLines splits b into lines; "\r\n", a lone "\r" and "\n" each end
// a line. It also returns the first terminator seen ("\n" when none).
func splitPatchLines(bs []byte) ([]patchFileLine, string) {
	b := string(bs) // one copy; lines are substrings of it
	out := make([]patchFileLine, 0, strings.Count(b, "\n")+1)
	pref := ""
	start := 0
	for i := 0; i < len(b); i++ {
		var term string
		switch b[i] {
		case '\n':
			term = "\n"
		case '\r':
			term = "\r"
			if i+1 < len(b) && b[i+1] == '\n' {
				term = "\r\n"
			}
		default:
			continue
		}
		out = append(out, patchFileLine{text: b[start:i], term: term})
		if pref == "" {
			pref = term
		}
		i += len(term) - 1
		start = i + 1
	}
	if start < len(b) {
		out = append(out, patchFileLine{text: b[start:]})
	}
	if pref == "" {
		pref = "\n"
	}
	return out, pref
}

// AddFileContent returns the bytes an Add File writes: content as parsed
// (LF line breaks), in the old file's line style when it already exists
// (see KeepLineStyle).
func AddFileContent(content string, old []byte) []byte {
	b, _ := KeepLineStyle(content, old)
	return b
}

// LineStyle says what KeepLineStyle did.
type LineStyle struct {
	CRLF bool // "\n" breaks were written as the old file's "\r\n"
	BOM  bool // the old file's UTF-8 BOM was kept
}

// KeepLineStyle returns the bytes that replace old (nil: a new file) with
// content. Agents send "\n" breaks: when content has no "\r\n" of its own,
// it takes the old file's first line terminator and its BOM; content that
// carries "\r\n" itself, or a BOM, is written as given.
func KeepLineStyle(content string, old []byte) ([]byte, LineStyle) {
	var st LineStyle
	if old == nil {
		return []byte(content), st
	}
	bom := ""
	if bytes.HasPrefix(old, utf8BOM) {
		bom = string(utf8BOM)
		old = old[len(utf8BOM):]
	}
	if !strings.Contains(content, "\r\n") {
		if _, pref := splitPatchLines(old); pref != "\n" && strings.Contains(content, "\n") {
			content = strings.ReplaceAll(content, "\n", pref)
			st.CRLF = pref == "\r\n"
		}
	}
	if strings.HasPrefix(content, string(utf8BOM)) {
		bom = ""
	}
	st.BOM = bom != ""
	return []byte(bom + content), st
}

// replacement replaces n file lines from start with a chunk's lines.
type replacement struct {
	start, n int
	lines    []PatchLine
}

// ApplyPatchChunks applies an Update's chunks to old (the file's bytes) and
// returns the new bytes. path is used in messages only. Lines are matched
// by seekLines; untouched and context lines keep their own text and line
// terminator, inserted lines take the file's first terminator, the BOM is
// kept and the result always ends with a line terminator (unless empty).
// Errors are *Error with Kind KindApply.
func ApplyPatchChunks(path string, old []byte, chunks []PatchChunk) ([]byte, error) {
	bom := ""
	if strings.HasPrefix(string(old), string(utf8BOM)) {
		bom = string(utf8BOM)
		old = old[len(utf8BOM):]
	}
	fl, pref := splitPatchLines(old)
	texts := make([]string, len(fl))
	for i, l := range fl {
		texts[i] = l.text
	}
	var reps []replacement
	cursor := 0
	for ci, c := range chunks {
		for _, ctx := range c.Contexts {
			idx, _ := seekLines(texts, []string{ctx}, cursor, false, false)
			if idx < 0 {
				return nil, &Error{Kind: KindApply, Msg: fmt.Sprintf("Failed to find context '%s' in %s (chunk %d, patch line %d). The text after '@@ ' must be one line of the file, at or after the previous chunk; re-read the file and copy that line exactly, or use a bare '@@'.", ctx, path, ci+1, c.Line)}
			}
			cursor = idx + 1
		}
		lines := c.Lines
		oldLines := c.Old()
		if len(oldLines) == 0 {
			reps = append(reps, replacement{start: insertAt(len(texts), cursor, c), lines: lines})
			continue
		}
		unanchored := cursor == 0 && len(c.Contexts) == 0
		idx, alt := seekLines(texts, oldLines, cursor, c.EOF, unanchored)
		if idx < 0 && oldLines[len(oldLines)-1] == "" {
			// A trailing empty line often stands for the file's final line
			// break: retry without it.
			lines = dropLastOld(lines)
			oldLines = oldLines[:len(oldLines)-1]
			if len(oldLines) == 0 {
				reps = append(reps, replacement{start: insertAt(len(texts), cursor, c), lines: lines})
				continue
			}
			idx, alt = seekLines(texts, oldLines, cursor, c.EOF, unanchored)
		}
		if idx < 0 {
			return nil, &Error{Kind: KindApply, Msg: fmt.Sprintf("Failed to find expected lines in %s:\n%s\n%s", path, strings.Join(c.Old(), "\n"), missHint(texts, oldLines, cursor, ci, c))}
		}
		if alt >= 0 {
			return nil, &Error{Kind: KindApply, Msg: fmt.Sprintf("Ambiguous chunk %d for %s (patch line %d): its ' ' and '-' lines match at line %d and again at line %d. Add more unchanged context lines, or an '@@ <line>' header naming a line just before the change (such as the enclosing function signature), so the match is unique.", ci+1, path, c.Line, idx+1, alt+1)}
		}
		reps = append(reps, replacement{start: idx, n: len(oldLines), lines: lines})
		cursor = idx + len(oldLines)
	}
	// Stable sort by start (insertion order kept for equal starts).
	for i := 1; i < len(reps); i++ {
		for j := i; j > 0 && reps[j].start < reps[j-1].start; j-- {
			reps[j], reps[j-1] = reps[j-1], reps[j]
		}
	}
	out := make([]patchFileLine, 0, len(fl)+8)
	pos := 0
	for _, r := range reps {
		if r.start < pos {
			return nil, &Error{Kind: KindApply, Msg: fmt.Sprintf("Overlapping chunks in %s at line %d; list chunks in file order without repeating lines.", path, r.start+1)}
		}
		out = append(out, fl[pos:r.start]...)
		k := r.start
		for _, l := range r.lines {
			switch l.Op {
			case '+':
				out = append(out, patchFileLine{text: l.Text, term: pref})
			case '-':
				k++
			default:
				out = append(out, fl[k])
				k++
			}
		}
		pos = r.start + r.n
	}
	out = append(out, fl[pos:]...)
	var sb strings.Builder
	sb.Grow(len(old) + 64)
	sb.WriteString(bom)
	for _, l := range out {
		sb.WriteString(l.text)
		if l.term == "" {
			sb.WriteString(pref)
		} else {
			sb.WriteString(l.term)
		}
	}
	return []byte(sb.String()), nil
}

// insertAt is where a chunk without ' ' or '-' lines goes: right after its
// last '@@ <line>' header, else at the end of the file (as Codex does).
func insertAt(n, cursor int, c PatchChunk) int {
	if len(c.Contexts) > 0 && !c.EOF {
		return cursor
	}
	return n
}

// dropLastOld removes the chunk's last context or '-' line (an empty one).
func dropLastOld(lines []PatchLine) []PatchLine {
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].Op != '+' {
			out := append([]PatchLine(nil), lines[:i]...)
			return append(out, lines[i+1:]...)
		}
	}
	return lines
}

// missHint explains why a chunk's lines were not found: where the longest
// run of its first lines matches and the line that differs there, else the
// first line that is nowhere in the searched range.
func missHint(texts, old []string, cursor, ci int, c PatchChunk) string {
	where := fmt.Sprintf("(chunk %d, patch line %d", ci+1, c.Line)
	if cursor > 0 {
		where += fmt.Sprintf("; searched from file line %d, after the previous chunk or @@ header", cursor+1)
	}
	where += ")"
	const fix = " Every ' ' and '-' line must match consecutive lines of the file; re-read it and copy the lines exactly."
	norm := make([]string, len(old))
	for i, o := range old {
		norm[i] = normalisePatchLine(o)
	}
	bestAt, best := -1, 0
	budget := 4 << 20 // line comparisons: an error path must stay cheap on huge inputs
	for i := cursor; i < len(texts) && budget > 0; i++ {
		k := 0
		for k < len(norm) && i+k < len(texts) && normalisePatchLine(texts[i+k]) == norm[k] {
			k++
		}
		budget -= k + 1
		if k > best {
			bestAt, best = i, k
		}
	}
	if bestAt >= 0 && best < len(old) {
		if bestAt+best >= len(texts) {
			return fmt.Sprintf("%s The first %d of its lines match at file line %d, but the file ends before '%s'.%s", where, best, bestAt+1, old[best], fix)
		}
		return fmt.Sprintf("%s The first %d of its lines match at file line %d, but then the patch has '%s' where the file has '%s' (line %d).%s", where, best, bestAt+1, old[best], texts[bestAt+best], bestAt+best+1, fix)
	}
	for i, n := range norm {
		if budget -= len(texts) - cursor; budget < 0 {
			break
		}
		found := false
		for _, t := range texts[cursor:] {
			if normalisePatchLine(t) == n {
				found = true
				break
			}
		}
		if !found {
			return fmt.Sprintf("%s The line '%s' is not in the file there.%s", where, old[i], fix)
		}
	}
	return where + fix
}

// seekLines finds pattern in lines at or after start with four passes of
// decreasing strictness (exact; trailing whitespace ignored; leading and
// trailing whitespace ignored; plus typographic punctuation and spaces
// folded to ASCII). Each pass scans the whole range before the next is
// tried. With eof the end of the file is tried first (when it is at or after
// start). idx is the first match (-1 when none); with wantAlt, alt is a
// second match position in the pass that matched (-1 when the match is
// unique there, and always -1 without wantAlt).
func seekLines(lines, pattern []string, start int, eof, wantAlt bool) (idx, alt int) {
	if len(pattern) == 0 {
		return start, -1
	}
	last := len(lines) - len(pattern)
	if last < 0 || start > last {
		return -1, -1
	}
	passes := [...]func(string) string{
		nil, // exact
		func(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) },
		strings.TrimSpace,
		normalisePatchLine,
	}
	pat := make([]string, len(pattern))
	match := func(i int, f func(string) string) bool {
		for k, p := range pat {
			l := lines[i+k]
			if f != nil {
				l = f(l)
			}
			if l != p {
				return false
			}
		}
		return true
	}
	prep := func(f func(string) string) {
		for k, p := range pattern {
			if f != nil {
				p = f(p)
			}
			pat[k] = p
		}
	}
	if eof {
		for _, f := range passes {
			prep(f)
			if match(last, f) {
				return last, -1
			}
		}
	}
	for _, f := range passes {
		prep(f)
		idx, alt = -1, -1
		for i := start; i <= last; i++ {
			if match(i, f) {
				if idx >= 0 {
					alt = i
					break
				}
				idx = i
				if !wantAlt {
					break
				}
			}
		}
		if idx >= 0 {
			return idx, alt
		}
	}
	return -1, -1
}

// normalisePatchLine trims s and folds typographic dashes, quotes and spaces
// to ASCII (the table of Codex's seek_sequence).
func normalisePatchLine(s string) string {
	s = strings.TrimSpace(s)
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			return '-'
		case '\u2018', '\u2019', '\u201A', '\u201B':
			return '\''
		case '\u201C', '\u201D', '\u201E', '\u201F':
			return '"'
		case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
			return ' '
		}
		return r
	}, s)
}
