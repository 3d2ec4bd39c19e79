#!/usr/bin/env bash
# A CLI session through hashls.exe under wine (issue 17): read -> edit ->
# stale refusal -> trash -> restore on a CRLF file, plus Windows path forms
# (a '\' path, the absolute drive path, a reserved device name and an
# alternate data stream, both refused). Usage: cli-session.sh HASHLS_EXE
# (WINEPREFIX set up by .ci/run). Exits non-zero on the first mismatch.
set -euo pipefail
exe=$1
export LANG=C.UTF-8 WINEDEBUG=-all
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root/dir" "$work/state"
printf 'a\r\nb\r\nc\r\n' > "$work/root/a.txt"
printf 'x\r\n' > "$work/root/dir/b.txt"
cd "$work/root"
export HASHLS_STATE_DIR=$(winepath -w "$work/state")
fail() { echo "cli-session: $*" >&2; exit 1; }
tool() { wine "$exe" tool "$@" | tr -d '\r'; }

out=$(tool read '{"path":"a.txt"}')
tag=$(printf '%s\n' "$out" | sed -n '1s/^¶a.txt#//p')
[ -n "$tag" ] && printf '%s\n' "$out" | grep -qx '2:b' || fail "read: $out"

out=$(tool edit "{\"input\":\"¶a.txt#$tag\\nreplace 2..2:\\n+B\"}") || fail "edit: $out"
printf '%s\n' "$out" | grep -qx '2:B' || fail "edit output: $out"
[ "$(od -An -c a.txt | tr -s ' ')" = "$(printf 'a\r\nB\r\nc\r\n' | od -An -c | tr -s ' ')" ] || fail "edit: CRLF not kept: $(od -c a.txt)"

if out=$(tool edit "{\"input\":\"¶a.txt#$tag\\nreplace 2..2:\\n+X\"}" 2>&1); then
  fail "stale edit accepted: $out"
fi
printf '%s\n' "$out" | grep -q 'changed between read and edit' || fail "stale refusal: $out"
grep -q B a.txt || fail "stale edit changed the file"

out=$(tool trash '{}')
id=$(printf '%s\n' "$out" | grep -o '#[0-9][0-9]*' | head -1 | tr -d '#')
[ -n "$id" ] || fail "trash: $out"
tool restore "{\"id\":$id}" >/dev/null || fail "restore"
cmp -s a.txt <(printf 'a\r\nb\r\nc\r\n') || fail "restore: $(od -c a.txt)"

out=$(tool read '{"path":"DIR\\\\B.TXT"}')
printf '%s\n' "$out" | grep -q '^¶dir/b.txt#' || fail "read DIR\\B.TXT: $out"
abs=$(winepath -w "$work/root/dir/b.txt" | sed 's/\\/\\\\/g')
out=$(tool read "{\"path\":\"$abs\"}")
printf '%s\n' "$out" | grep -q '^¶dir/b.txt#' || fail "read $abs: $out"
for bad in NUL 'a.txt:stream' 'dir\\\\com1.txt' '..\\\\x' 'C:a.txt'; do
  if out=$(tool read "{\"path\":\"$bad\"}" 2>&1); then fail "read $bad accepted: $out"; fi
done
echo "cli-session: ok (read, edit, stale refusal, trash, restore, Windows paths)"
