package edit

import (
	"crypto/sha256"
	"strconv"
	"strings"
)

// Messages the agent layer needs.

// NoChangeMessage is the text of a single-section no-op result (and of the
// hard error a no-op section raises in a multi-section input).
func NoChangeMessage(path string) string {
	return "Edits to " + path + " parsed and applied cleanly, but produced no change: your body row(s) are byte-identical to the file at the targeted lines. " +
		"The bug is somewhere else — re-read the file before issuing another edit. Do NOT widen the payload or add lines; verify the anchor first."
}

// NoopLoopMessage is the hard error once the same payload has been a no-op
// count times in a row on one path.
func NoopLoopMessage(path string, count int) string {
	return "STOP. Edits to " + path + " have been a byte-identical no-op " + strconv.Itoa(count) + " times in a row — " +
		"the patch body matches the file at the targeted lines and the soft hint did not break the cycle. " +
		"Cease re-issuing this payload. Either the intended change is already on disk (move on), " +
		"or your anchor is wrong (re-read the file with `read` to observe the current line numbers and " +
		"tag, then author a different edit). This exact payload will keep being rejected until it changes."
}

// MultipleSectionsSameFileMessage is the error for two header paths that
// resolve to the same file.
func MultipleSectionsSameFileMessage(a, b string) string {
	return "Multiple hashline sections resolve to the same file (" + a + " and " + b + "). Merge their ops under one header before applying."
}

// MissingTagMessage is the error for a section header without a tag.
func MissingTagMessage(path string) string {
	return "Missing hashline snapshot tag for edit to " + path + "; use `[" + path + "#tag]` from your latest read/search output. To create a new file, use the write tool."
}

// FileNotFoundMessage is the error for a section naming a missing file.
func FileNotFoundMessage(path string) string {
	return "File not found: " + path + ". Use the write tool to create new files."
}

const (
	// NoResolverMessage is returned for block ops when Options.Resolver is nil.
	NoResolverMessage = "Block-anchored ops (`replace block N:`, `delete block N`, `insert after block N:`) are not available here (no tree-sitter block resolver is configured). Use a concrete line range instead."

	warnHeadTailStale   = "Applied an `insert head:`/`insert tail:` edit onto the current file content even though the snapshot tag was stale (the file changed since your read). Head/tail position is content-independent, so the insert was not rejected — but re-read if the drift was unexpected."
	warnRecoverExternal = "Recovered from a stale file hash using a previous read snapshot (file changed externally between read and edit)."
	warnRecoverChain    = "Recovered from a stale file hash using an earlier in-session snapshot (the file hash advanced after a prior edit in this session)."
	warnRecoverReplay   = "Recovered by replaying your edits onto the current file content — your previous edit in this session changed line(s) you re-targeted with a stale hash. Verify the diff matches your intent before continuing."
)

// contextRows renders ±2 rows around each anchor (1-based) of d, "*" marking
// anchors and "..." between non-adjacent groups.
func contextRows(d *doc, anchors []int) string {
	L := d.n()
	var sb strings.Builder
	isAnchor := map[int]bool{}
	for _, a := range anchors {
		isAnchor[a] = true
	}
	last := 0
	for _, a := range anchors {
		if a < 1 || a > L {
			continue
		}
		s, e := max(1, a-2, last+1), min(L, a+2)
		if s > e {
			continue
		}
		if last > 0 && s > last+1 {
			sb.WriteString("\n...")
		}
		for x := s; x <= e; x++ {
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			if isAnchor[x] {
				sb.WriteByte('*')
			} else {
				sb.WriteByte(' ')
			}
			sb.WriteString(strconv.Itoa(x))
			sb.WriteByte(':')
			sb.Write(d.line(x - 1))
		}
		last = e
	}
	return sb.String()
}

func withContext(msg, ctx string) string {
	if ctx == "" {
		return msg
	}
	return msg + "\n\n" + ctx
}

