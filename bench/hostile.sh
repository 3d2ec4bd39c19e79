#!/usr/bin/env bash
# bench/hostile.sh — every tool call on the hostile inputs of issue 32,
# with its wall time and peak RSS (/usr/bin/time "%e %M"), against the goal
# of <= 256 MB and <= 10 s a call. The inputs are built here, sparse where
# the case allows:
#
#   sqlite    a table with an 800 MB text row (sqlite3 builds it: ~15 s);
#             a write whose AFTER INSERT trigger inserts without end, and
#             one whose trigger spins; a writer killed mid-write (a hot
#             journal), then read, doctor, doctor --fix, read
#   notebook  a notebook with a 200 MB output: read, write one cell, read,
#             edit one cell, restore the first notebook from the trash
#   fullstate read and search with a full state directory (a 2 MB tmpfs,
#             root only; skipped otherwise)
#   names     a name with line breaks: search, list_directory, read, edit
#   paging    a 2 GiB file (sparse): 100,000 short lines, then one line of
#             NUL bytes: read f:100001 and the page it names
#   small     find and search in a tree 10,000 directories deep; a FIFO
#
#   bench/hostile.sh            # build /tmp/hashls, all cases
#   CASES="sqlite paging" bench/hostile.sh
#
# The files go under $HOSTILE_DIR (default /tmp, on disk) and are deleted at
# exit. Needs: go, sqlite3, python3, GNU /usr/bin/time, truncate, mkfifo.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${HASHLS:-/tmp/hashls}
CASES=${CASES:-sqlite notebook fullstate names paging small}
(cd "$here" && go build -o "$BIN" .)
dir=$(mktemp -d "${HOSTILE_DIR:-/tmp}/hashls-hostile.XXXXXX")
mounted=""
cleanup() {
  [[ -z $mounted ]] || umount -l "$mounted" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
export HASHLS_STATE_DIR="$dir/state" HASHLS_NO_HUB=1
mkdir -p "$dir/root"
cd "$dir/root"
echo "hashls $("$BIN" version | sed -n 1p); $(nproc) cores; $(free -m | awk '/^Mem/ {print $2}') MB RAM; fs $(df --output=fstype . | tail -1)"
printf '%-9s %-58s %7s %8s  %s\n' case call "wall s" "RSS MB" result
worst_rss=0 worst_wall=0 misses=0

# call CASE WANT TOOL JSON: one timed `hashls tool TOOL JSON`; WANT is ok
# (exit 0) or err (exit 1, an error the case expects); the first line of
# its output is shown.
call() {
  local case=$1 want=$2 tool=$3 args=$4 rc=0
  /usr/bin/time -f '%e %M' -o "$dir/t" "$BIN" tool "$tool" "$args" >"$dir/out" 2>&1 || rc=$?
  read -r wall kb < <(tail -1 "$dir/t") # after "Command exited with non-zero status"
  local mb=$((kb / 1024)) got=ok
  [[ $rc == 0 ]] || got=err
  local first
  first=$(grep -av -m1 '^Warning:' "$dir/out" | tr -d '\000' | cut -c1-70 || true)
  local flag=""
  if [[ $got != "$want" ]]; then flag=" UNEXPECTED($got)"; misses=$((misses + 1)); fi
  if ((mb > 256)) || awk -v w="$wall" 'BEGIN {exit !(w > 10)}'; then flag="$flag OVER"; misses=$((misses + 1)); fi
  ((mb > worst_rss)) && worst_rss=$mb
  awk -v w="$wall" -v m="$worst_wall" 'BEGIN {exit !(w > m)}' && worst_wall=$wall
  printf '%-9s %-58s %7s %8s  %s%s\n' "$case" "$tool $(cut -c1-50 <<<"$args")" "$wall" "$mb" "$first" "$flag"
}

for c in $CASES; do
  case $c in
  sqlite)
    command -v sqlite3 >/dev/null || { echo "sqlite    skipped: no sqlite3"; continue; }
    sqlite3 big.db "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO t VALUES (1, replace(hex(zeroblob(400000000)), '0', 'a')); INSERT INTO t VALUES (2, 'small');"
    call sqlite ok read '{"path":"big.db:t"}'
    call sqlite ok read '{"path":"big.db:t?limit=5"}'
    call sqlite ok read '{"path":"big.db:t:1"}'
    call sqlite ok read '{"path":"big.db:t:1?col=body&byte=400000000"}'
    call sqlite err read '{"path":"big.db?q=SELECT length(body) FROM t"}'
    call sqlite ok read '{"path":"big.db?q=SELECT octet_length(body) FROM t"}'
    sqlite3 trig.db "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); CREATE TABLE junk(x); CREATE TABLE spin(v TEXT);
      CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO junk WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c) SELECT randomblob(1000) FROM c; END;
      CREATE TRIGGER sp AFTER INSERT ON spin BEGIN INSERT INTO junk WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c) SELECT count(*) FROM c; END;"
    before=$(stat -c %s trig.db)
    call sqlite err write '{"path":"trig.db:t","content":"{v: 1}"}'
    call sqlite err write '{"path":"trig.db:spin","content":"{v: 1}"}'
    echo "          trig.db: $before -> $(stat -c %s trig.db) bytes; journal left: $(ls trig.db-journal 2>/dev/null || echo none)"
    call sqlite ok read '{"path":"trig.db"}'
    # A writer killed in the middle of its transaction leaves a hot journal.
    sqlite3 hot.db "PRAGMA journal_mode=DELETE; CREATE TABLE t(v); INSERT INTO t VALUES ('kept');" >/dev/null
    exec 3>&2 2>/dev/null # not the shell's "Killed"
    (printf 'PRAGMA cache_size=2;\nBEGIN;\nUPDATE t SET v = 1;\nINSERT INTO t SELECT randomblob(3000) FROM (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c LIMIT 2000) SELECT n FROM c);\n'; sleep 3) | sqlite3 hot.db &
    sleep 1.5
    kill -9 "$(pgrep -n -f 'sqlite3 hot.db')" || true
    wait || true
    exec 2>&3 3>&-
    echo "          hot.db-journal: $(ls hot.db-journal 2>/dev/null || echo none)"
    call sqlite err read '{"path":"hot.db:t"}'
    /usr/bin/time -f '%e %M' -o "$dir/t" "$BIN" doctor >"$dir/out" 2>&1 || true
    read -r wall kb < <(tail -1 "$dir/t")
    printf '%-9s %-58s %7s %8s  %s\n' sqlite "doctor" "$wall" $((kb / 1024)) "$(grep '^sqlite' "$dir/out" | cut -c1-70)"
    /usr/bin/time -f '%e %M' -o "$dir/t" "$BIN" doctor --fix >"$dir/out" 2>&1 || true
    read -r wall kb < <(tail -1 "$dir/t")
    printf '%-9s %-58s %7s %8s  %s\n' sqlite "doctor --fix" "$wall" $((kb / 1024)) "$(grep 'fixed: rolled back' "$dir/out" | cut -c1-70)"
    call sqlite ok read '{"path":"hot.db:t"}'
    rm -f big.db trig.db* hot.db*
    ;;
  notebook)
    {
      printf '{"cells":[{"cell_type":"code","execution_count":1,"id":"a1","metadata":{},"outputs":[{"name":"stdout","output_type":"stream","text":["'
      head -c 200000000 /dev/zero | tr '\0' 'x'
      printf '"]}],"source":["print(1)\\n","x = 2"]},{"cell_type":"markdown","id":"b2","metadata":{},"source":["# Title"]}],"metadata":{},"nbformat":4,"nbformat_minor":5}\n'
    } >big.ipynb
    call notebook ok read '{"path":"big.ipynb"}'
    call notebook ok write '{"path":"big.ipynb","content":"# %% [code] cell:0\nprint(2)\nx = 2\n# %% [markdown] cell:1\n# Title\n"}'
    call notebook ok read '{"path":"big.ipynb"}'
    hdr=$("$BIN" tool read '{"path":"big.ipynb"}' | sed -n 1p)
    call notebook ok edit "{\"input\":\"$hdr\\nreplace 2..2:\\n+print(3)\"}"
    # The first notebook back from the trash (kept in pieces).
    id=$("$BIN" tool trash '{"path":"big.ipynb"}' | sed -n 's/^#\([0-9]*\) .*/\1/p' | tail -1)
    call notebook ok restore "{\"id\":$id}"
    rm -f big.ipynb
    ;;
  fullstate)
    if [[ $(id -u) != 0 ]]; then
      echo "fullstate skipped: mounting a size-limited tmpfs needs root"
      continue
    fi
    full="$dir/fullstate"
    mkdir -p "$full"
    mount -t tmpfs -o size=2m,mode=0700 tmpfs "$full" # 0700: hashls refuses a state directory others may write
    mounted=$full
    seq 1 100000 >big.txt
    HASHLS_STATE_DIR=$full "$BIN" tool read '{"path":"big.txt:3"}' >/dev/null
    dd if=/dev/zero of="$full/fill" bs=64k 2>/dev/null || true
    echo "          state: $(df -k --output=avail "$full" | tail -1) KB free"
    echo more >>big.txt
    HASHLS_STATE_DIR=$full call fullstate ok read '{"path":"big.txt:6"}'
    HASHLS_STATE_DIR=$full call fullstate ok search '{"pattern":"^5","paths":"big.txt"}'
    HASHLS_STATE_DIR=$full call fullstate err write '{"path":"big.txt","content":"x\n"}'
    umount -l "$full"
    mounted=""
    rm -f big.txt
    ;;
  names)
    mkdir -p nl
    printf 'hello\n' >"nl/$(printf 'a\n12:fake\n\xc2\xb6evil.txt#ABCD\nb.txt')"
    printf 'a\nb\n' >'x#1234.txt'
    call names ok search '{"pattern":"hello","paths":"nl"}'
    call names ok list_directory '{"path":"nl"}'
    call names ok read "{\"path\":\"nl/\$'a\\\\n12:fake\\\\n¶evil.txt#ABCD\\\\nb.txt'\"}"
    hdr=$("$BIN" tool read '{"path":"x#1234.txt"}' | sed -n 1p)
    call names ok edit "{\"input\":\"$hdr\\nreplace 1..1:\\n+A\"}"
    rm -rf nl 'x#1234.txt'
    ;;
  paging)
    seq 1 100000 >f.txt
    truncate -s 2G f.txt
    # The tag is the whole file's: a read hashes all 2 GiB, so sha256sum
    # of the file is its floor (timed here beside it, hot cache).
    cat f.txt >/dev/null
    /usr/bin/time -f '%e' -o "$dir/t" sha256sum f.txt >/dev/null
    echo "          floor: sha256sum f.txt $(tail -1 "$dir/t") s"
    call paging ok read '{"path":"f.txt:100001"}'
    next=$(grep -ao 'Use f.txt:[0-9@]* to continue' "$dir/out" | cut -d' ' -f2)
    echo "          the page names $next"
    call paging ok read "{\"path\":\"$next\"}"
    /usr/bin/time -f '%e' -o "$dir/t" sha256sum f.txt >/dev/null
    echo "          floor: sha256sum f.txt $(tail -1 "$dir/t") s"
    rm -f f.txt
    ;;
  small)
    python3 -c 'import os
for _ in range(10000):
    os.mkdir("d"); os.chdir("d")
open("target.txt", "w").write("needle\n")' 
    call small ok find '{"paths":"**/target.txt"}'
    call small ok search '{"pattern":"needle","paths":"."}'
    rm -rf d
    mkfifo pipe
    call small ok list_directory '{"path":"."}'
    call small err read '{"path":"pipe"}'
    rm -f pipe
    ;;
  esac
done
echo "worst: ${worst_wall} s, ${worst_rss} MB; calls over the goal or not as expected: $misses"
