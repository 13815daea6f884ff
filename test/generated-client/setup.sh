#!/usr/bin/env bash
# Installs this folder's own tools (openapi-typescript 7, openapi-fetch 0.17,
# TypeScript 5) into its own node_modules, apart from the project's: the
# project uses TypeScript 7, which openapi-typescript does not accept as a peer.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ -x "$here/node_modules/.bin/openapi-typescript" ] && [ -x "$here/node_modules/.bin/tsc" ] \
  && [ -d "$here/node_modules/openapi-fetch" ]; then
  exit 0
fi
npm install --prefix "$here" --no-audit --no-fund --loglevel=error
