#!/usr/bin/env bash
# Runs the slow suites (test/slow/*.slow.ts: browser, crash, fuzz, load, the
# generated client — which installs its own tools from the npm registry), which
# `bun test` leaves out because their names do not end in .test.ts.
set -euo pipefail
mapfile -t files < <(find test/slow -name '*.slow.ts' | sort)
if [ "${#files[@]}" -eq 0 ]; then
  echo "no slow suites"
  exit 0
fi
exec bun test --timeout 300000 "${files[@]/#/./}"
