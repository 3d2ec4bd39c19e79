package edit

import (
	"crypto/sha256"
	"runtime"
	"strconv"
	"strings"

	"github.com/hashls/hashls/internal/names"
)

// asyncSumMin is the size from which sumAsync hashes on another goroutine:
// below it, starting one costs about what it overlaps.
const asyncSumMin = 64 << 10

// sumAsync starts the sha256 of b and returns what waits for it (as often
// as it is called). A large b is hashed on another goroutine, beside the
// caller's other work, when the process may run two at once; anything
// else here and now. A sha256 of a 480 KB file is about a third of a
// millisecond, an edit's largest piece of work after the commit's fsync.
func sumAsync(b []byte) func() [32]byte {
	if len(b) < asyncSumMin || runtime.GOMAXPROCS(0) < 2 {
		s := sha256.Sum256(b)
		return func() [32]byte { return s }
	}
	var s [32]byte
	done := make(chan struct{})
	go func() {
		s = sha256.Sum256(b)
		close(done)
	}()
	return func() [32]byte {
		<-done
		return s
	}
}

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

// MissingTagMessage is the error for a section header without a tag,
// written in the header form the caller used.
func MissingTagMessage(path string, bracket bool) string {
	return "Missing hashline snapshot tag for edit to " + path + "; use `" + header(path, "TAG", bracket) + "` from your latest read/search output. To create a new file, use the write tool."
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
	warnRecoverPresent  = "The file changed since your read and already holds every change this edit makes (merged with the snapshot you read, it stays as it is), so nothing was written. Re-read the file before editing it further."
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
			switch {
			case h.v2 && h.Kind == OpReplaceBlock:
				msg = "`SWAP.BLK " + ns + ":` could not resolve a syntactic block beginning on line " + ns + ". The language may be unsupported, the line may be blank or a closing delimiter, or the block may not parse. Use `SWAP " + ns + ".=M:` with the block's explicit end line instead."
			case h.v2 && h.Kind == OpDeleteBlock:
				msg = "`DEL.BLK " + ns + "` could not resolve a syntactic block beginning on line " + ns + ". The language may be unsupported, the line may be blank or a closing delimiter, or the block may not parse. Use `DEL " + ns + ".=M` with the block's explicit end line instead."
			case h.v2:
				msg = "`INS.BLK.POST " + ns + ":` could not resolve a syntactic block beginning on line " + ns + ". The language may be unsupported, the line may be blank or a closing delimiter, or the block may not parse. Use `INS.POST M:` with the block's explicit last line instead."
			case h.Kind == OpReplaceBlock:
				msg = "`replace block " + ns + ":` could not resolve a syntactic block beginning on line " + ns + ". The language may be unsupported, the line may be blank or a closing delimiter, or the block may not parse. Use `replace " + ns + "..M:` with the block's explicit end line instead."
			case h.Kind == OpDeleteBlock:
				msg = "`delete block " + ns + "` could not resolve a syntactic block beginning on line " + ns + ". The language may be unsupported, the line may be blank or a closing delimiter, or the block may not parse. Use `delete " + ns + "..M` instead."
			default:
				msg = "`insert after block " + ns + ":` could not resolve a syntactic block beginning on line " + ns + ". The language may be unsupported, the line may be blank or a closing delimiter, or the block may not parse. Use `insert after M:` with the block's explicit last line instead."
			}
			return nil, nil, applyErr(withContext("line "+strconv.Itoa(h.Line)+": "+msg, contextRows(d, []int{n})))
		}
		p := h
		op := h.Kind.String()
		if h.v2 {
			op = strings.TrimSuffix(strings.Fields(h.Written())[0], ":")
		}
		switch h.Kind {
		case OpReplaceBlock:
			p.Kind, p.Start, p.End = OpReplace, s, e
		case OpDeleteBlock:
			p.Kind, p.Start, p.End = OpDelete, s, e
		default:
			p.Kind, p.Start, p.End = OpInsertAfter, e, e
		}
		blocks = append(blocks, BlockResolution{Op: op, AnchorLine: n, Start: s, End: e})
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
	if b.Op == "insert after block" || b.Op == "INS.BLK.POST" {
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
		return nil, parseErr(MissingTagMessage(path, sec.Bracket))
	}
	tag := strings.ToUpper(sec.Tag)
	liveSum := sumAsync(f.Bytes) // the line index and the lookup meanwhile
	live := newDoc(f.Bytes)
	b, err := bindTag(f, tag, path, opts, liveSum)
	if err != nil {
		return nil, err
	}
	fin := &finisher{path: path, headerPath: path, raw: f.Bytes, rawSHA: b.liveSHA, old: live, oldTag: b.liveTag, opts: opts}
	if parsed.MoveTo != "" {
		fin.headerPath = parsed.MoveTo
	}

	// REM, and MV without line edits, need the tag to prove the live content.
	if parsed.Remove || (parsed.MoveTo != "" && len(parsed.Hunks) == 0) {
		return wholeFileOp(sec, f, parsed, b, path, tag, opts)
	}
	if err := checkSeen(sec, f, parsed, b, fin, live, path, tag, opts); err != nil {
		return nil, err
	}
	if b.match {
		plain, blocks, perr := resolveBlocks(live, parsed.Hunks, path, opts.Resolver)
		if perr != nil {
			return nil, perr
		}
		a, perr := applyProven(live, plain, path, opts.Checker)
		if perr != nil {
			return nil, perr
		}
		return fin.finishMove(a, append(append([]string(nil), parsed.Warnings...), a.warnings...), blocks, parsed.MoveTo), nil
	}
	return applyStale(sec, parsed, b, fin, live, path, tag, opts)
}

