// The kinds of path read and write handle beyond a plain file: notebooks,
// images, directories, merge conflicts, generated files, suffix matches and
// archive links.

package agent

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

const testNotebook = `{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "m1",
   "metadata": {},
   "source": [
    "# Title"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "id": "c1",
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "1\n"
     ]
    }
   ],
   "source": [
    "x = 1\n",
    "print(x)"
   ]
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
`

var headerTagRE = regexp.MustCompile(`¶[^#\n]+#([0-9A-F]{4})`)

func readFileT(t *testing.T, env *Env, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env.WS.Root(), rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestNotebookReadEditWrite(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "nb.ipynb", testNotebook)
	res, err := runTool(env, "read", map[string]string{"path": "nb.ipynb"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1:# %% [markdown] cell:0", "2:# Title", "3:# %% [code] cell:1 (1 output elided)", "4:x = 1", "5:print(x)"} {
		if !strings.Contains(res.Text, want+"\n") {
			t.Fatalf("read lacks %q:\n%s", want, res.Text)
		}
	}
	raw, err := runTool(env, "read", map[string]string{"path": "nb.ipynb:raw"})
	if err != nil || raw.Text != testNotebook {
		t.Fatalf(":raw is not the JSON: %v\n%s", err, raw.Text)
	}
	// edit the cell text: the markdown cell keeps its bytes, the JSON stays valid.
	tag := headerTagRE.FindStringSubmatch(res.Text)[1]
	res, err = runTool(env, "edit", map[string]string{"input": "¶nb.ipynb#" + tag + "\nreplace 4..4:\n+x = 2\n"})
	if err != nil {
		t.Fatal(err)
	}
	got := readFileT(t, env, "nb.ipynb")
	if got != strings.Replace(testNotebook, `"x = 1\n"`, `"x = 2\n"`, 1) {
		t.Fatalf("edit rewrote more than the cell:\n%s", got)
	}
	// the tag the edit returned is accepted by the next edit.
	tag = headerTagRE.FindStringSubmatch(res.Text)[1]
	if _, err := runTool(env, "edit", map[string]string{"input": "¶nb.ipynb#" + tag + "\ninsert tail:\n+# %% [markdown]\n+done\n"}); err != nil {
		t.Fatalf("second edit: %v", err)
	}
	got = readFileT(t, env, "nb.ipynb")
	if !json.Valid([]byte(got)) || !strings.Contains(got, `"done"`) {
		t.Fatalf("after tail insert:\n%s", got)
	}
	// an edit that breaks the marker is refused, nothing written.
	res, _ = runTool(env, "read", map[string]string{"path": "nb.ipynb"})
	tag = headerTagRE.FindStringSubmatch(res.Text)[1]
	if _, err := runTool(env, "edit", map[string]string{"input": "¶nb.ipynb#" + tag + "\nreplace 1..1:\n+stray text\n"}); err == nil || !strings.Contains(err.Error(), "cell text") {
		t.Fatalf("broken marker accepted: %v", err)
	}
	if readFileT(t, env, "nb.ipynb") != got {
		t.Fatal("refused edit changed the file")
	}
	// write cell text: JSON out, untouched cell kept.
	if _, err := runTool(env, "write", map[string]string{"path": "nb.ipynb", "content": "# %% [markdown] cell:0\n# Title\n# %% [code]\ny = 3\n"}); err != nil {
		t.Fatal(err)
	}
	got = readFileT(t, env, "nb.ipynb")
	if !json.Valid([]byte(got)) || !strings.Contains(got, "\"id\": \"m1\"") || strings.Contains(got, "x = 2") || !strings.Contains(got, `"y = 3"`) {
		t.Fatalf("write of cell text:\n%s", got)
	}
	// write of something that is neither: refused with the shape.
	_, err = runTool(env, "write", map[string]string{"path": "nb.ipynb", "content": "import os\n"})
	if err == nil || !strings.Contains(err.Error(), "# %% [code] cell:N") {
		t.Fatalf("plain text write to a notebook: %v", err)
	}
	// a new notebook from cell text.
	if _, err := runTool(env, "write", map[string]string{"path": "new.ipynb", "content": "# %% [code]\nprint(1)\n"}); err != nil {
		t.Fatal(err)
	}
	if got := readFileT(t, env, "new.ipynb"); !json.Valid([]byte(got)) || !strings.Contains(got, `"nbformat": 4`) {
		t.Fatalf("new notebook:\n%s", got)
	}
}

func encodeImage(t *testing.T, enc func(*bytes.Buffer, image.Image) error) []byte {
	img := image.NewPaletted(image.Rect(0, 0, 7, 3), color.Palette{color.Black, color.White})
	var buf bytes.Buffer
	if err := enc(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadImage(t *testing.T) {
	env := newTestEnv(t)
	imgs := map[string][]byte{
		"a.png": encodeImage(t, func(b *bytes.Buffer, i image.Image) error { return png.Encode(b, i) }),
		"a.jpg": encodeImage(t, func(b *bytes.Buffer, i image.Image) error { return jpeg.Encode(b, i, nil) }),
		"a.gif": encodeImage(t, func(b *bytes.Buffer, i image.Image) error { return gif.Encode(b, i, nil) }),
		"noext": encodeImage(t, func(b *bytes.Buffer, i image.Image) error { return png.Encode(b, i) }),
		// a lossless WebP 7×3 (VP8L header: width-1 and height-1 in 14 bits each).
		"a.webp": webpVP8L(7, 3),
	}
	for name, b := range imgs {
		writeRootFile(t, env, name, string(b))
	}
	for name, format := range map[string]string{"a.png": "png", "a.jpg": "jpeg", "a.gif": "gif", "noext": "png", "a.webp": "webp"} {
		res, err := runTool(env, "read", map[string]string{"path": name})
		if err != nil {
			t.Errorf("read %s: %v", name, err)
			continue
		}
		if !strings.Contains(res.Text, "7×3 pixels") || !strings.Contains(res.Text, strings.ToUpper(format)) {
			t.Errorf("read %s = %s", name, res.Text)
		}
		if d := res.Details.(*readDetails); d.Image == nil || d.Image.Format != format || d.Image.Bytes != int64(len(imgs[name])) {
			t.Errorf("read %s details %+v", name, d.Image)
		}
	}
	writeRootFile(t, env, "bad.png", "\x89PNG\r\n\x1a\nnot really\x00")
	if _, err := runTool(env, "read", map[string]string{"path": "bad.png"}); err == nil || !strings.Contains(err.Error(), "binary") {
		t.Errorf("corrupt png: %v", err)
	}
}

// webpVP8L is the header of a lossless WebP of w×h (enough for
// DecodeConfig).
func webpVP8L(w, h int) []byte {
	bits := uint32(w-1) | uint32(h-1)<<14
	payload := []byte{0x2f, byte(bits), byte(bits >> 8), byte(bits >> 16), byte(bits >> 24)}
	chunk := append([]byte("VP8L"), byte(len(payload)), 0, 0, 0)
	chunk = append(chunk, payload...)
	chunk = append(chunk, 0) // pad to even
	size := 4 + len(chunk)
	out := append([]byte("RIFF"), byte(size), byte(size>>8), 0, 0)
	out = append(out, "WEBP"...)
	return append(out, chunk...)
}

func TestReadDirectoryTree(t *testing.T) {
	env := newTestEnv(t)
	root := env.WS.Root()
	old := time.Now().Add(-48 * time.Hour)
	for i := 0; i < 30; i++ {
		name := fmt.Sprintf("big/f%02d.txt", i)
		writeRootFile(t, env, name, "x")
		mt := old.Add(time.Duration(i) * time.Minute)
		os.Chtimes(filepath.Join(root, name), mt, mt)
	}
	writeRootFile(t, env, "big/sub/deep/hidden.txt", "y")
	writeRootFile(t, env, "top.txt", "hello")
	res, err := runTool(env, "read", map[string]string{"path": "."})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text
	for _, want := range []string{"  big/ (", "    f29.txt (1B, 1d ago)", "    … 19 more", "  top.txt (5B, just now)"} {
		if !strings.Contains(text, want) {
			t.Errorf("tree lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "hidden.txt") || strings.Contains(text, "f00.txt") {
		t.Errorf("tree too deep or too wide:\n%s", text)
	}
	// newest first: f29 before f28.
	if strings.Index(text, "f29.txt") > strings.Index(text, "f28.txt") {
		t.Errorf("not newest first:\n%s", text)
	}
	// a 5,000-file directory stays small.
	for i := 0; i < 5000; i++ {
		os.WriteFile(filepath.Join(root, "big", fmt.Sprintf("g%04d.txt", i)), nil, 0o644)
	}
	res, err = runTool(env, "read", map[string]string{"path": "big"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Text) > 4096 || !strings.Contains(res.Text, "more") {
		t.Errorf("5,000-file directory: %d bytes:\n%s", len(res.Text), res.Text)
	}
}

func TestConflicts(t *testing.T) {
	env := newTestEnv(t)
	text := "a\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> feat\nb\n<<<<<<< HEAD\nx\n||||||| base\no\n=======\ny\n>>>>>>> feat\n"
	writeRootFile(t, env, "m.txt", text)
	// writing before any listing is refused.
	if _, err := runTool(env, "write", map[string]string{"path": "m.txt:conflict:1", "content": "ours\n"}); err == nil || !strings.Contains(err.Error(), "conflicts") {
		t.Fatalf("write before listing: %v", err)
	}
	res, err := runTool(env, "read", map[string]string{"path": "m.txt:conflicts"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 merge-conflict regions", "[conflict 1] lines 2-6 → write m.txt:conflict:1", "ours (HEAD): lines 3-3\n3:ours", "theirs (feat): lines 5-5\n5:theirs", "[conflict 2] lines 8-14", "base (base): lines 11-11\n11:o"} {
		if !strings.Contains(res.Text, want) {
			t.Fatalf("listing lacks %q:\n%s", want, res.Text)
		}
	}
	if d := res.Details.(*readDetails); len(d.Conflicts) != 2 || !d.Conflicts[1].Diff3 {
		t.Fatalf("details %+v", d.Conflicts)
	}
	res, err = runTool(env, "write", map[string]string{"path": "m.txt:conflict:1", "content": "merged\n"})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFileT(t, env, "m.txt"); !strings.HasPrefix(got, "a\nmerged\nb\n<<<<<<< HEAD\n") {
		t.Fatalf("after resolve:\n%s", got)
	}
	if !strings.Contains(res.Text, "1 conflict remain") || len(res.Changes) != 1 {
		t.Fatalf("result %s", res.Text)
	}
	// the remaining region, renumbered, is writable without a new listing.
	if _, err := runTool(env, "write", map[string]string{"path": "m.txt:conflict:1", "content": "y\n"}); err != nil {
		t.Fatal(err)
	}
	if got := readFileT(t, env, "m.txt"); got != "a\nmerged\nb\ny\n" {
		t.Fatalf("after second resolve: %q", got)
	}
	// a file changed since the listing is refused.
	writeRootFile(t, env, "n.txt", text)
	if _, err := runTool(env, "read", map[string]string{"path": "n.txt:conflicts"}); err != nil {
		t.Fatal(err)
	}
	writeRootFile(t, env, "n.txt", "z\n"+text)
	if _, err := runTool(env, "write", map[string]string{"path": "n.txt:conflict:1", "content": "q\n"}); err == nil || !strings.Contains(err.Error(), "changed since") {
		t.Fatalf("stale listing accepted: %v", err)
	}
	if _, err := runTool(env, "write", map[string]string{"path": "n.txt:conflict:x", "content": "q\n"}); err == nil || !strings.Contains(err.Error(), "not a region number") {
		t.Fatalf("bad id: %v", err)
	}
}

func TestWriteGuards(t *testing.T) {
	env := newTestEnv(t)
	res, err := runTool(env, "write", map[string]string{"path": "run.sh", "content": "#!/bin/sh\necho hi\n"})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(filepath.Join(env.WS.Root(), "run.sh"))
	if runtime.GOOS == "windows" { // no mode bits: nothing is made executable, or said to be
		if strings.Contains(res.Text, "made executable") || res.Details.(*writeDetails).MadeExecutable {
			t.Fatalf("shebang file on Windows: text %s", res.Text)
		}
	} else if st.Mode().Perm() != 0o755 || !strings.Contains(res.Text, "made executable") || !res.Details.(*writeDetails).MadeExecutable {
		t.Fatalf("shebang file mode %v, text %s", st.Mode(), res.Text)
	}
	for name, content := range map[string]string{
		"gen.go":               "// Code generated by stringer; DO NOT EDIT.\npackage x\n",
		"lock.js":              "/* @generated */\n",
		"api.pb.go":            "package api\n",
		"zz_generated.deep.go": "package x\n",
	} {
		writeRootFile(t, env, name, content)
		_, err := runTool(env, "write", map[string]any{"path": name, "content": "changed\n"})
		if err == nil || !strings.Contains(err.Error(), "allowGenerated") {
			t.Errorf("%s: generated file overwritten: %v", name, err)
			continue
		}
		if readFileT(t, env, name) != content {
			t.Errorf("%s changed", name)
		}
		if _, err := runTool(env, "write", map[string]any{"path": name, "content": "changed\n", "allowGenerated": true}); err != nil {
			t.Errorf("%s with allowGenerated: %v", name, err)
		}
	}
	// a marker past the first 40 lines does not count.
	writeRootFile(t, env, "late.go", strings.Repeat("\n", 41)+"// Code generated DO NOT EDIT\n")
	if _, err := runTool(env, "write", map[string]any{"path": "late.go", "content": "x\n"}); err != nil {
		t.Errorf("late marker refused: %v", err)
	}
}

func TestReadSuffixMatch(t *testing.T) {
	env := newTestEnv(t)
	writeRootFile(t, env, "src/pkg/util/strings.go", "package util\n")
	writeRootFile(t, env, "a/dup.txt", "1\n")
	writeRootFile(t, env, "b/dup.txt", "2\n")
	res, err := runTool(env, "read", map[string]string{"path": "util/strings.go:1"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Text, "[Path 'util/strings.go:1' not found; resolved to 'src/pkg/util/strings.go' via suffix match]\n¶src/pkg/util/strings.go#") {
		t.Fatalf("suffix read:\n%s", res.Text)
	}
	_, err = runTool(env, "read", map[string]string{"path": "dup.txt"})
	if err == nil || !strings.Contains(err.Error(), "a/dup.txt") || !strings.Contains(err.Error(), "b/dup.txt") {
		t.Fatalf("ambiguous suffix: %v", err)
	}
	if _, err := runTool(env, "read", map[string]string{"path": "tings.go"}); err == nil {
		t.Fatal("a partial file name matched")
	}
}

func TestArchiveLinksAndDuplicates(t *testing.T) {
	env := newTestEnv(t)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range []*tar.Header{
		{Name: "real.txt", Typeflag: tar.TypeReg, Size: 3, Mode: 0o644},
		{Name: "soft.txt", Typeflag: tar.TypeSymlink, Linkname: "real.txt"},
		{Name: "hard.txt", Typeflag: tar.TypeLink, Linkname: "real.txt"},
	} {
		tw.WriteHeader(h)
		if h.Size > 0 {
			tw.Write([]byte("hi\n"))
		}
	}
	tw.Close()
	writeRootFile(t, env, "l.tar", buf.String())
	res, err := runTool(env, "read", map[string]string{"path": "l.tar"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "soft.txt -> real.txt (symlink)") || !strings.Contains(res.Text, "hard.txt => real.txt (hard link)") {
		t.Fatalf("links not listed:\n%s", res.Text)
	}
	res, err = runTool(env, "read", map[string]string{"path": "l.tar:soft.txt"})
	if err != nil || !strings.Contains(res.Text, "symbolic link to real.txt") {
		t.Fatalf("read link: %v %s", err, res.Text)
	}
	if _, err := runTool(env, "write", map[string]string{"path": "l.tar:soft.txt", "content": "x\n"}); err == nil || !strings.Contains(err.Error(), "links to real.txt") {
		t.Fatalf("write through link: %v", err)
	}
	// duplicate zip names: the last copy is read, as unzip does.
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for _, body := range []string{"first\n", "last\n"} {
		w, _ := zw.Create("d.txt")
		w.Write([]byte(body))
	}
	zw.Close()
	writeRootFile(t, env, "d.zip", zb.String())
	res, err = runTool(env, "read", map[string]string{"path": "d.zip:d.txt"})
	if err != nil || !strings.Contains(res.Text, "last") {
		t.Fatalf("duplicate entry: %v %s", err, res.Text)
	}
}
