package langserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzServerReplies feeds arbitrary server replies to the converters of
// workspace edits, locations and hover contents: no panic, and an edit
// that converts applies within the file.
func FuzzServerReplies(f *testing.F) {
	root := f.TempDir()
	file := filepath.Join(root, "a.go")
	if err := os.WriteFile(file, []byte("package a\n\nfunc A() {}\n// é😀\r\nx\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	m := newManager(f, root, nil)
	uri := URI(file)
	for _, s := range []string{
		`{"changes":{"` + uri + `":[{"range":{"start":{"line":2,"character":5},"end":{"line":2,"character":6}},"newText":"B"}]}}`,
		`{"documentChanges":[{"textDocument":{"uri":"` + uri + `","version":1},"edits":[{"range":{"start":{"line":3,"character":3},"end":{"line":3,"character":5}},"newText":""}]},{"kind":"rename","oldUri":"` + uri + `","newUri":"` + URI(filepath.Join(root, "b.go")) + `"}]}`,
		`{"documentChanges":[{"kind":"create","uri":"` + uri + `"},{"kind":"delete","uri":"` + uri + `"}]}`,
		`[{"uri":"` + uri + `","range":{"start":{"line":9,"character":99},"end":{"line":-1,"character":-4}}}]`,
		`{"targetUri":"` + uri + `","targetSelectionRange":{"start":{"line":3,"character":4},"end":{"line":3,"character":6}}}`,
		`[{"kind":"markdown","value":"x"},"y",{"language":"go","value":"z"}]`,
		`null`, `{}`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		if we, err := m.convertEdit(raw); err == nil {
			for _, fs := range we.Files() {
				_ = fs.New
			}
		}
		_ = m.locations(raw)
		_ = hoverText(raw)
	})
}