// binding is what a section's tag says of the live content: the snapshot
// it names (found: the store has a record of it), and whether the live
// content is that snapshot (match).
type binding struct {
	snap         Snapshot
	found, match bool
	liveSHA      [32]byte // the live content's sha256
	liveTag      string   // and its tag
}

// bindTag looks tag up in the store and checks it against f (liveSum
// waits for f's sha256). The live content proves the tag when it is the
// tagged snapshot's (its sha256), or, without a record, by its own tag.
func bindTag(f File, tag, path string, opts Options, liveSum func() [32]byte) (*binding, error) {
	b := &binding{}
	if opts.Snapshots != nil {
		s, ok, lerr := opts.Snapshots.Lookup(f.Key, tag)
		if lerr != nil {
			liveSum() // f.Bytes is the caller's again once this returns
			return nil, &Error{Kind: KindStale, Msg: "Edit rejected for " + path + ": the snapshot store could not be read (" + lerr.Error() + "). Retry, or re-read the file with `read` to refresh the tag.", Err: lerr}
		}
		b.snap, b.found = s, ok
	}
	b.liveSHA = liveSum()
	// A live file holding the snapshot has the snapshot's tag
	// (Snapshots.Lookup), which saves tagging it.
	if b.found && b.snap.SHA256 == b.liveSHA {
		b.match, b.liveTag = true, tag
	} else {
		b.liveTag = Tag(f.Bytes)
		b.match = !b.found && b.liveTag == tag
	}
	return b, nil
}

// wholeFileOp is REM, or MV without line edits: the tag must prove the
// live content.
func wholeFileOp(sec Section, f File, parsed *Parsed, b *binding, path, tag string, opts Options) (*Result, error) {
	op := "REM"
	if !parsed.Remove {
		op = "MV " + parsed.MoveTo
	}
	if !b.match {
		return nil, &Error{Kind: KindStale, Msg: "Edit rejected for " + path + ": `" + op + "` needs the content you read, but the section is bound to #" + tag +
			" and the current file hashes to #" + b.liveTag + ". Re-read the file to check what changed, then retry with " + header(path, b.liveTag, sec.Bracket) + "."}
	}
	res := &Result{Path: path, Old: f.Bytes, OldTag: b.liveTag, OldSHA256: b.liveSHA, Warnings: parsed.Warnings}
	if parsed.Remove {
		res.Remove = true
		res.Text = withWarnings("Removed "+path+" (its content is in the trash).", parsed.Warnings)
		return res, nil
	}
	res.New, res.NewTag, res.NewSHA256, res.MoveTo = f.Bytes, b.liveTag, b.liveSHA, parsed.MoveTo
	res.Text = withWarnings(header(parsed.MoveTo, b.liveTag, opts.BracketHeaders)+"\nmoved from "+names.Show(path), parsed.Warnings)
	if opts.Seen != nil {
		if rs, known, serr := opts.Seen.Seen(f.Key, b.liveSHA); serr == nil && known {
			res.Seen, res.SeenKnown = rs, true
		}
	}
	return res, nil
}

