#!/usr/bin/env bash
# A CLI session through hashls.exe under wine (issue 17): read -> edit ->
# stale refusal -> trash -> restore on a CRLF file, plus Windows path forms
# (a '\' path, the absolute drive path, a reserved device name and an
# alternate data stream, both refused), then a call forwarded to a hub: a
# `hashls serve` (driven over LSP from a fifo) is the root's hub on its named
# pipe, with a.txt open in it with unsaved text, and `hashls tool read` shows
# that text. Usage: cli-session.sh HASHLS_EXE (WINEPREFIX set up by
# .ci/wine/stage.sh). Exits non-zero on the first mismatch.
set -euo pipefail
exe=$1
export LANG=C.UTF-8 WINEDEBUG=-all
work=$(mktemp -d)
serve_pid=
trap '[ -z "$serve_pid" ] || kill "$serve_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/root/dir" "$work/state"
printf 'a\r\nb\r\nc\r\n' > "$work/root/a.txt"
printf 'x\r\n' > "$work/root/dir/b.txt"
cd "$work/root"
export HASHLS_STATE_DIR=$(winepath -w "$work/state")
fail() { echo "cli-session: $*" >&2; exit 1; }
# Checks read "$out" from a here-string: `printf | grep -q` would fail under
# pipefail whenever grep exits at its match before printf (line-buffered)
# wrote its next line (SIGPIPE): a flake seen on a loaded machine.
tool() { wine "$exe" tool "$@" | tr -d '\r'; }

out=$(tool read '{"path":"a.txt"}')
tag=$(printf '%s\n' "$out" | sed -n '1s/^¶a.txt#//p')
[ -n "$tag" ] && grep -qx '2:b' <<<"$out" || fail "read: $out"

out=$(tool edit "{\"input\":\"¶a.txt#$tag\\nreplace 2..2:\\n+B\"}") || fail "edit: $out"
grep -qx '2:B' <<<"$out" || fail "edit output: $out"
[ "$(od -An -c a.txt | tr -s ' ')" = "$(printf 'a\r\nB\r\nc\r\n' | od -An -c | tr -s ' ')" ] || fail "edit: CRLF not kept: $(od -c a.txt)"

if out=$(tool edit "{\"input\":\"¶a.txt#$tag\\nreplace 2..2:\\n+X\"}" 2>&1); then
  fail "stale edit accepted: $out"
fi
grep -q 'changed between read and edit' <<<"$out" || fail "stale refusal: $out"
grep -q B a.txt || fail "stale edit changed the file"

out=$(tool trash '{}')
id=$(grep -m1 -o '#[0-9][0-9]*' <<<"$out" | tr -d '#')
[ -n "$id" ] || fail "trash: $out"
tool restore "{\"id\":$id}" >/dev/null || fail "restore"
cmp -s a.txt <(printf 'a\r\nb\r\nc\r\n') || fail "restore: $(od -c a.txt)"

out=$(tool read '{"path":"DIR\\\\B.TXT"}')
grep -q '^¶dir/b.txt#' <<<"$out" || fail "read DIR\\B.TXT: $out"
abs=$(winepath -w "$work/root/dir/b.txt" | sed 's/\\/\\\\/g')
out=$(tool read "{\"path\":\"$abs\"}")
grep -q '^¶dir/b.txt#' <<<"$out" || fail "read $abs: $out"
for bad in NUL 'a.txt:stream' 'dir\\\\com1.txt' '..\\\\x' 'C:a.txt'; do
  if out=$(tool read "{\"path\":\"$bad\"}" 2>&1); then fail "read $bad accepted: $out"; fi
done
# The hub: hashls serve on the root, a.txt open with text not on disk.
mkfifo "$work/lsp.in"
wine "$exe" serve < "$work/lsp.in" > "$work/lsp.out" 2> "$work/lsp.err" &
serve_pid=$!
exec 3> "$work/lsp.in"
lsp() { printf 'Content-Length: %d\r\n\r\n%s' "$(printf '%s' "$1" | wc -c)" "$1" >&3; }
rooturi="file:///$(winepath -w "$work/root" | tr '\\' /)"
lsp '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"'"$rooturi"'","capabilities":{}}}'
lsp '{"jsonrpc":"2.0","method":"initialized","params":{}}'
lsp '{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"'"$rooturi"'/a.txt","languageId":"plaintext","version":1,"text":"unsaved\r\nb\r\nc\r\n"}}}'
# The server becomes the hub once its workspace is open: until then a read
# runs directly and shows the disk.
for i in $(seq 1 120); do
  out=$(tool read '{"path":"a.txt"}')
  grep -qx '1:unsaved' <<<"$out" && break
  grep -qx '1:a' <<<"$out" || fail "read while the hub starts: $out"
  sleep 0.5
done
grep -qx '1:unsaved' <<<"$out" || fail "no forwarded read within 60s: $out (serve said: $(cat "$work/lsp.err"))"
cmp -s a.txt <(printf 'a\r\nb\r\nc\r\n') || fail "the forwarded read changed the disk: $(od -c a.txt)"
# --no-hub reads the disk.
out=$(wine "$exe" --no-hub tool read '{"path":"a.txt"}' | tr -d '\r')
grep -qx '1:a' <<<"$out" || fail "--no-hub read: $out"
lsp '{"jsonrpc":"2.0","id":2,"method":"shutdown"}'
lsp '{"jsonrpc":"2.0","method":"exit"}'
exec 3>&-
for i in $(seq 1 60); do kill -0 "$serve_pid" 2>/dev/null || break; sleep 0.5; done
if kill -0 "$serve_pid" 2>/dev/null; then fail "hashls serve did not exit after shutdown/exit"; fi
wait "$serve_pid" || fail "hashls serve exited $?: $(cat "$work/lsp.err")"
serve_pid=
echo "cli-session: ok (read, edit, stale refusal, trash, restore, Windows paths, a read forwarded to the hub)"
