package main

import "fmt"

// serve runs the language server; wired to package lsp once it lands.
func (c *cli) serve(args []string) int {
	fmt.Fprintln(c.stderr, "hashls serve: not wired yet")
	return exitTool
}
