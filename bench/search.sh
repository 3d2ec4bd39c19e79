#!/usr/bin/env bash
# bench/search.sh — whole-process wall time of `hashls tool search/find`
# against ripgrep and fd on a corpus (default: $(go env GOROOT)/src), hot
# cache, median of 2*$RUNS runs in alternating blocks (hyperfine), plus a
# match-count check.
#
#   bench/search.sh                 # build /tmp/hashls and run everything
#   CORPUS=~/src/linux RUNS=20 bench/search.sh
#
# Needs: go, rg, fd (fdfind on Debian), hyperfine, jq.
# Counts: hashls reports exact totals in details.totalMatches (matching
# lines; output is paged). They are compared with the per-file counts of
# `rg -c`; every file where the two disagree must be a binary file (holds a
# NUL byte): hashls skips those whole, rg counts matches before the NUL.
# Flags: hashls searches hidden files and applies .gitignore even outside a
# git repository, so rg gets --hidden --no-require-git; fd gets -H.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${HASHLS:-/tmp/hashls}
CORPUS=${CORPUS:-$(go env GOROOT)/src}
RUNS=${RUNS:-10}
FD=$(command -v fdfind || command -v fd)
# Built as scripts/release builds it (static on Linux: no dynamic loader
# resolving libstdc++ at every start), as bench/edit.sh does.
(cd "$here" && go build -tags netgo,osusergo -ldflags '-s -w -extldflags=-static' -o "$BIN" . 2> >(grep -v -e 'warning: null character' -e 'anon_sym_' -e '^ *|' -e '^ *[0-9]* |' -e '^# github.com/smacker' >&2))
export HASHLS_STATE_DIR=${HASHLS_STATE_DIR:-$(mktemp -d)}
cd "$CORPUS"
echo "corpus: $CORPUS ($("$FD" -H -t f . | wc -l) files), $(nproc) cores, runs: $RUNS"

json_str() { jq -Rn --arg s "$1" '$s'; }

# name | rg args | hashls search args
cases=(
  "func main|func main\\(|false"
  "ctx funcs|func \\w+\\(ctx context\\.Context|false"
  "deadline (i)|deadline exceeded|true"
)

# pair NAME OTHER CMD_HASHLS CMD_OTHER: the two commands run in alternating
# blocks (hyperfine, 1 warmup + 2 runs each, $RUNS blocks) so that a busy
# machine slows both alike; prints median wall time and mean CPU time
# (user+system).
pair() {
  rm -f "$tmp"/p*.json
  for ((k = 0; k < RUNS; k++)); do
    hyperfine -N -w 1 -r 2 --export-json "$tmp/p$k.json" "$3" "$4" >/dev/null 2>&1
  done
  jq -rs --arg name "$1" --arg other "$2" '
    def median: sort | if length % 2 == 1 then .[length/2|floor] else (.[length/2-1] + .[length/2]) / 2 end;
    ([.[].results[0].times[]] | median * 1000) as $a
    | ([.[].results[1].times[]] | median * 1000) as $b
    | ([.[].results[0] | .user + .system] | add / length * 1000) as $ca
    | ([.[].results[1] | .user + .system] | add / length * 1000) as $cb
    | "\($name | .+"              " | .[0:14]) wall: hashls \($a|floor) ms, \($other) \($b|floor) ms, ratio \(($a/$b*100|round)/100)   cpu: hashls \($ca|floor) ms, \($other) \($cb|floor) ms, ratio \(($ca/$cb*100|round)/100)"' "$tmp"/p*.json
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
summary=()
for c in "${cases[@]}"; do
  IFS='|' read -r name pat ic <<<"$c"
  rgflags=(--hidden --no-require-git)
  [[ $ic == true ]] && rgflags+=(-i)
  args="{\"pattern\":$(json_str "$pat"),\"paths\":\".\",\"i\":$ic}"

  # --- counts
  ours=$("$BIN" --json tool search "$args" | jq '.details.totalMatches')
  rg "${rgflags[@]}" -c -- "$pat" . | sed 's|^\./||' | sort >"$tmp/rg.txt" || true
  rgtotal=$(awk -F: '{s+=$NF} END {print s+0}' "$tmp/rg.txt")
  # Per-file counts from hashls: page through details.fileMatches.
  : >"$tmp/ours.txt"
  skip=0
  while :; do
    page=$("$BIN" --json tool search "${args%\}},\"skip\":$skip}")
    echo "$page" | jq -r '.details.fileMatches | to_entries[] | "\(.key):\(.value)"' >>"$tmp/ours.txt"
    next=$(echo "$page" | jq '.details.nextSkip // 0')
    [[ $next -gt 0 ]] || break
    skip=$next
  done
  sort -o "$tmp/ours.txt" "$tmp/ours.txt"
  diffs=$(comm -3 "$tmp/ours.txt" "$tmp/rg.txt" | tr -d '\t' | cut -d: -f1 | sort -u)
  nonbinary=0
  for f in $diffs; do
    if ! grep -qaP '\x00' -- "$f"; then
      echo "  MISMATCH on text file $f: hashls $(grep "^$f:" "$tmp/ours.txt" || echo none), rg $(grep "^$f:" "$tmp/rg.txt" || echo none)"
      nonbinary=$((nonbinary + 1))
    fi
  done
  ndiff=$(echo -n "$diffs" | grep -c . || true)
  echo "[$name] hashls $ours matching lines, rg $rgtotal; $ndiff files differ, all binary: $([[ $nonbinary == 0 ]] && echo yes || echo NO)"

  # --- time
  summary+=("$(pair "$name" rg "$BIN tool search '$args'" "rg ${rgflags[*]} -n -- '$pat' .")")
done

# --- find
ours=$("$BIN" --json tool find '{"paths":["**/*.go"]}' | jq '.details.totalMatches')
theirs=$("$FD" -H -g '*.go' | wc -l)
echo "[find **/*.go] hashls $ours paths, fd $theirs"
summary+=("$(pair "find **/*.go" fd "$BIN tool find '{\"paths\":[\"**/*.go\"]}'" "$FD -H -g '*.go'")")

echo
echo "median wall time and mean CPU time, $((2 * RUNS)) runs each in alternating blocks, hot cache:"
printf '  %s\n' "${summary[@]}"
