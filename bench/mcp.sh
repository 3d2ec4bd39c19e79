#!/usr/bin/env bash
# Per-call latency (p50/p90/p99) of `read` (20 lines) and the 50-hunk edit of
# bench/edit.sh on a 10,000-line file, through a long-lived `hashls mcp` over
# stdio next to `hashls tool` (one process per call), interleaved in one run.
# Goal: MCP edit p50 <= 1/10 of the CLI's (issue 16); and (issue 31) MCP
# edit p50 <= 1.2 x its floor: bench/floor's loop (the least in-process work
# of the edit) plus a no-op tool call's round trip over the same SDK and
# transport, both measured in the same run.
# Usage: bench/mcp.sh [runs]   (default 200 calls of each kind per transport)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
go build -o "$work/hashls" .
go build -o "$work/mcpbench" ./bench/mcpbench
go build -o "$work/floor" ./bench/floor
"$work/mcpbench" -bin "$work/hashls" -floor "$work/floor" -runs "${1:-200}"