// checkSeen refuses hunks on lines no read of the tagged snapshot
// displayed, and tells fin the lines seen, to carry them to the result.
func checkSeen(sec Section, f File, parsed *Parsed, b *binding, fin *finisher, live *doc, path, tag string, opts Options) error {
	if opts.Seen == nil || !(b.found || b.match) {
		return nil
	}
	sum := b.liveSHA
	ref := live
	if b.found {
		sum = b.snap.SHA256
		if b.snap.Content != nil {
			ref = newDoc(b.snap.Content)
		}
	}
	rs, known, serr := opts.Seen.Seen(f.Key, sum)
	if serr != nil {
		return &Error{Kind: KindStale, Msg: "Edit rejected for " + path + ": the record of the lines you were shown could not be read (" + serr.Error() + "). Retry, or re-read the file with `read`.", Err: serr}
	}
	if !known {
		return nil
	}
	if bad := unseen(seenTargets(parsed.Hunks, displayLines(ref)), mergeRanges(rs)); len(bad) > 0 {
		return unseenError(path, tag, b.liveTag, live, bad, sec.Bracket)
	}
	if b.match {
		fin.seen, fin.seenKnown, fin.mapSeen = rs, true, true
	} else {
		fin.seenKnown = true
	}
	return nil
}

// applyStale applies a section whose tag does not prove the live content:
// recovery merges the edit with what changed since the snapshot the tag
// names, when the store kept it; head and tail inserts alone need no
// snapshot; anything else is refused with the lines it targets.
func applyStale(sec Section, parsed *Parsed, b *binding, fin *finisher, live *doc, path, tag string, opts Options) (*Result, error) {
	snap, found := b.snap, b.found
	if found && snap.Content == nil && snap.Load != nil {
		// A load failure only means recovery is impossible: the mismatch
		// error below still tells the caller what to do.
		if c, lerr := snap.Load(); lerr == nil {
			snap.Content = c
		}
	}
	anchors := hunkAnchors(parsed.Hunks)
	if found && snap.Content != nil {
		snapDoc := newDoc(snap.Content)
		plain, _, perr := resolveBlocks(snapDoc, parsed.Hunks, path, opts.Resolver)
		if perr != nil {
			return nil, perr
		}
		// The stale refusal shows the whole targeted ranges, blocks
		// included (as resolved on the snapshot the caller read).
		anchors = hunkAnchors(plain)
		if res := recoverByMerge(fin, snapDoc, snap.Head, plain, parsed); res != nil {
			return res, nil
		}
	} else if !anchoredHunks(parsed.Hunks) {
		// Without the snapshot, `insert head:` and `insert tail:` alone
		// do not depend on the content they were written for.
		a, perr := applyPlain(live, parsed.Hunks)
		if perr != nil {
			return nil, perr
		}
		w := append(append(append([]string(nil), parsed.Warnings...), warnHeadTailStale), a.warnings...)
		return fin.finishMove(a, w, nil, parsed.MoveTo), nil
	}
	return nil, staleError(sec, live, anchors, found, path, tag, b.liveTag)
}

// staleError refuses a stale section, showing the lines it targets.
func staleError(sec Section, live *doc, anchors []int, found bool, path, tag, liveTag string) *Error {
	ctx := contextRows(live, anchors)
	var msg string
	if found {
		second := "Section is bound to #" + tag + ", but the current file hashes to #" + liveTag
		if liveTag == tag {
			second += " (the same 4-hex tag, but different content than the snapshot it names)"
		}
		msg = "Edit rejected for " + path + ": file changed between read and edit.\n" + second +
			". If a prior edit in this session modified this file, copy the " + header("PATH", "TAG", sec.Bracket) + " header from that edit's response; otherwise re-read the file with `read` to refresh the tag before retrying."
	} else {
		msg = "Edit rejected for " + path + ": hash #" + tag + " is not from this session.\nThe current file hashes to #" + liveTag +
			". Re-read the file with `read` to copy a current " + header("PATH", "TAG", sec.Bracket) + " header — never invent the tag and never reuse one from a prior session."
	}
	return &Error{Kind: KindStale, Msg: withContext(msg, ctx), Shown: contextRanges(live, anchors)}
}

// anchoredHunks reports whether a hunk names a line (any op but `insert
// head:` and `insert tail:`).
func anchoredHunks(hunks []Hunk) bool {
	for _, h := range hunks {
		if h.Kind != OpInsertHead && h.Kind != OpInsertTail {
			return true
		}
	}
	return false
}

// contextRanges lists the lines contextRows displays for anchors.
func contextRanges(d *doc, anchors []int) []LineRange {
	L := displayLines(d)
	var out []LineRange
	for _, a := range anchors {
		if a >= 1 && a <= d.n() {
			out = append(out, LineRange{max(1, a-2), min(L, a+2)})
		}
	}
	return mergeRanges(out)
}

