// Package edit implements the hashline edit language: splitting input into
// ¶PATH#TAG sections, parsing ops (strict and lenient shapes), applying them
// to a file's lines with repairs, recovery from stale tags, the response text
// and the unified diff. It is pure: no filesystem, no SQLite, no LSP.
//
// The entry points are SplitInput, which turns an edit input into sections,
// and ApplySection, which applies one section to a file's live bytes. Tag
// computes the 4-hex content tag shown in ¶PATH#TAG headers.
package edit