// resolveBlocks expands block ops into plain hunks using the resolver on d.
func resolveBlocks(d *doc, hunks []Hunk, path string, r BlockResolver) ([]Hunk, []BlockResolution, *Error) {
	hasBlock := false
	for _, h := range hunks {
		if h.Kind.isBlock() {
			hasBlock = true
			break
		}
	}
	if !hasBlock {
		return hunks, nil, nil
	}
	if r == nil {
		return nil, nil, applyErr(NoResolverMessage)
	}
	text := d.lfString()
	out := make([]Hunk, 0, len(hunks))
	var blocks []BlockResolution
	for _, h := range hunks {
		if !h.Kind.isBlock() {
			out = append(out, h)
			continue
		}
		n := h.Start
		s, e, ok := r.BlockRange(path, text, n)
		if !ok || s < 1 || e < s || e > d.n() {
			ns := strconv.Itoa(n)
			var msg string
			switch h.Kind {
			case OpReplaceBlock:
				msg = "`replace block " + ns + ":` could not resolve a syntactic block beginning on line " + ns + ". The language may be unsupported, the line may be blank or a closing delimiter, or the block may not parse. Use `replace " + ns + "..M:` with the block's explicit end line instead."
			case OpDeleteBlock:
				msg = "`delete block " + ns + "` could not resolve a syntactic block beginning on line " + ns + ". The language may be unsupported, the line may be blank or a closing delimiter, or the block may not parse. Use `delete " + ns + "..M` instead."
			default:
				msg = "`insert after block " + ns + ":` could not resolve a syntactic block beginning on line " + ns + ". The language may be unsupported, the line may be blank or a closing delimiter, or the block may not parse. Use `insert after M:` with the block's explicit last line instead."
			}
			return nil, nil, applyErr(withContext("line "+strconv.Itoa(h.Line)+": "+msg, contextRows(d, []int{n})))
		}
		p := h
		switch h.Kind {
		case OpReplaceBlock:
			p.Kind, p.Start, p.End = OpReplace, s, e
			blocks = append(blocks, BlockResolution{Op: "replace block", AnchorLine: n, Start: s, End: e})
		case OpDeleteBlock:
			p.Kind, p.Start, p.End = OpDelete, s, e
			blocks = append(blocks, BlockResolution{Op: "delete block", AnchorLine: n, Start: s, End: e})
		default:
			p.Kind, p.Start, p.End = OpInsertAfter, e, e
			blocks = append(blocks, BlockResolution{Op: "insert after block", AnchorLine: n, Start: s, End: e})
		}
		out = append(out, p)
	}
	return out, blocks, nil
}

func blockEcho(b BlockResolution) string {
	var span string
	if b.Start == b.End {
		span = "line " + strconv.Itoa(b.Start) + " (1 line)"
	} else {
		span = "lines " + strconv.Itoa(b.Start) + "-" + strconv.Itoa(b.End) + " (" + strconv.Itoa(b.End-b.Start+1) + " lines)"
	}
	s := b.Op + " " + strconv.Itoa(b.AnchorLine) + " → resolved " + span
	if b.Op == "insert after block" {
		s += "; body lands after line " + strconv.Itoa(b.End)
	}
	return s
}

