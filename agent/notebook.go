package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
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

// headSniffer keeps the first bytes of a stream (the generated-file check
// looks at generatedHeadBytes).
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

// writeNotebookStreamed is writeFile of a notebook on disk too large to
// hold (over streamThreshold, not open in the editor): nothing of it is
// held but its cell text. One pass parses the old notebook (its sha256 and
// tag beside); cell text becomes pieces of the file around the changed
// sources (notebook.RewritePieces), which a second pass hashes, tags and
// parses back; the commit writes them to the temp file and keeps the old
// content in the trash in pieces (workspace.Change.NewPieces). Notebook
// JSON is written as given. ok is false when the notebook is not one to
// stream: writeFile then reads it whole.
func writeNotebookStreamed(ctx context.Context, env *Env, r writeReq) (w *wrote, ok bool, err error) {
	st, err := env.WS.Stat(r.path)
	if err != nil || !st.Regular || st.Overlay || st.Size <= streamThreshold(env) {
		return nil, false, nil
	}
	if r.create {
		return nil, true, mustNotExist(env, r.tool, r.path)
	}
	rc, err := env.WS.OpenReader(r.path)
	if err != nil {
		return nil, true, err
	}
	defer rc.Close()
	f, isFile := rc.(io.ReaderAt)
	if !isFile {
		return nil, false, nil
	}
	// The old notebook: its cells, sha256, tag and first bytes.
	oldSum, oldTag := sha256.New(), &edit.TagWriter{}
	head := &headSniffer{max: generatedHeadBytes}
	nb, err := notebook.ParseReader(io.TeeReader(ctxio.Reader(ctx, rc), io.MultiWriter(oldSum, oldTag, head)))
	if err != nil {
		if errors.Is(err, notebook.ErrShape) {
			return nil, true, notANotebookErr(r.path, err)
		}
		return nil, true, streamReadErr(r.path, err)
	}
	var base [32]byte
	oldSum.Sum(base[:0])
	if err := checkExpectedSum(r.path, true, hex.EncodeToString(base[:]), r.expected); err != nil {
		return nil, true, err
	}
	if !r.allowGenerated {
		if err := refuseGenerated(r.path, head.head); err != nil {
			return nil, true, err
		}
	}
	w = &wrote{existed: true, oldView: []byte(nb.Text())}
	pw := planned{ch: workspace.Change{Path: r.path, Base: workspace.BaseSHA256(base)}, oldTag: oldTag.Tag()}
	if content := string(r.content); strings.HasPrefix(strings.TrimSpace(content), "{") {
		// Notebook JSON, written as it is (it came whole with the call).
		if _, _, w.view, err = notebookWrite(r.path, nil, content); err != nil {
			return nil, true, err
		}
		pw.ch.New, pw.ch.NewTag, w.size = r.content, edit.Tag(r.content), int64(len(r.content))
		pw.ch.Seen = nonNil(allLines(r.content))
	} else {
		ps, err := nb.RewritePieces(content, f)
		if err != nil {
			return nil, true, notebookShapeErr(r.path, err)
		}
		// The new notebook, in a pass over its pieces: sha256, tag, lines
		// and cell text.
		newSum, newTag := sha256.New(), &edit.TagWriter{}
		lines := newLineStreamer(env.limits(), func(int) int { return math.MaxInt }, 0, 0)
		nnb, err := notebook.ParseReader(io.TeeReader(ctxio.Reader(ctx, pieces.Reader(f, ps)), io.MultiWriter(newSum, newTag, lines)))
		if err != nil {
			if errors.Is(err, notebook.ErrShape) {
				return nil, true, notebookShapeErr(r.path, err)
			}
			return nil, true, streamReadErr(r.path, err)
		}
		var sum [32]byte
		newSum.Sum(sum[:0])
		w.view, w.size = []byte(nnb.Text()), pieces.Size(ps)
		pw.ch.NewPieces, pw.ch.NewSize, pw.ch.NewSHA256, pw.ch.NewTag = ps, w.size, &sum, newTag.Tag()
		if n := lines.finish().Len(); n > 0 {
			pw.ch.Seen = []workspace.LineRange{{Start: 1, End: n}}
		} else {
			pw.ch.Seen = nonNil(nil)
		}
	}
	// The diff is of the cell text, as an edit's is.
	if pw.diff = edit.UnifiedDiff(r.path.Rel, w.oldView, w.view); pw.diff == "" {
		pw.binary = true
	}
	if w.changes, err = commit(ctx, env, r.tool, []planned{pw}, r.allowVCS); err != nil {
		return nil, true, err
	}
	return w, true, nil
}
