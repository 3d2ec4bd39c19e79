#!/bin/sh
# Real-editor end-to-end test of the hashls VS Code extension: code-server
# (VS Code 1.100.3 workbench and extension host) in headless Chromium,
# driven by playwright-core through the command palette. .ci/run runs it;
# by hand it runs only with HASHLS_VSCODE_E2E=1 (about 1.5 min of installs
# the first time):
#
#   HASHLS_VSCODE_E2E=1 integration/vscode/e2e/run.sh
#
# The extension under test is the bundled (esbuild) platform-specific .vsix
# carrying the hashls binary (vsce package --target linux-x64 or
# linux-arm64), installed with no hashls.path: the test checks the extension
# started the binary it carries.
#
# Needs: Node 20, npm, Go (unless HASHLS_BIN names a built hashls),
# Chromium (CHROMIUM, default /usr/bin/chromium; Debian: apt-get install -y
# chromium) and ripgrep (Debian: ripgrep; it stands in for the rg that
# @vscode/ripgrep's postinstall would download from GitHub). code-server's
# native modules need build-essential pkg-config libx11-dev libxkbfile-dev
# libsecret-1-dev libkrb5-dev when no prebuilt fits.
# Env: HASHLS_BIN, CHROMIUM, HASHLS_VSCODE_E2E_WORK (scratch dir, default
# e2e/.work), HASHLS_VSCODE_E2E_SCREENSHOT (default e2e/panel.png).
set -eu

if [ "${HASHLS_VSCODE_E2E:-}" != 1 ]; then
  echo "SKIP: the VS Code end-to-end test runs only with HASHLS_VSCODE_E2E=1"
  exit 0
fi

here=$(cd "$(dirname "$0")" && pwd)
ext=$(dirname "$here")
repo=$(cd "$ext/../.." && pwd)
work=${HASHLS_VSCODE_E2E_WORK:-$here/.work}
mkdir -p "$work/tmp"
export npm_config_unsafe_perm=true npm_config_yes=true

start=$(date +%s)
step() { echo "[$(( $(date +%s) - start ))s] $*"; }

if [ -z "${HASHLS_BIN:-}" ]; then
  step "building hashls"
  (cd "$repo" && go build -o "$work/hashls" .)
  HASHLS_BIN=$work/hashls
fi
export HASHLS_BIN

# The marker is written after a complete install (a failed postinstall
# leaves node_modules/.bin/code-server behind).
if [ ! -f "$here/node_modules/.hashls-e2e-installed" ]; then
  step "installing code-server and playwright-core (npm ci)"
  # @vscode/ripgrep's postinstall downloads rg unless its cache has it.
  if command -v rg >/dev/null 2>&1; then
    cache=$work/tmp/vscode-ripgrep-cache-1.15.11
    mkdir -p "$cache"
    tar czf "$cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$(dirname "$(command -v rg)")" rg
  fi
  (cd "$here" && TMPDIR=$work/tmp npm ci --no-audit --no-fund --loglevel=error)
  touch "$here/node_modules/.hashls-e2e-installed"
fi

case $(uname -m) in
  x86_64 | amd64) target=linux-x64 ;;
  aarch64 | arm64) target=linux-arm64 ;;
  *) echo "no VS Code target for $(uname -m)"; exit 1 ;;
esac
step "building and packaging the extension ($target, carrying $HASHLS_BIN)"
(
  cd "$ext"
  [ -d node_modules/esbuild ] || npm ci --no-audit --no-fund
  npm run --silent build
  rm -rf bin && mkdir bin && cp "$HASHLS_BIN" bin/hashls
  trap 'rm -rf "$ext/bin"' EXIT
  npx vsce package --no-dependencies --allow-missing-repository --skip-license --target "$target" -o "$work/hashls-$target.vsix" >"$work/vsce.log" 2>&1 ||
    { cat "$work/vsce.log"; exit 1; }
)
export HASHLS_VSIX=$work/hashls-$target.vsix HASHLS_VSCODE_E2E_WORK=$work
echo "vsix: $HASHLS_VSIX"

step "running the test"
node "$here/test.mjs"
step "done"