// ApplySection parses sec's ops and applies them to f.Bytes after checking
// sec.Tag against the live content and the store (recovering when stale).
//
// A section that changes nothing returns a Result with NoOp set and the
// "produced no change" text, not an error. Errors are always *Error.
func ApplySection(sec Section, f File, opts Options) (*Result, error) {
	path := f.Path
	if path == "" {
		path = sec.Path
	}
	parsed, err := ParseBody(sec.Body)
	if err != nil {
		return nil, err
	}
	if sec.Tag == "" {
		return nil, parseErr(MissingTagMessage(path))
	}
	tag := strings.ToUpper(sec.Tag)
	live := newDoc(f.Bytes)
	liveTag := Tag(f.Bytes)

	var snap Snapshot
	found := false
	if opts.Snapshots != nil {
		s, ok, lerr := opts.Snapshots.Lookup(f.Key, tag)
		if lerr != nil {
			return nil, &Error{Kind: KindStale, Msg: "Edit rejected for " + path + ": the snapshot store could not be read (" + lerr.Error() + "). Retry, or re-read the file with `read` to refresh the tag.", Err: lerr}
		}
		snap, found = s, ok
	}
	var match bool
	if found {
		match = snap.SHA256 == sha256.Sum256(f.Bytes)
	} else {
		match = liveTag == tag
	}

	if match {
		plain, blocks, perr := resolveBlocks(live, parsed.Hunks, path, opts.Resolver)
		if perr != nil {
			return nil, perr
		}
		a, perr := applyPlain(live, plain)
		if perr != nil {
			return nil, perr
		}
		return finish(path, f.Bytes, live, liveTag, a, append(append([]string(nil), parsed.Warnings...), a.warnings...), blocks), nil
	}

	// Stale tag.
	anchored := false
	for _, h := range parsed.Hunks {
		if h.Kind != OpInsertHead && h.Kind != OpInsertTail {
			anchored = true
			break
		}
	}
	if !anchored {
		a, perr := applyPlain(live, parsed.Hunks)
		if perr != nil {
			return nil, perr
		}
		w := append(append(append([]string(nil), parsed.Warnings...), warnHeadTailStale), a.warnings...)
		return finish(path, f.Bytes, live, liveTag, a, w, nil), nil
	}
	anchors := hunkAnchors(parsed.Hunks)
	if found && snap.Content == nil && snap.Load != nil {
		// A load failure only means recovery is impossible: the mismatch
		// error below still tells the caller what to do.
		if c, lerr := snap.Load(); lerr == nil {
			snap.Content = c
		}
	}
	if found && snap.Content != nil {
		snapDoc := newDoc(snap.Content)
		plain, _, perr := resolveBlocks(snapDoc, parsed.Hunks, path, opts.Resolver)
		if perr != nil {
			return nil, perr
		}
		if res := recoverByDiff(path, f.Bytes, live, liveTag, snapDoc, snap.Head, plain, parsed.Warnings); res != nil {
			return res, nil
		}
		if !snap.Head {
			if res := recoverByReplay(path, f.Bytes, live, liveTag, snapDoc, plain, parsed.Warnings); res != nil {
				return res, nil
			}
		}
	}
	ctx := contextRows(live, anchors)
	var msg string
	if found {
		second := "Section is bound to #" + tag + ", but the current file hashes to #" + liveTag
		if liveTag == tag {
			second += " (the same 4-hex tag, but different content than the snapshot it names)"
		}
		msg = "Edit rejected for " + path + ": file changed between read and edit.\n" + second +
			". If a prior edit in this session modified this file, copy the [path#newhash] header from that edit's response; otherwise re-read the file with `read` to refresh the tag before retrying."
	} else {
		msg = "Edit rejected for " + path + ": hash #" + tag + " is not from this session.\nThe current file hashes to #" + liveTag +
			". Re-read the file with `read` to copy a current [path#tag] header — never invent the tag and never reuse one from a prior session."
	}
	return nil, &Error{Kind: KindStale, Msg: withContext(msg, ctx)}
}

// recoverByDiff is recovery strategy 1: apply to the snapshot, diff it, and
// replay that diff onto the live text with no fuzz.
func recoverByDiff(path string, raw []byte, live *doc, liveTag string, snapDoc *doc, head bool, plain []Hunk, parseWarn []string) *Result {
	a1, err := applyPlain(snapDoc, plain)
	if err != nil {
		return nil
	}
	snapNew := newDoc(a1.out)
	if sameLF(snapDoc, snapNew) {
		return nil
	}
	ch := diffRegions(snapDoc, snapNew, a1.regions)
	hs := buildHunks(ch, snapDoc.tokens(), snapNew.tokens(), 3)
	conv, ok := locateHunks(snapDoc, snapNew, live, hs)
	if !ok {
		return nil
	}
	a2, err := applyPlain(live, conv)
	if err != nil {
		return nil
	}
	if sameLF(live, newDoc(a2.out)) {
		return nil
	}
	w := warnRecoverChain
	if head {
		w = warnRecoverExternal
	}
	warns := append(append(append([]string(nil), parseWarn...), w), a1.warnings...)
	return finish(path, raw, live, liveTag, a2, warns, nil)
}

