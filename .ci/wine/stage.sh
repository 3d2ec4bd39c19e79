#!/usr/bin/env bash
# The Windows stage of CI (issue 17), also run alone: windows/amd64 under
# Debian's wine 8.0 (64-bit only, a fresh prefix), with
# .ci/wine/bcryptprimitives.c as its bcryptprimitives.dll (Go >= 1.24 needs
# ProcessPrng, which that wine lacks; Go loads it from system32 only). It runs
# the tests of the engine packages and of the hub (its named pipe, a call
# forwarded to it, a hub killed mid-call and the caller's retry), the commit
# path's crash test at 10 kills, and the CLI session of cli-session.sh.
# Test binaries are built with -tags wine, which links internal/wine
# (os.RemoveAll under wine 8.0; it needs -checklinkname=0); -test.short as
# on Linux.
#
#   .ci/wine/stage.sh [HASHLS_EXE]    # builds a static hashls.exe when not given
#
# Needs mingw-w64 (gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64) and installs
# wine when it is missing. Exits non-zero on the first failure, with its
# output.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/usr/local/go/bin:$HOME/go/bin"
win=(env GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc CXX=x86_64-w64-mingw32-g++)
quiet() { grep -v -e 'warning: null character' -e 'anon_sym_' -e '^ *|' -e '^ *[0-9]* |' -e '^# github.com/smacker' -e '^cc1plus: warning' || true; }

stage_start=$SECONDS
winbin=$(mktemp -d)
# The prefix (about 700 MB) goes where there is more room: the temporary
# directory (a small tmpfs on some machines) or beside the checkout.
prefixes=$(mktemp -d "$PWD/.ci/wine/.prefix-XXXXXX")
free_kb() { df -Pk "$1" | awk 'NR == 2 {print $4}'; }
if [ "$(free_kb "$prefixes")" -gt "$(free_kb "$winbin")" ]; then prefix_dir=$prefixes; else prefix_dir=$winbin; fi
export WINEPREFIX="$prefix_dir/prefix" WINEARCH=win64 WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" DISPLAY=
# wineserver -k stops this prefix's server only (the one this stage started).
trap 'wineserver -k 2>/dev/null || true; rm -rf "$winbin" "$prefixes"' EXIT

exe=${1:-}
if [ -z "$exe" ]; then
  echo "== go build (windows/amd64, static)"
  exe=$winbin/hashls.exe
  "${win[@]}" go build -ldflags '-s -w -extldflags=-static' -o "$exe" . 2>&1 | quiet
fi

echo "== windows/amd64 under wine: setup"
if ! command -v wine >/dev/null || ! command -v winepath >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wine wine64 >/dev/null
fi
wine --version 2>/dev/null
# A fresh prefix takes about 700 MB. wine exits 53 when it cannot load
# kernel32.dll (STATUS_DLL_NOT_FOUND, 0xC0000135, truncated to a byte): a
# prefix left half-made, most often by a full disk. So the boot is checked,
# its output and the free space are printed when it fails, and it is tried
# once more on a new prefix in the other place after this prefix's server
# is stopped.
boot_wine() {
  local attempt rc
  for attempt in 1 2; do
    rc=0
    wine wineboot --init >"$winbin/boot.txt" 2>&1 || rc=$?
    wineserver -w 2>/dev/null || true
    if [ "$rc" = 0 ] && [ -f "$WINEPREFIX/drive_c/windows/system32/kernel32.dll" ]; then
      return 0
    fi
    echo "   wineboot failed (attempt $attempt, exit $rc; 53 means kernel32.dll could not be loaded):"
    tail -20 "$winbin/boot.txt" | sed 's/^/     /'
    df -h "$winbin" "$prefixes" | sed 's/^/     /'
    wineserver -k 2>/dev/null || true
    rm -rf "$WINEPREFIX"
    # The second attempt uses the other place.
    if [ "$prefix_dir" = "$winbin" ]; then prefix_dir=$prefixes; else prefix_dir=$winbin; fi
    export WINEPREFIX="$prefix_dir/prefix"
  done
  echo "FAIL under wine: the prefix could not be made (see above)"
  return 1
}
echo "   prefix in $prefix_dir ($(( $(free_kb "$prefix_dir") / 1024 )) MB free)"
boot_wine
x86_64-w64-mingw32-gcc -O2 -shared -s -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" .ci/wine/bcryptprimitives.c -ladvapi32
echo "   wine prefix ready in $((SECONDS - stage_start))s"

for pkg in edit treesitter treesitter/internal/reparser workspace workspace/archive workspace/conflict workspace/ignore workspace/notebook workspace/search workspace/sqlitedb agent hub; do
  echo "== windows/amd64 under wine: go test -short ./$pkg"
  t0=$SECONDS
  test_exe="$winbin/$(echo "$pkg" | tr / _).test.exe"
  "${win[@]}" go test -c -tags wine -ldflags '-checklinkname=0 -extldflags=-static' -o "$test_exe" "./$pkg" 2>&1 | quiet
  (cd "$pkg" && HASHLS_CRASH_KILLS=10 wine "$test_exe" -test.short -test.timeout 15m > "$winbin/out.txt" 2>&1) || {
    cat "$winbin/out.txt"; echo "FAIL under wine: $pkg"; exit 1; }
  tail -1 "$winbin/out.txt"; echo "   $((SECONDS - t0))s"
  rm -f "$test_exe"   # static test binaries are 20-60 MB each
done
echo "== windows/amd64 under wine: CLI session"
.ci/wine/cli-session.sh "$exe"
echo "   wine stage: $((SECONDS - stage_start))s"
