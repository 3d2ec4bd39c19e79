#!/usr/bin/env bash
# The long runs of the confinement, lock and recovery tests, with their
# figures: the swap race for 60 s (a loop swaps root/a with a symlink to a
# directory outside the root while create, write, move, delete and read
# run, through the commit path and again through the tools, which also
# search, find, list, read a directory, archive members and SQLite rows;
# the search walker alone, and SQLite alone, named through its directory
# and by path with the check alone, 60 s each way: 0 made, changed, moved,
# read or listed outside), 4 writers for 60 s with
# nothing killed (0 recovery rows), a writer killed at its rename and then a
# later commit (20 runs: the later commit survives), two stores on one root
# and a bind-mounted root (30 rounds each: 0 lost edits; the bind mount and
# the second-user tests need root), and another user's state directory and
# hub socket (refused, nothing sent).
# Usage: bench/races.sh [seconds]   (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
HASHLS_SWAP_SECONDS=$secs HASHLS_WRITERS_SECONDS=$secs go test -count=1 -timeout 0 -v \
  -run '^(TestSwapRace|TestConcurrentWritersNoRecovery|TestKillAtRenameThenLaterCommit|TestTwoStoresOneRoot|TestBindMountedRoot|TestOtherUsersStateDir)$' ./workspace/ |
  grep -E 'swaps|recovery rows|lost updates|^(--- |ok|FAIL)|SKIP'
go test -count=1 -v -run '^(TestOtherUsersHubRefused|TestHubRefusesOtherUsers)$' ./hub/ | grep -E '^(--- |ok|FAIL)|SKIP'
HASHLS_SWAP_SECONDS=$secs go test -count=1 -timeout 0 -v -run '^TestToolsSwapRace$' ./agent/ | grep -E 'swaps|^(--- |ok|FAIL)|SKIP'
HASHLS_SWAP_SECONDS=$secs go test -count=1 -timeout 0 -v -run '^TestWalkSwapRace$' ./workspace/search/ | grep -E 'swaps|^(--- |ok|FAIL)|SKIP'
HASHLS_SWAP_SECONDS=$secs go test -count=1 -timeout 0 -v -run '^TestFileSwapRace$' ./workspace/sqlitedb/ | grep -E 'swaps|^( *--- |ok|FAIL)|SKIP'
