#!/bin/sh
# Installs the Debian 12 packages rigkit needs, when they are missing.
#   .ci/deps.sh          everything: build, tests (Blender, Node.js, ...), benchmarks, fuzzing
#   .ci/deps.sh --build  only what building rigkit and running the command line need
# Needs root (as on a fresh CI machine) or sudo. Safe to run again: installs only what is absent.
set -eu
# build: compiler, CMake, pkg-config and the four required libraries (+ json-glib for glTF JSON;
# Criterion because the default build compiles the test suites)
pkgs="gcc libc6-dev cmake make pkg-config libassimp-dev libcglm-dev libglib2.0-dev libcriterion-dev libjson-glib-dev"
if [ "${1:-}" != "--build" ]; then
  # tests: third-party readers of rigkit's outputs (Assimp's tools, headless Blender, the Khronos
  # glTF validator through Node.js), GNU parallel for the sharding test, headless Chromium for
  # the review page (`retarget --html`)
  pkgs="$pkgs assimp-utils blender python3-numpy parallel chromium"
  # Node.js may already come from elsewhere (with its own npm); Debian's npm conflicts with it.
  command -v npm >/dev/null 2>&1 || pkgs="$pkgs nodejs npm"
  # benchmarks against the KDL peer and fuzzing
  pkgs="$pkgs g++ liborocos-kdl-dev libeigen3-dev clang libclang-rt-14-dev"
fi
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "rigkit: installing$missing"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
