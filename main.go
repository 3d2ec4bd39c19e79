// Command hashls is a language server and command-line tool that gives
// editors and coding agents one precise, safe editing engine.
//
//	hashls [--root DIR] [--json] tool NAME 'JSON'   run one agent tool
//	hashls tool --list                            list the tools
//	hashls tool NAME --schema                     print a tool's JSON schema
//	hashls serve [--stdio]                        run the language server on stdio
//	hashls version | help
//
// main only parses flags and wires packages together; the tools live in
// package agent and the server in package lsp.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
