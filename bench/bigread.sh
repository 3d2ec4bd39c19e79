#!/usr/bin/env bash
# bench/bigread.sh — memory bounded by the page, not the file: `hashls tool
# read` of 20 lines from the middle of a 1 GiB text file, next to
# `sha256sum` of the same file (the tag covers the whole file, so reading
# and hashing it once is the floor), in interleaved runs with a hot cache;
# then searches of the same file. Prints the median wall time of each,
# their ratio, and the peak RSS (/usr/bin/time "Maximum resident set
# size") of every hashls run.
#
#   bench/bigread.sh            # build /tmp/hashls, 1 GiB, 5 runs
#   SIZE_MB=256 RUNS=9 bench/bigread.sh
#   BASE=/path/to/older/hashls bench/bigread.sh   # also time that binary's read
#
# The file is written under $BIGREAD_DIR (default /tmp, on disk here; not a
# tmpfs that would hold it in RAM) and deleted at exit.
# Needs: go, sha256sum, /usr/bin/time (GNU), jq.
# Goals (issue 16): peak RSS <= 64 MB, read time <= 1.2x sha256sum.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${HASHLS:-/tmp/hashls}
RUNS=${RUNS:-5}
SIZE_MB=${SIZE_MB:-1024}
(cd "$here" && go build -o "$BIN" .)
dir=$(mktemp -d "${BIGREAD_DIR:-/tmp}/hashls-bigread.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export HASHLS_STATE_DIR="$dir/state"
cd "$dir"

# A text file of SIZE_MB MiB: 89-byte lines with tabs and a run of spaces
# (the tag normalises blanks), the last one cut without a line break.
line=$'the quick brown fox jumps over the lazy dog\tand\tthen some   more text 0123456789 abcdef'
{ yes "$line" || true; } | head -c $((SIZE_MB << 20)) >big.txt
lines=$(wc -l <big.txt)
mid=$((lines / 2))
echo "file: $dir/big.txt, $SIZE_MB MiB, $lines lines; fs $(df --output=fstype . | tail -1); $(nproc) cores; runs: $RUNS"
cat big.txt >/dev/null # hot cache for both

args="{\"path\":\"big.txt:$mid-$((mid + 19))\"}"
want=$(sha256sum big.txt | cut -d' ' -f1)
got=$("$BIN" --json tool read "$args" | jq -r '.details.sha256')
[[ $got == "$want" ]] || { echo "sha256 differs: hashls $got, sha256sum $want"; exit 1; }
rows=$("$BIN" tool read "$args" | grep -c "^$mid:\|^$((mid + 19)):" || true)
[[ $rows == 2 ]] || { echo "the read does not show lines $mid-$((mid + 19))"; exit 1; }

# run NAME CMD...: one timed run; appends "wall_s rss_kb cpu_s" (cpu:
# user + system) to $dir/NAME.
run() {
  local name=$1
  shift
  /usr/bin/time -f '%e %M %U %S' -o "$dir/t" "$@" >/dev/null
  awk '{print $1, $2, $3 + $4}' "$dir/t" >>"$dir/$name"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

for ((k = 0; k < RUNS; k++)); do
  run read "$BIN" tool read "$args"
  run sha sha256sum big.txt
  [[ -z ${BASE:-} ]] || run base "$BASE" tool read "$args"
done
for ((k = 0; k < RUNS; k++)); do
  run search "$BIN" tool search '{"pattern":"lazy dog","paths":"big.txt"}'
  run searchnone "$BIN" tool search '{"pattern":"no such text","paths":"big.txt"}'
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
r=$(cut -d' ' -f1 "$dir/read" | median)
s=$(cut -d' ' -f1 "$dir/sha" | median)
rc=$(cut -d' ' -f3 "$dir/read" | median)
sc=$(cut -d' ' -f3 "$dir/sha" | median)
echo "read 20 lines at line $mid: median wall $r s, cpu $rc s; peak RSS max $(cut -d' ' -f2 "$dir/read" | sort -n | tail -1) KB"
echo "sha256sum:                  median wall $s s, cpu $sc s"
echo "ratio read / sha256sum: wall $(ratio "$r" "$s"), cpu $(ratio "$rc" "$sc")"
if [[ -n ${BASE:-} ]]; then
  b=$(cut -d' ' -f1 "$dir/base" | median)
  bc=$(cut -d' ' -f3 "$dir/base" | median)
  echo "BASE read: median wall $b s, cpu $bc s (ratio to sha256sum: wall $(ratio "$b" "$s"), cpu $(ratio "$bc" "$sc")); peak RSS max $(cut -d' ' -f2 "$dir/base" | sort -n | tail -1) KB"
fi
for n in search searchnone; do
  echo "search ($n): median wall $(cut -d' ' -f1 "$dir/$n" | median) s, cpu $(cut -d' ' -f3 "$dir/$n" | median) s; peak RSS max $(cut -d' ' -f2 "$dir/$n" | sort -n | tail -1) KB"
done
