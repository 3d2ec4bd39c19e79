// Package edit implements the hashline edit language: splitting input into
// ¶PATH#TAG sections, parsing ops (strict and lenient shapes), applying them
// to a file's lines with repairs, recovery from stale tags (a three-way
// merge with git merge-file's semantics, merge.go), the response text and
// the unified diff. It is pure: no filesystem, no SQLite, no LSP.
//
// The entry points are SplitInput, which turns an edit input into sections,
// and ApplySection, which applies one section to a file's live bytes (ApplyAll
// applies several all-or-nothing). Tag computes the 4-hex content tag shown in
// ¶PATH#TAG headers (TagWriter the same over a stream); UnifiedDiff diffs two
// whole versions. BreakFinder is the one scanner of line breaks ("\n", "\r\n",
// a lone "\r") that the tag and the agent's streamed reads share.
//
// The package also holds the Codex apply_patch format, as plain values:
// ParsePatch turns a patch into file operations, ApplyPatchChunks applies an
// update's chunks to a file's bytes, AddFileContent builds an added file.
//
// Two generations of the op language are accepted, mixable in a section:
// the 15.11.1 verbs (replace/delete/insert …) and the later set (SWAP, DEL,
// INS.PRE/POST/HEAD/TAIL, SWAP.BLK, DEL.BLK, INS.BLK.POST, `.=` ranges),
// plus the section ops REM and MV (reported on Result; the caller commits
// them). Hunk.Written names an op the way it was written, for messages.
//
// A repair changes only an edit that is broken as written (repair.go): a
// delimiter-balance fix, or a boundary echo that drops bracket lines, runs
// only when the edit as a whole unbalances the file and the fix brings it
// back toward balanced; the `insert after` landing shift only when the
// body would leave the closer below it closing a block the body's last
// line is not indented into. A repair the reference would run and these
// rules decline is named in a warning; the hunk lands as written.
//
// Two small interfaces beside BlockResolver make edits precise: a
// SyntaxChecker (the parse proof: a repair is also kept only if the
// repaired result has no more syntax errors than the edit as written, and
// new syntax errors next to the changed lines are warned about) and
// SeenLines (hunks on lines no read of the tagged snapshot displayed are
// refused with those lines shown; Result.Seen carries the seen lines over
// to the new content, Error.Shown lists what a refusal displayed).
//
// Behaviour follows the reference engine (hashline 15.11.1) as measured in
// hashline-behaviour.md, with hashls's deliberate differences:
//   - headers are printed ¶PATH#TAG and accepted as ¶PATH#TAG or [PATH#TAG];
//   - a tag the snapshot store knows is checked against the snapshot's
//     sha256, so a 16-bit collision goes to recovery instead of applying;
//   - repairs run only on edits broken as written (above), so real edits
//     land byte for byte;
//   - a stale edit lands only as git merge-file would merge it with the
//     file's changes since the tagged snapshot, and only where that merge
//     does not depend on how repeated lines are aligned; otherwise it is
//     refused (the reference relocates hunks by their context);
//   - line endings are kept per line (untouched lines keep theirs, a
//     replacement row takes the ending of the first line it replaces,
//     inserted rows their neighbour's), the BOM is kept, and the final
//     newline is never lost (`insert after <sentinel>` acts as `insert tail:`).
//
// Internally a file is a doc: the BOM-stripped bytes plus line start offsets
// (no per-line copies). Edits are lowered to row ops anchored on original
// lines and emitted in one pass, copying untouched runs in bulk, so a large
// file with many hunks costs O(size + rows). The unified diff is computed by
// Myers only inside the regions the apply touched.
package edit
