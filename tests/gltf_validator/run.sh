#!/bin/sh
# Runs the Khronos glTF validator on the given glTF/GLB files (see validate.js for the output).
# Installs the pinned validator from package-lock.json with `npm ci` on first use.
# Exit codes: 0 all files valid (0 errors), 1 some file has errors, 2 usage, 77 node/npm missing
# (so a CTest wrapper can report the test as skipped).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "gltf_validator: node and npm are required (Debian: apt-get install nodejs npm)" >&2
  exit 77
fi
if [ ! -f "$here/node_modules/gltf-validator/package.json" ]; then
  # Tests may start several validators at once: one installs, the others wait for it.
  (
    if command -v flock >/dev/null 2>&1; then flock 9; fi
    if [ ! -f "$here/node_modules/gltf-validator/package.json" ]; then
      cd "$here" && npm ci --no-audit --no-fund --loglevel=error >&2
    fi
  ) 9>"${TMPDIR:-/tmp}/rigkit-gltf-validator-npm.lock"
fi
exec node "$here/validate.js" "$@"
