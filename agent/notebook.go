package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/internal/ctxio"
	"github.com/hashls/hashls/internal/pieces"
	"github.com/hashls/hashls/workspace"
	"github.com/hashls/hashls/workspace/notebook"
)

// Notebooks (.ipynb) are read, written and edited as cell text (package
// notebook). The cell text has its own tag, recorded under the notebook's
// view key, so an edit of the cell text is checked against the cell text
// the caller read; the commit is of the notebook JSON.

// notebookKey is the store key of a notebook's cell text.
func notebookKey(p workspace.Path) string { return p.Abs + "#cells" }

// notebookView parses a notebook file as cell text. ok is false when p is
// not a notebook by name; an unparsable notebook is an error naming the
// way out (:raw).
func notebookView(p workspace.Path, data []byte) (nb *notebook.Notebook, ok bool, err error) {
	if !notebook.IsNotebook(p.Rel) {
		return nil, false, nil
	}
	nb, err = notebook.Parse(data)
	if err != nil {
		return nil, true, notebookErr(p, err)
	}
	return nb, true, nil
}

// notebookErr is the error of a notebook that does not parse.
func notebookErr(p workspace.Path, err error) error {
	return &Error{Kind: KindInput, Message: fmt.Sprintf("%s is not a valid nbformat 4 notebook (%v). Read it with %s:raw to see its JSON, and write valid notebook JSON (or cell text once it is valid).", p.Rel, err, p.Rel), Err: err}
}

// readNotebookFile reads the notebook file at p (on disk) in one pass
// that feeds its sha256 and keeps only its cells (notebook.ParseReader):
// a notebook's outputs, however large, are never held.
func readNotebookFile(env *Env, p workspace.Path, path string, sel workspace.Selector) (*Result, error) {
	r, err := env.WS.OpenReader(p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	h := sha256.New()
	nb, err := notebook.ParseReader(io.TeeReader(r, h))
	if err != nil {
		if errors.Is(err, notebook.ErrShape) {
			return nil, notebookErr(p, err)
		}
		return nil, streamReadErr(p, err)
	}
	d := &readDetails{Path: path, ResolvedPath: p.Rel, SHA256: hex.EncodeToString(h.Sum(nil))}
	return readNotebook(env, p, nb, d, sel)
}

// readNotebook shows the notebook's cells as editable cell text under the
// cell text's tag.
func readNotebook(env *Env, p workspace.Path, nb *notebook.Notebook, d *readDetails, sel workspace.Selector) (*Result, error) {
	text := []byte(nb.Text())
	tag := edit.Tag(text)
	lines := splitDisplayLines(text)
	d.Tag, d.Lines, d.Kind = tag, len(lines), "notebook"
	body, shown, tr, seen := env.limits().renderRowsFrom(p.Rel, sliceLines(lines), sel, true)
	if len(nb.Cells) == 0 {
		body = "(empty notebook; add a cell with `insert head:` and a marker row such as \"# %% [code]\")\n"
	}
	if err := record(env, workspace.Path{Abs: notebookKey(p), Rel: p.Rel}, tag, text, nil, nonNil(seen)); err != nil {
		return nil, err
	}
	d.Shown, d.Truncation = shown, tr
	return &Result{Text: header(p.Rel, tag) + "\n" + body, Details: d, Shown: []Shown{{Path: p.Rel, Tag: tag, SHA256: sha256Hex(text)}}}, nil
}

// notebookWrite turns what write was given for a notebook into notebook
// JSON: notebook JSON is written as it is; cell text rewrites the existing
// notebook's cells (or makes a new notebook). Anything else is refused
// with the expected shape. It also returns the cell text of the notebook
// before (nil: none) and after, which the result's diff is of.
func notebookWrite(p workspace.Path, old []byte, content string) (out, oldView, newView []byte, err error) {
	if old != nil {
		if nb, err := notebook.Parse(old); err == nil {
			oldView = []byte(nb.Text())
		}
	}
	trimmed := strings.TrimSpace(content)
	if strings.HasPrefix(trimmed, "{") {
		nb, err := notebook.Parse([]byte(content))
		if err != nil {
			return nil, nil, nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("write %s: content starts with '{' but is not notebook JSON (%v). Write notebook JSON with a \"cells\" array, or %s.", p.Rel, err, notebook.Shape), Err: err}
		}
		return []byte(content), oldView, []byte(nb.Text()), nil
	}
	base := old
	if base == nil {
		base = []byte(emptyNotebook)
	}
	nb, err := notebook.Parse(base)
	if err != nil {
		return nil, nil, nil, notANotebookErr(p, err)
	}
	if out, err = nb.Rewrite(content); err != nil {
		return nil, nil, nil, notebookShapeErr(p, err)
	}
	nnb, err := notebook.Parse(out)
	if err != nil {
		return nil, nil, nil, notebookShapeErr(p, err)
	}
	return out, oldView, []byte(nnb.Text()), nil
}