// recoverByReplay is recovery strategy 2: same line count and identical
// anchor lines, so the edits are applied directly to the live text.
func recoverByReplay(path string, raw []byte, live *doc, liveTag string, snapDoc *doc, plain []Hunk, parseWarn []string) *Result {
	if live.n() != snapDoc.n() {
		return nil
	}
	for _, h := range plain {
		s, e := h.Start, h.End
		switch h.Kind {
		case OpInsertHead, OpInsertTail:
			continue
		case OpInsertBefore, OpInsertAfter:
			e = s
		}
		for x := s; x <= e; x++ {
			if x < 1 || x > live.n() || string(live.line(x-1)) != string(snapDoc.line(x-1)) {
				return nil
			}
		}
	}
	a, err := applyPlain(live, plain)
	if err != nil || sameLF(live, newDoc(a.out)) {
		return nil
	}
	warns := append(append(append([]string(nil), parseWarn...), warnRecoverReplay), a.warnings...)
	return finish(path, raw, live, liveTag, a, warns, nil)
}

// finish builds the Result for an applied section.
func finish(path string, raw []byte, old *doc, oldTag string, a *applied, warns []string, blocks []BlockResolution) *Result {
	res := &Result{Path: path, Old: raw, OldTag: oldTag, Warnings: warns, Blocks: blocks}
	nd := newDoc(a.out)
	if sameLF(old, nd) {
		res.New, res.NewTag, res.NoOp = raw, oldTag, true
		res.Text = withWarnings(NoChangeMessage(path), warns)
		return res
	}
	res.New = a.out
	res.NewTag = Tag(a.out)
	ch := diffRegions(old, nd, a.regions)
	res.Diff = unifiedDiff(path, old, nd, ch)
	if len(ch) > 0 {
		res.FirstChangedLine = ch[0].n + 1
		if ch[0].nl == 0 {
			res.FirstChangedLine = min(ch[0].n+1, nd.n())
		}
	}
	parts := []string{headerPilcrow + path + "#" + res.NewTag}
	for _, b := range blocks {
		parts = append(parts, blockEcho(b))
	}
	if p := preview(old, nd, ch); p != "" {
		parts = append(parts, p)
	}
	res.Text = withWarnings(strings.Join(parts, "\n"), warns)
	return res
}

func withWarnings(text string, warns []string) string {
	if len(warns) == 0 {
		return text
	}
	return text + "\n\nWarnings:\n" + strings.Join(warns, "\n")
}

// ApplyAll applies every section to its file (files[i] belongs to secs[i])
// all-or-nothing: the first error aborts, two sections on one File.Key are an
// error, and in a multi-section input a no-op section is a hard error.
// Nothing is written; the caller writes every Result.New once this succeeds.
func ApplyAll(secs []Section, files []File, opts Options) ([]*Result, error) {
	if len(secs) != len(files) {
		return nil, parseErr("internal error: " + strconv.Itoa(len(secs)) + " sections but " + strconv.Itoa(len(files)) + " files")
	}
	seen := map[string]string{}
	for i, f := range files {
		key := f.Key
		if key == "" {
			key = f.Path
		}
		if prev, ok := seen[key]; ok {
			return nil, parseErr(MultipleSectionsSameFileMessage(prev, secs[i].Path))
		}
		seen[key] = secs[i].Path
	}
	out := make([]*Result, 0, len(secs))
	for i := range secs {
		r, err := ApplySection(secs[i], files[i], opts)
		if err != nil {
			return nil, err
		}
		if r.NoOp && len(secs) > 1 {
			return nil, &Error{Kind: KindNoChange, Msg: NoChangeMessage(r.Path)}
		}
		out = append(out, r)
	}
	return out, nil
}
