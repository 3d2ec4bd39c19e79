#!/usr/bin/env bash
# Refreshes the runtime copy from the github.com/smacker/go-tree-sitter
# version go.mod requires: copies the runtime's sources (not the binding's
# bindings.c, nor query.c, which parsing does not use), applies
# upstream.patch (a diff of upstream's lib/src/parser.c, hence -p3),
# regenerates rename.h and writes runtime/UPSTREAM (the version and each
# copied file's sha256 before the patch). Run it whenever go.mod moves to
# another version: the two runtimes must stay the same version
# (TestCopyIsPinned checks it), since trees from this one are read and
# freed by the other. Needs go, patch, gcc and nm.
set -euo pipefail
cd "$(dirname "$0")"
mod=github.com/smacker/go-tree-sitter
ver=$(cd ../../.. && go list -m -f '{{.Version}}' "$mod")
src=$(cd ../../.. && go mod download -json "$mod@$ver" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
rm -rf runtime.new && mkdir runtime.new
{
  echo "$mod $ver"
  for f in "$src"/*.c "$src"/*.h; do
    b=$(basename "$f")
    case "$b" in bindings.*|query.c) continue ;; esac
    cp "$f" runtime.new/ && chmod u+w "runtime.new/$b"
    echo "$(sha256sum < "$f" | cut -d' ' -f1) $b"
  done
} > runtime.new/UPSTREAM
cp runtime/LICENSE runtime.new/LICENSE
(cd runtime.new && patch -s -p3 --no-backup-if-mismatch < ../upstream.patch)
rm -rf runtime && mv runtime.new runtime
./gen_rename.sh
