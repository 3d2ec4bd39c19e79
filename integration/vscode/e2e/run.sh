#!/bin/sh
# Real-editor end-to-end test of the hashls VS Code extension: code-server
# (VS Code 1.100.3 workbench and extension host) in headless Chromium,
# driven by playwright-core through the command palette. Heavy (about 2 min
# of installs the first time), so it only runs with HASHLS_VSCODE_E2E=1.
#
#   HASHLS_VSCODE_E2E=1 integration/vscode/e2e/run.sh
#
# Needs: Node 20, npm, Go (unless HASHLS_BIN names a built hashls), and
# Chromium (CHROMIUM, default /usr/bin/chromium; Debian: apt-get install -y
# chromium). code-server's native modules need build-essential pkg-config
# libx11-dev libxkbfile-dev libsecret-1-dev libkrb5-dev when no prebuilt fits.
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

if [ ! -x "$here/node_modules/.bin/code-server" ] || [ ! -d "$here/node_modules/playwright-core" ]; then
  step "installing code-server and playwright-core (npm ci)"
  # @vscode/ripgrep's postinstall downloads rg unless its cache has it.
  if command -v rg >/dev/null 2>&1; then
    cache=$work/tmp/vscode-ripgrep-cache-1.15.11
    mkdir -p "$cache"
    tar czf "$cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$(dirname "$(command -v rg)")" rg
  fi
  (cd "$here" && TMPDIR=$work/tmp npm ci --no-audit --no-fund)
fi

step "building and packaging the extension"
(
  cd "$ext"
  [ -d node_modules/vscode-languageclient ] || npm ci --no-audit --no-fund
  npm run --silent build
  npx --yes @vscode/vsce@3.9.2 package --allow-missing-repository --skip-license -o "$work/hashls.vsix" >"$work/vsce.log" 2>&1 ||
    { cat "$work/vsce.log"; exit 1; }
)
export HASHLS_VSIX=$work/hashls.vsix HASHLS_VSCODE_E2E_WORK=$work

step "running the test"
node "$here/test.mjs"
step "done"
