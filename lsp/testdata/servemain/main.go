// Command servemain runs lsp.Serve on stdio; the end-to-end tests build it
// when the root hashls binary is not available.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/hashls/hashls/lsp"
)

func main() {
	err := lsp.Serve(context.Background(), lsp.Stdio(), lsp.Options{
		Logf: func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) },
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