// notANotebookErr is the error of cell text written to a file that is not
// a notebook.
func notANotebookErr(p workspace.Path, err error) error {
	return &Error{Kind: KindUsage, Message: fmt.Sprintf("write %s: the file is not a valid notebook (%v), so cell text cannot be merged into it. Write the whole notebook JSON instead.", p.Rel, err), Err: err}
}

func notebookShapeErr(p workspace.Path, err error) error {
	if errors.Is(err, notebook.ErrShape) {
		return &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: content is not notebook cell text: %v. Nothing was written.", p.Rel, err), Err: err}
	}
	return err
}

// emptyNotebook is the notebook a write of cell text to a new .ipynb
// starts from.
const emptyNotebook = `{
 "cells": [],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
`

// headSniffer keeps the first max bytes of a stream (workspace.IsBinary
// looks at sniffBytes, the generated-file check at generatedHeadBytes).
type headSniffer struct {
	head []byte
	max  int
}

func (h *headSniffer) Write(p []byte) (int, error) {
	if len(h.head) < h.max {
		h.head = append(h.head, p[:min(len(p), h.max-len(h.head))]...)
	}
	return len(p), nil
}

// bigNotebook is a notebook on disk too large to hold (over the stream
// threshold, not open in the editor), read in one pass that keeps only its
// cell text, with its sha256, its tag and its first bytes beside; its file
// stays open until the rewrite is made (Close), and its new JSON (rewrite)
// is pieces of it, which the commit writes without holding them, reading
// the file through its own handle (workspace.Change.NewPieces), and the
// old JSON goes to the trash in pieces.
type bigNotebook struct {
	f    *os.File // read at random by the rewrite (nil once closed)
	nb   *notebook.Notebook
	sum  [32]byte
	tag  string
	head []byte
	// The new notebook: its pieces, size, sha256, tag, lines and cell text.
	pieces  []pieces.Piece
	size    int64
	newSum  [32]byte
	newTag  string
	lines   int
	newView []byte
}

// openBigNotebook reads p as a bigNotebook; nil when it is not one (not a
// notebook, absent, small enough to hold, or open in the editor). A file
// that is not a notebook is an error wrapping notebook.ErrShape, for the
// caller to word.
func openBigNotebook(ctx context.Context, env *Env, p workspace.Path) (*bigNotebook, error) {
	if !notebook.IsNotebook(p.Rel) {
		return nil, nil
	}
	st, err := env.WS.Stat(p)
	if err != nil || !st.Regular || st.Overlay || st.Size <= streamThreshold(env) {
		return nil, nil
	}
	f, err := env.WS.OpenReader(p)
	if err != nil {
		return nil, err
	}
	b := &bigNotebook{f: f}
	h, tw, head := sha256.New(), &edit.TagWriter{}, &headSniffer{max: generatedHeadBytes}
	if b.nb, err = notebook.ParseReader(io.TeeReader(ctxio.Reader(ctx, f), io.MultiWriter(h, tw, head))); err != nil {
		f.Close()
		if errors.Is(err, notebook.ErrShape) {
			return nil, err
		}
		return nil, streamReadErr(p, err)
	}
	h.Sum(b.sum[:0])
	b.tag, b.head = tw.Tag(), head.head
	return b, nil
}

