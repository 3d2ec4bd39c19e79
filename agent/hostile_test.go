package agent

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotUnicodeRefused: arguments that JSON decoding would change (bytes
// that are not UTF-8, lone UTF-16 surrogates) are refused, whatever the
// tool and argument; nothing is written and no path is renamed. Real text,
// including U+FFFD itself and surrogate pairs, is written as sent.
func TestNotUnicodeRefused(t *testing.T) {
	cases := []struct {
		name  string
		raw   string
		want  string // substring of the error; "" = success
		file  string // file to check after success
		bytes string // its expected content
	}{
		{"invalid byte in content", "{\"path\":\"a.txt\",\"content\":\"a\xffb\"}", `argument "content" holds 1 sequence(s) that are not Unicode`, "", ""},
		{"two invalid bytes", "{\"path\":\"a.txt\",\"content\":\"\xfe\xff\"}", `holds 2 sequence(s)`, "", ""},
		{"lone high surrogate", `{"path":"a.txt","content":"a\ud800b"}`, `argument "content" holds 1`, "", ""},
		{"lone low surrogate", `{"path":"a.txt","content":"\udc00"}`, `holds 1`, "", ""},
		{"high surrogate then non-low", `{"path":"a.txt","content":"\ud800\u0041"}`, `holds 1`, "", ""},
		{"invalid byte in path", "{\"path\":\"x\xff.txt\",\"content\":\"a\"}", `argument "path" holds 1`, "", ""},
		{"surrogate in path", `{"path":"x\udfff.txt","content":"a"}`, `argument "path" holds 1`, "", ""},
		{"hint names contentBase64", "{\"path\":\"a.txt\",\"content\":\"\xff\"}", `contentBase64`, "", ""},
		{"surrogate pair is text", `{"path":"p.txt","content":"\ud83d\ude00"}`, "", "p.txt", "😀"},
		{"U+FFFD itself is text", `{"path":"r.txt","content":"\ufffd` + "\xef\xbf\xbd" + `"}`, "", "r.txt", "\ufffd\ufffd"},
		{"escaped backslash then u", `{"path":"s.txt","content":"\\ud800"}`, "", "s.txt", `\ud800`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t)
			res, err := runEnv(env, "write", []byte(tc.raw))
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) || AsError(err).Kind != KindUsage {
					t.Fatalf("write %q: %v %v, want a usage error containing %q", tc.raw, res, err, tc.want)
				}
				entries, _ := os.ReadDir(env.WS.Root())
				for _, e := range entries {
					if !strings.HasPrefix(e.Name(), ".") {
						t.Fatalf("a refused write left %s", e.Name())
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("write %q: %v", tc.raw, err)
			}
			got, err := os.ReadFile(filepath.Join(env.WS.Root(), tc.file))
			if err != nil || string(got) != tc.bytes {
				t.Fatalf("wrote %q (%v), want %q", got, err, tc.bytes)
			}
		})
	}
}

// TestWriteContentBase64: contentBase64 writes bytes exactly (no line-style
// or BOM handling, bytes that are not UTF-8 kept), and is exclusive with
// content.
func TestWriteContentBase64(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	cases := []struct {
		name     string
		existing string // "" = no file
		args     map[string]any
		want     string // file content after success
		wantErr  string
	}{
		{"binary bytes", "", map[string]any{"path": "f.bin", "contentBase64": b64("\x00\xff\xfe\r\n\xd8\x00")}, "\x00\xff\xfe\r\n\xd8\x00", ""},
		{"no CRLF adaptation", "a\r\nb\r\n", map[string]any{"path": "f.txt", "contentBase64": b64("x\ny\n")}, "x\ny\n", ""},
		{"no BOM kept", "\xef\xbb\xbfa\n", map[string]any{"path": "f.txt", "contentBase64": b64("b\n")}, "b\n", ""},
		{"read header not stripped", "", map[string]any{"path": "f.txt", "contentBase64": b64("¶f.txt#ABCD\n1:x\n")}, "¶f.txt#ABCD\n1:x\n", ""},
		{"empty", "old", map[string]any{"path": "f.txt", "contentBase64": ""}, "", ""},
		{"both", "", map[string]any{"path": "f.txt", "content": "a", "contentBase64": b64("a")}, "", "not both"},
		{"neither", "", map[string]any{"path": "f.txt"}, "", "missing content"},
		{"not base64", "", map[string]any{"path": "f.txt", "contentBase64": "%%%"}, "", "not standard base64"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t)
			path, _ := tc.args["path"].(string)
			if tc.existing != "" {
				writeRootFile(t, env, path, tc.existing)
			}
			_, err := runTool(env, "write", tc.args)
			got, _ := os.ReadFile(filepath.Join(env.WS.Root(), path))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || AsError(err).Kind != KindUsage {
					t.Fatalf("got %v, want a usage error containing %q", err, tc.wantErr)
				}
				if string(got) != tc.existing {
					t.Fatalf("a refused write changed the file to %q", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("file %q, want %q", got, tc.want)
			}
		})
	}
}

// TestBoundedEcho: messages quote a short prefix of long input and its
// length, never all of it.
func TestBoundedEcho(t *testing.T) {
	long := strings.Repeat("a", 10<<20)
	if q := QuoteInput(long); len(q) > 100 || !strings.Contains(q, "(10485760 bytes)") {
		t.Fatalf("QuoteInput: %q", q)
	}
	if q := QuoteInput("short"); q != `"short"` {
		t.Fatalf("QuoteInput(short) = %s", q)
	}
	if q := QuoteInput(strings.Repeat("é", 100)); !strings.HasSuffix(q, "(200 bytes)") || strings.ContainsRune(q, '\ufffd') {
		t.Fatalf("QuoteInput cuts a character: %s", q)
	}
	msg := "read " + long + ": stat /root/" + long + ": file name too long. Pass a shorter path."
	b := BoundMessage(msg)
	if len(b) > 1024 || !strings.Contains(b, "(10485761 bytes)") || !strings.HasSuffix(b, "Pass a shorter path.") {
		t.Fatalf("BoundMessage: %d bytes %q", len(b), b)
	}
	if BoundMessage("ok: short") != "ok: short" {
		t.Fatal("BoundMessage changed a short message")
	}
	many := strings.Repeat("word ", 1<<20) + "advice."
	if b := BoundMessage(many); len(b) > 5000 || !strings.HasSuffix(b, "advice.") || !strings.Contains(b, "left out") {
		t.Fatalf("BoundMessage of many words: %d bytes", len(b))
	}

	env := newTestEnv(t)
	for _, args := range []map[string]any{
		{"path": long},
		{"path": "x", "content": "y", "allowVcs": false, long[:70<<10]: 1},
	} {
		tool := "read"
		if _, ok := args["content"]; ok {
			tool = "write"
		}
		_, err := runTool(env, tool, args)
		if err == nil || len(err.Error()) > 1024 {
			t.Fatalf("%s with a huge argument: %d-byte error", tool, len(err.Error()))
		}
	}
	for _, args := range []map[string]any{
		{"pattern": long, "paths": []string{"."}},
		{"pattern": "x", "paths": []string{long}},
	} {
		_, err := runTool(env, "search", args)
		if err == nil || len(err.Error()) > 1024 || !strings.Contains(err.Error(), "bytes)") {
			t.Fatalf("search with a huge argument: %v", err)
		}
	}
}