// recoverByMerge lands a stale edit as a three-way merge (merge.go): the
// edit applied to the snapshot it names (ours) merged with the live file
// (theirs) over the snapshot (their base), as git merge-file would merge
// them. It returns nil when the merge conflicts (the caller refuses the
// edit); a merge that leaves the live file as it is (it already holds the
// edit's changes) is a no-op result.
func recoverByMerge(fin *finisher, snapDoc *doc, head bool, plain []Hunk, parsed *Parsed) *Result {
	live := fin.old
	a1, err := applyProven(snapDoc, plain, fin.path, fin.opts.Checker)
	if err != nil {
		return nil
	}
	snapNew := newDoc(a1.out)
	if sameLF(snapDoc, snapNew) {
		return nil
	}
	m, ok := merge3(snapDoc, snapNew, live, diffRegions(snapDoc, snapNew, a1.regions))
	if !ok {
		return nil
	}
	a2, err := applyPlain(live, m.hunks)
	if err != nil {
		return nil
	}
	w := warnRecoverChain
	switch {
	case sameLF(live, newDoc(a2.out)):
		w = warnRecoverPresent
	case head:
		w = warnRecoverExternal
	case m.near:
		w = warnRecoverReplay
	}
	warns := append(append(append([]string(nil), parsed.Warnings...), w), a1.warnings...)
	return fin.finishMove(a2, warns, nil, parsed.MoveTo)
}

// finisher builds the Result of an applied section.
type finisher struct {
	path       string // display path of the section's file
	headerPath string // the path the result header names (an MV destination)
	raw        []byte // the live bytes
	rawSHA     [32]byte
	old        *doc
	oldTag     string
	opts       Options
	// Seen lines of the tagged snapshot: carried over through the diff when
	// mapSeen (the tag named the live content), else only the written lines.
	seen      []LineRange
	seenKnown bool
	mapSeen   bool
}

// finishMove is finish for a section that may also move its file: an MV
// whose line edits change nothing still moves it.
func (f *finisher) finishMove(a *applied, warns []string, blocks []BlockResolution, moveTo string) *Result {
	res := f.finish(a, warns, blocks)
	if moveTo == "" {
		return res
	}
	res.MoveTo = moveTo
	if res.NoOp {
		res.NoOp = false
		res.Text = withWarnings(header(moveTo, res.NewTag, f.opts.BracketHeaders)+"\nmoved from "+names.Show(f.path), res.Warnings)
		if f.seenKnown && f.mapSeen {
			res.Seen, res.SeenKnown = mergeRanges(f.seen), true
		}
	}
	return res
}

// finish builds the Result for an applied section.
func (f *finisher) finish(a *applied, warns []string, blocks []BlockResolution) *Result {
	path, raw, old, oldTag := f.path, f.raw, f.old, f.oldTag
	res := &Result{Path: path, Old: raw, OldTag: oldTag, OldSHA256: f.rawSHA, Warnings: warns, Blocks: blocks}
	nd := newDoc(a.out)
	if sameLF(old, nd) {
		res.New, res.NewTag, res.NewSHA256, res.NoOp = raw, oldTag, f.rawSHA, true
		res.Text = withWarnings(NoChangeMessage(path), warns)
		return res
	}
	res.New = a.out
	newSum := sumAsync(a.out) // the tag, the diff and the text meanwhile
	defer func() { res.NewSHA256 = newSum() }()
	res.NewTag = Tag(a.out)
	ch := diffRegions(old, nd, a.regions)
	res.Diff = unifiedDiff(path, old, nd, ch)
	if len(ch) > 0 {
		res.FirstChangedLine = ch[0].n + 1
		if ch[0].nl == 0 {
			res.FirstChangedLine = min(ch[0].n+1, nd.n())
		}
	}
	if w := syntaxWarning(f.opts.Checker, path, old, nd, ch); w != "" {
		warns = append(warns, w)
		res.Warnings = warns
	}
	if f.seenKnown {
		res.SeenKnown = true
		if f.mapSeen {
			res.Seen = mapSeen(mergeRanges(f.seen), ch, displayLines(nd))
		} else {
			res.Seen = changedSeen(ch, displayLines(nd))
		}
	}
	parts := []string{header(f.headerPath, res.NewTag, f.opts.BracketHeaders)}
	if f.headerPath != path {
		parts = append(parts, "moved from "+names.Show(path))
	}
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
