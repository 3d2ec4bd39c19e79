#!/usr/bin/env bash
# The long crash test of the commit path: a child process applies
# multi-file edits, patches, writes, archive-member writes and restores
# while the driver SIGKILLs it at random moments; after every kill the next
# open recovers and the test checks that every multi-file change is wholly
# old or wholly new, every file is one a tool wrote, no temp file is left
# and PRAGMA integrity_check is ok (agent/crash_test.go).
# Usage: bench/crash.sh [kills]   (default 5000; about 0.15 s a kill)
set -euo pipefail
cd "$(dirname "$0")/.."
kills=${1:-5000}
HASHLS_CRASH_KILLS=$kills go test -count=1 -timeout 0 -run '^TestCrashRecovery$' -v ./agent/ |
  grep -E 'kills in|^(--- |ok|FAIL)'