// Close closes the notebook's file; it may be called again. The file is
// closed before the commit that replaces it: Windows does not replace or
// remove a file held open (the commit reads it through its own handle).
func (b *bigNotebook) Close() {
	if b.f != nil {
		b.f.Close()
		b.f = nil
	}
}

// rewrite makes the new notebook from cell text: pieces of the file
// around the changed sources (notebook.RewritePieces), then a pass over
// them for the new notebook's sha256, tag, lines and cell text. Cell text
// that does not fit the notebook is an error wrapping notebook.ErrShape.
func (b *bigNotebook) rewrite(ctx context.Context, env *Env, p workspace.Path, text string) error {
	ps, err := b.nb.RewritePieces(text, b.f)
	if err != nil {
		return err
	}
	h, tw := sha256.New(), &edit.TagWriter{}
	lines := newLineStreamer(env.limits(), func(int) int { return math.MaxInt }, 0, 0)
	nnb, err := notebook.ParseReader(io.TeeReader(ctxio.Reader(ctx, pieces.Reader(b.f, ps)), io.MultiWriter(h, tw, lines)))
	if err != nil {
		if errors.Is(err, notebook.ErrShape) {
			return err
		}
		return streamReadErr(p, err)
	}
	b.pieces, b.size, b.newTag, b.lines, b.newView = ps, pieces.Size(ps), tw.Tag(), lines.finish().Len(), []byte(nnb.Text())
	h.Sum(b.newSum[:0])
	return nil
}

// change plans writing the new notebook over p, which holds the old one.
func (b *bigNotebook) change(p workspace.Path, note string) planned {
	pw := planned{ch: workspace.Change{Path: p, Base: workspace.BaseSHA256(b.sum), NewPieces: b.pieces, NewSize: b.size, NewSHA256: &b.newSum, NewTag: b.newTag, Note: note}, oldTag: b.tag}
	pw.ch.Seen = nonNil(nil)
	if b.lines > 0 {
		pw.ch.Seen = []workspace.LineRange{{Start: 1, End: b.lines}}
	}
	return pw
}

// writeNotebookStreamed is writeFile of a notebook too large to hold
// (bigNotebook): nothing of it is held but its cell text, and the cell
// text written becomes pieces of the file. Notebook JSON is written as
// given (it came whole with the call). ok is false when the notebook is
// not one to stream: writeFile then reads it whole.
func writeNotebookStreamed(ctx context.Context, env *Env, r writeReq) (w *wrote, ok bool, err error) {
	b, err := openBigNotebook(ctx, env, r.path)
	switch {
	case errors.Is(err, notebook.ErrShape): // not a notebook: writeFile says so, or writes JSON over it
		return nil, false, nil
	case err != nil || b == nil:
		return nil, err != nil, err
	}
	defer b.Close()
	if err := checkExpectedSum(r.path, true, hex.EncodeToString(b.sum[:]), r.expected); err != nil {
		return nil, true, err
	}
	if !r.allowGenerated {
		if err := refuseGenerated(r.path, b.head); err != nil {
			return nil, true, err
		}
	}
	w = &wrote{existed: true, oldView: []byte(b.nb.Text())}
	var pw planned
	if content := string(r.content); strings.HasPrefix(strings.TrimSpace(content), "{") {
		if _, _, w.view, err = notebookWrite(r.path, nil, content); err != nil {
			return nil, true, err
		}
		pw = planned{ch: workspace.Change{Path: r.path, Base: workspace.BaseSHA256(b.sum), New: r.content, NewTag: edit.Tag(r.content), Seen: nonNil(allLines(r.content))}, oldTag: b.tag}
		w.size = int64(len(r.content))
	} else {
		if err := b.rewrite(ctx, env, r.path, content); err != nil {
			return nil, true, notebookShapeErr(r.path, err)
		}
		pw, w.view, w.size = b.change(r.path, ""), b.newView, b.size
	}
	// The diff is of the cell text, as an edit's is.
	if pw.diff = edit.UnifiedDiff(r.path.Rel, w.oldView, w.view); pw.diff == "" {
		pw.binary = true
	}
	b.Close()
	if w.changes, err = commit(ctx, env, r.tool, []planned{pw}, r.allowVCS); err != nil {
		return nil, true, err
	}
	return w, true, nil
}
