// Command hangserver is a fake language server for tests: it answers
// initialize and shutdown, then never answers any other request.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"strconv"
)

func main() {
	r := bufio.NewReader(os.Stdin)
	tp := textproto.NewReader(r)
	for {
		h, err := tp.ReadMIMEHeader()
		if err != nil {
			return
		}
		n, _ := strconv.Atoi(h.Get("Content-Length"))
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		fmt.Fprintf(os.Stderr, "hangserver: got %s\n", msg.Method)
		var result string
		switch msg.Method {
		case "initialize":
			result = `{"capabilities":{"hoverProvider":true,"textDocumentSync":1}}`
		case "shutdown":
			result = `null`
		case "exit":
			return
		default:
			continue // never answered
		}
		out := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
		fmt.Printf("Content-Length: %d\r\n\r\n%s", len(out), out)
	}
}
