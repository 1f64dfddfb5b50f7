#!/bin/sh
# Runs a command with Node >= 22.18 and pnpm on PATH and the workspace installed.
# A machine without them gets them from the npm registry into .tools/, so a fresh
# clone needs nothing but npm.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOLS="$ROOT/.tools"
NODE_VERSION=24.21.0
PNPM_VERSION=10.34.9

node_ok() {
  "$1" -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=18)?0:1)' 2>/dev/null
}

if ! node_ok node; then
  if ! node_ok "$TOOLS/node_modules/.bin/node" || [ ! -x "$TOOLS/node_modules/.bin/pnpm" ]; then
    echo "munim: installing node@$NODE_VERSION and pnpm@$PNPM_VERSION into .tools/" >&2
    npm install --prefix "$TOOLS" --no-save --no-audit --no-fund --loglevel=error \
      "node@$NODE_VERSION" "pnpm@$PNPM_VERSION" >&2
  fi
  PATH="$TOOLS/node_modules/.bin:$PATH"
elif ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  if [ ! -x "$TOOLS/node_modules/.bin/pnpm" ]; then
    npm install --prefix "$TOOLS" --no-save --no-audit --no-fund --loglevel=error "pnpm@$PNPM_VERSION" >&2
  fi
  PATH="$TOOLS/node_modules/.bin:$PATH"
fi
export PATH

cd "$ROOT"
# pnpm keeps a copy of the lockfile it installed; skip the install when they match.
if ! cmp -s pnpm-lock.yaml node_modules/.pnpm/lock.yaml 2>/dev/null; then
  if [ -n "$CI" ]; then
    pnpm install --frozen-lockfile --reporter=append-only >&2
  else
    pnpm install --reporter=append-only >&2
  fi
fi

exec pnpm exec "$@"
