// Command hashls is a language server and command-line tool that gives
// editors and coding agents one precise, safe editing engine.
//
//	hashls [--root DIR] [--json] tool NAME 'JSON'   run one agent tool
//	hashls tool --list                            list the tools
//	hashls tool NAME --schema                     print a tool's JSON schema
//	hashls serve [--stdio]                        run the language server on stdio
//	hashls mcp [--http ADDR [--allow-remote]]     run the MCP server on stdio or Streamable HTTP
//	hashls version | help
//
// main only parses flags and wires packages together; the tools live in
// package agent, the language server in package lsp and the MCP server in
// package mcp.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
