// Command fakeserver is a deterministic language server for tests. Over
// full-text document sync it:
//
//   - publishes, for every document it is sent (didOpen, didChange), one
//     error per line containing "ERROR" (source "fake"), with the version;
//   - answers textDocument/rename with the whole-word replacement of the
//     word under the cursor in every file of the root with the document's
//     extension (the text it was sent for open documents, the disk for the
//     others), as a WorkspaceEdit's changes;
//   - answers textDocument/formatting with edits removing the trailing
//     blanks of every line;
//   - answers hover with null, shutdown, exit; any other request gets
//     MethodNotFound.
//
// With the argument -hang it answers initialize and shutdown and never any
// other request (a server that hangs).
//
// Columns are counted in bytes: the tests that drive it use ASCII text, for
// which bytes and UTF-16 units agree.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

type pos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type rng struct {
	Start pos `json:"start"`
	End   pos `json:"end"`
}

type textEdit struct {
	Range   rng    `json:"range"`
	NewText string `json:"newText"`
}

var (
	out  = bufio.NewWriter(os.Stdout)
	docs = map[string]string{} // uri -> text
	root string
	// hang (the argument -hang) answers initialize and shutdown only:
	// every other request is never answered.
	hang = len(os.Args) > 1 && os.Args[1] == "-hang"
)

func main() {
	r := bufio.NewReader(os.Stdin)
	tp := textproto.NewReader(r)
	for {
		h, err := tp.ReadMIMEHeader()
		if err != nil {
			return
		}
		n, err := strconv.Atoi(h.Get("Content-Length"))
		if err != nil || n < 0 || n > 64<<20 {
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(body, &msg) != nil {
			continue
		}
		if msg.Method == "" { // a reply to one of our requests: none are sent
			continue
		}
		result, errMsg := handle(msg.Method, msg.Params)
		if msg.Method == "exit" {
			return
		}
		if len(msg.ID) == 0 {
			continue // a notification
		}
		if hang && msg.Method != "initialize" && msg.Method != "shutdown" {
			fmt.Fprintf(os.Stderr, "fakeserver -hang: not answering %s\n", msg.Method)
			continue
		}
		var reply any
		if errMsg != "" {
			reply = map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": errMsg}}
		} else {
			reply = map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result}
		}
		send(reply)
	}
}

func send(v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(out, "Content-Length: %d\r\n\r\n%s", len(b), b)
	out.Flush()
}

// params is the union of the parameters the handled methods take.
type params struct {
	RootURI      string `json:"rootUri"`
	TextDocument struct {
		URI     string `json:"uri"`
		Version int    `json:"version"`
		Text    string `json:"text"`
	} `json:"textDocument"`
	ContentChanges []struct {
		Text string `json:"text"`
	} `json:"contentChanges"`
	Position pos    `json:"position"`
	NewName  string `json:"newName"`
}

func handle(method string, raw json.RawMessage) (any, string) {
	var p params
	_ = json.Unmarshal(raw, &p)
	uri := p.TextDocument.URI
	if hang && method != "initialize" && method != "shutdown" && method != "exit" {
		return nil, "" // never answered (main does not reply when hang)
	}
	switch method {
	case "initialize":
		root = pathOf(p.RootURI)
		return map[string]any{"capabilities": map[string]any{"textDocumentSync": 1, "renameProvider": true, "hoverProvider": true, "documentFormattingProvider": true}}, ""
	case "initialized", "exit", "workspace/didChangeConfiguration", "workspace/didChangeWatchedFiles", "textDocument/didSave",
		"shutdown", "textDocument/hover":
		return nil, ""
	case "textDocument/didOpen":
		docs[uri] = p.TextDocument.Text
		publish(uri, p.TextDocument.Version)
		return nil, ""
	case "textDocument/didChange":
		if n := len(p.ContentChanges); n > 0 {
			docs[uri] = p.ContentChanges[n-1].Text
		}
		publish(uri, p.TextDocument.Version)
		return nil, ""
	case "textDocument/didClose":
		delete(docs, uri)
		return nil, ""
	case "textDocument/formatting":
		edits := []textEdit{}
		for i, l := range strings.Split(docs[uri], "\n") {
			if t := strings.TrimRight(l, " \t"); len(t) < len(l) {
				edits = append(edits, textEdit{rng{pos{i, len(t)}, pos{i, len(l)}}, ""})
			}
		}
		return edits, ""
	case "textDocument/rename":
		return rename(uri, p.Position, p.NewName)
	}
	if strings.HasPrefix(method, "$/") {
		return nil, ""
	}
	return nil, "fakeserver: " + method + " is not supported"
}

// publish sends the diagnostics of one document: an error on every line
// holding "ERROR".
func publish(uri string, version int) {
	diags := []any{}
	for i, line := range strings.Split(docs[uri], "\n") {
		if c := strings.Index(line, "ERROR"); c >= 0 {
			diags = append(diags, map[string]any{"range": rng{pos{i, c}, pos{i, c + 5}}, "severity": 1, "source": "fake", "message": "ERROR on this line"})
		}
	}
	send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
		"params": map[string]any{"uri": uri, "version": version, "diagnostics": diags}})
}

func isWord(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// rename replaces the word at at in uri by newName in every file of the
// root with uri's extension.
func rename(uri string, at pos, newName string) (any, string) {
	text, ok := docs[uri]
	if !ok {
		b, err := os.ReadFile(pathOf(uri))
		if err != nil {
			return nil, "fakeserver: rename: " + err.Error()
		}
		text = string(b)
	}
	lines := strings.Split(text, "\n")
	if at.Line >= len(lines) || at.Character > len(lines[at.Line]) {
		return nil, "fakeserver: rename: position out of range"
	}
	line := lines[at.Line]
	s, e := at.Character, at.Character
	for s > 0 && isWord(line[s-1]) {
		s--
	}
	for e < len(line) && isWord(line[e]) {
		e++
	}
	word := line[s:e]
	if word == "" {
		return nil, "fakeserver: rename: no word at the position"
	}
	ext := filepath.Ext(pathOf(uri))
	changes := map[string][]textEdit{}
	var files []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() && filepath.Ext(p) == ext && !strings.HasPrefix(d.Name(), ".") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	for _, f := range files {
		u := uriOf(f)
		t, ok := docs[u]
		if !ok {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			t = string(b)
		}
		var edits []textEdit
		for i, l := range strings.Split(t, "\n") {
			for c := 0; ; {
				j := strings.Index(l[c:], word)
				if j < 0 {
					break
				}
				j += c
				c = j + len(word)
				if (j > 0 && isWord(l[j-1])) || (c < len(l) && isWord(l[c])) {
					continue
				}
				edits = append(edits, textEdit{rng{pos{i, j}, pos{i, c}}, newName})
			}
		}
		if len(edits) > 0 {
			changes[u] = edits
		}
	}
	return map[string]any{"changes": changes}, ""
}

func pathOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	p := u.Path
	if len(p) > 2 && p[0] == '/' && p[2] == ':' { // file:///C:/x on Windows
		p = p[1:]
	}
	return filepath.FromSlash(p)
}

func uriOf(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x on Windows
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
