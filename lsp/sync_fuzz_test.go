package lsp

import (
	"context"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// refPosition is an independent offset -> LSP position conversion (line
// breaks "\r\n", "\r", "\n"; UTF-16 columns) for valid, rune-aligned offsets.
func refPosition(text string, off int) protocol.Position {
	line, col := 0, 0
	for i := 0; i < off; {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\r' && i+1 < len(text) && text[i+1] == '\n':
			if i+1 == off {
				return protocol.Position{Line: uint32(line), Character: uint32(col)}
			}
			line, col = line+1, 0
			i += 2
			continue
		case r == '\r' || r == '\n':
			line, col = line+1, 0
		default:
			col += len(utf16.Encode([]rune{r}))
		}
		i += size
	}
	return protocol.Position{Line: uint32(line), Character: uint32(col)}
}

// alignRune moves off back to a rune start and out of a "\r\n" pair.
func alignRune(text string, off int) int {
	if off > len(text) {
		off = len(text)
	}
	for off > 0 && off < len(text) && (!utf8.RuneStart(text[off]) || text[off-1] == '\r' && text[off] == '\n') {
		off--
	}
	return off
}

// FuzzIncrementalSync applies random edits, expressed as LSP ranges by an
// independent converter, through DidChange and checks the server's copy
// against the same edits applied by offset.
func FuzzIncrementalSync(f *testing.F) {
	f.Add("package a\r\n// 😀 é\rx\n", uint16(3), uint16(9), "Z\r\n", uint16(0), uint16(0), "top")
	f.Add("", uint16(0), uint16(0), "x", uint16(1), uint16(1), "😀")
	f.Fuzz(func(t *testing.T, text string, a1, b1 uint16, ins1 string, a2, b2 uint16, ins2 string) {
		if !utf8.ValidString(text) || !utf8.ValidString(ins1) || !utf8.ValidString(ins2) {
			return
		}
		s := newServer(Options{Logf: func(string, ...any) {}})
		ctx := context.Background()
		u := protocolURI("untitled:fuzz")
		_ = s.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "go", Version: 1, Text: text}})
		want := text
		version := int32(1)
		// Half the inputs send both changes in one didChange, in order
		// (the second's range names the text after the first), as an
		// editor sends a multi-edit.
		together := (a1^b2)&1 == 1
		var batch []protocol.TextDocumentContentChangeEvent
		for _, e := range []struct {
			a, b uint16
			ins  string
		}{{a1, b1, ins1}, {a2, b2, ins2}} {
			if len(want) == 0 {
				e.a, e.b = 0, 0
			}
			start := alignRune(want, int(e.a)%(len(want)+1))
			end := alignRune(want, int(e.b)%(len(want)+1))
			if end < start {
				start, end = end, start
			}
			rng := protocol.Range{Start: refPosition(want, start), End: refPosition(want, end)}
			want = want[:start] + e.ins + want[end:]
			batch = append(batch, &protocol.TextDocumentContentChangePartial{Range: rng, Text: e.ins})
			if together && len(batch) < 2 {
				continue
			}
			version++
			err := s.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
				TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
				ContentChanges: batch,
			})
			if err != nil {
				t.Fatal(err)
			}
			batch = nil
			// The document's tree follows the changes (treesitter checks
			// that the offsets describe them; its tests compare the
			// results with fresh parses).
			docID := protocol.TextDocumentIdentifier{URI: u}
			if _, err := s.DocumentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: docID}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.FoldingRanges(ctx, &protocol.FoldingRangeParams{TextDocument: docID}); err != nil {
				t.Fatal(err)
			}
		}
		defer s.DidClose(ctx, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
		sn, err := s.snapshotOf(u)
		if err != nil {
			t.Fatal(err)
		}
		if string(sn.text) != want {
			t.Fatalf("server %q, want %q", sn.text, want)
		}
	})
}

// TestDidChangeMultiEdit: several range changes in one didChange, in the
// orders editors send them (last first, as VS Code and Neovim do for a
// multi-edit, which the server applies in one pass; first first; adjacent;
// line breaks, CRLF and UTF-16 columns), leave the server's copy equal to
// the same edits applied one at a time by offset.
func TestDidChangeMultiEdit(t *testing.T) {
	base := "package a\r\n// 😀 é\r\nfunc f() {\n\treturn 1\n}\n\n// tail ✓\n"
	type ed struct {
		start, end int
		ins        string
	}
	cases := []struct {
		name  string
		edits []ed // by offset into the text the previous edits left
	}{
		{"last first", []ed{{60, 60, "X"}, {40, 48, "\treturn 2"}, {11, 13, "##"}, {0, 7, "pkg"}}},
		{"first first", []ed{{0, 7, "pkg"}, {20, 20, "Y\r\n"}, {50, 51, ""}}},
		{"adjacent, last first", []ed{{30, 35, "b"}, {25, 30, "a"}, {20, 25, ""}}},
		{"line breaks added and removed", []ed{{58, 59, "\n\n\n"}, {30, 45, ""}, {9, 11, " "}}},
		{"emoji and CRLF", []ed{{22, 22, "😀😀"}, {14, 18, "x"}, {9, 11, "\n"}}},
		{"one insertion then one before it", []ed{{40, 40, "A"}, {10, 10, "B"}}},
		{"overlapping in order (not descending)", []ed{{10, 20, "long text"}, {12, 14, "ab"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(Options{Logf: func(string, ...any) {}})
			ctx := context.Background()
			u := protocolURI("untitled:multi")
			_ = s.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "go", Version: 1, Text: base}})
			want := base
			var changes []protocol.TextDocumentContentChangeEvent
			for _, e := range c.edits {
				start, end := alignRune(want, e.start), alignRune(want, e.end)
				changes = append(changes, &protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: refPosition(want, start), End: refPosition(want, end)}, Text: e.ins})
				want = want[:start] + e.ins + want[end:]
			}
			err := s.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
				TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 2},
				ContentChanges: changes,
			})
			if err != nil {
				t.Fatal(err)
			}
			sn, err := s.snapshotOf(u)
			if err != nil {
				t.Fatal(err)
			}
			if string(sn.text) != want {
				t.Fatalf("server %q\nwant   %q", sn.text, want)
			}
			// The document's tree followed: symbols equal a fresh parse's.
			if _, err := s.DocumentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
