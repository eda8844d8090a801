#!/bin/sh
# The command line end to end against `assimp info` on the same clip: `rigkit retarget` (read the
# BVH and the character, map, retarget with foot IK, write the GLB, read it back with its meshes,
# measure it) and `assimp info CLIP` run in turn, in pairs (A B, then B A: this machine's speed
# drifts, so each ratio is taken within one pair). Each run is timed as a whole process from
# outside: wall clock, peak RSS (wait4's ru_maxrss) and CPU (user + system). Prints one
# `rigkit e2e ...` line per target with the medians over pairs and the median of the per-pair
# ratios rigkit / assimp (min-max in brackets).
# Usage: tests/bench/e2e.sh [BUILD_DIR] [PAIRS] [CLIP.bvh] [TARGET...]
#   defaults: build, 15 pairs, a 2752-frame CMU-style clip made by long_bvh.py from
#   tests/data/generated/cmu_floor.bvh (1.97 MB, as long and as large as CMU's 01_01.bvh), and the
#   targets RiggedFigure.glb, generated/cmu_char.glb and generated/mh_char.glb.
#   BEFORE=OTHER_BUILD adds that build's rigkit to each round (A B C, then C B A) and prints its
#   line and the ratio this build / OTHER_BUILD.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../data
BUILD=$(cd "${1:-$here/../../build}" && pwd)
pairs=${2:-15}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $# -ge 3 ] && [ -n "$3" ]; then
  clip=$3
else
  clip=$work/cmu_floor_2752.bvh
  python3 "$here/long_bvh.py" "$data/generated/cmu_floor.bvh" 2752 >"$clip"
fi
shift $(($# < 3 ? $# : 3))
if [ $# -eq 0 ]; then
  set -- "$data/RiggedFigure.glb" "$data/generated/cmu_char.glb" "$data/generated/mh_char.glb"
fi
before=${BEFORE:+$(cd "$BEFORE" && pwd)/bin/rigkit}
command -v assimp >/dev/null || { echo "e2e.sh: needs assimp (assimp-utils)" >&2; exit 1; }
python3 - "$here" "$BUILD/bin/rigkit" "${before:-}" "$clip" "$work" "$pairs" "$@" <<'PY'
import os, statistics, sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, sys.argv[1])
from process_run import timed as run_once

cli, before, clip, work, pairs = sys.argv[2:7]
pairs = int(pairs)
targets = sys.argv[7:]

def timed(argv):
    """(wall ms, peak RSS MB, CPU ms) of one run."""
    wall, cpu, rss = run_once(argv)
    return wall * 1e3, rss, cpu * 1e3

def retarget(binary, target, out):
    return [binary, "retarget", "--no-progress", "--target", target, "--out-dir", out, clip]

med = statistics.median
size_mb = os.path.getsize(clip) / 1e6
for target in targets:
    runs = {"rigkit": retarget(cli, target, os.path.join(work, "out"))}
    if before:
        runs["before"] = retarget(before, target, os.path.join(work, "out_before"))
    runs["assimp"] = ["assimp", "info", clip]
    names = list(runs)
    for n in names:  # warm-up: page cache, output directories
        timed(runs[n])
    got = {n: [] for n in names}
    for i in range(pairs):
        for n in (names if i % 2 == 0 else names[::-1]):
            got[n].append(timed(runs[n]))

    def col(n, k):
        return [r[k] for r in got[n]]

    def ratio(a, b, k):
        r = [x / y for x, y in zip(col(a, k), col(b, k))]
        return "%.2f (%.2f-%.2f)" % (med(r), min(r), max(r))

    def line(n):
        return ("rigkit e2e run=%s target=%s clip=%s clip_mb=%.2f pairs=%d wall_ms=%.1f "
                "peak_rss_mb=%.1f cpu_ms=%.1f" % (n, os.path.basename(target), os.path.basename(clip),
                                                   size_mb, pairs, med(col(n, 0)), med(col(n, 1)),
                                                   med(col(n, 2))))
    for n in names:
        print(line(n))
    for n in [x for x in names if x != "assimp"]:
        print("rigkit e2e ratio=%s/assimp target=%s wall=%s peak_rss=%s cpu=%s"
              % (n, os.path.basename(target), ratio(n, "assimp", 0), ratio(n, "assimp", 1),
                 ratio(n, "assimp", 2)))
    if before:
        print("rigkit e2e ratio=rigkit/before target=%s wall=%s peak_rss=%s cpu=%s"
              % (os.path.basename(target), ratio("rigkit", "before", 0),
                 ratio("rigkit", "before", 1), ratio("rigkit", "before", 2)))
    sys.stdout.flush()
PY
