#!/usr/bin/env bash
# Floods of MCP clients against `hashls mcp` (bench/mcpflood):
#   1. 84,000 initialize requests over Streamable HTTP (8 concurrent
#      clients): the server's peak RSS. Goal (issue 32): <= 256 MB.
#   2. 1,100 slow request bodies against a server whose open-file limit is
#      1,024: an ordinary client is still served, the slow ones are cut (408).
#   3. A search of one 800 MiB file over stdio, cancelled mid-file: the CPU
#      the server spends from 100 ms after the cancel on. Goal (issue 29):
#      the work stops within 100 ms (so that figure is ~0).
# Usage: bench/mcp-flood.sh [initialize-requests] [slow-bodies] [MiB]
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
go build -o "$work/hashls" .
go build -o "$work/mcpflood" ./bench/mcpflood
"$work/mcpflood" -bin "$work/hashls" -mode initialize -n "${1:-84000}"
"$work/mcpflood" -bin "$work/hashls" -mode slowbody -n "${2:-1100}"
"$work/mcpflood" -bin "$work/hashls" -mode cancel -n "${3:-800}"
