#!/bin/sh
# What `rigkit retarget --plot` costs: the same batch with and without --plot, run in turn
# (A B A B ...: this machine's speed drifts, so each ratio is taken within one pair), each run
# timed as a whole process (wall clock, and the child's user + system CPU from wait4). Prints one
# `rigkit plot_cost ...` line with the medians over pairs of A, B and A/B.
# Usage: tests/bench/plot_cost.sh [BUILD_DIR] [PAIRS] [CLIPS] [FRAMES] [JOBS]
#   defaults: build, 15 pairs, 8 clip files of 300 frames (the MakeHuman walk looped), -j 2;
#   the target is RiggedFigure.glb, with --root-motion so that the feet plant (as
#   tests/regress/outputs.sh runs it).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:-$here/../../build}" && pwd)
pairs=${2:-15}
clips=${3:-8}
frames=${4:-300}
jobs=${5:-2}
data=$here/../data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$here" "$BUILD/bin/rigkit" "$data/makehuman_walk1.bvh" "$data/RiggedFigure.glb" "$work" \
  "$pairs" "$clips" "$frames" "$jobs" <<'PY'
import os, statistics, sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, sys.argv[1])
from process_run import timed

cli, walk, target, work = sys.argv[2:6]
pairs, clips, frames, jobs = (int(x) for x in sys.argv[6:10])
# The walk's motion lines looped to `frames` frames, in `clips` files.
src = open(walk).read().splitlines()
i = next(k for k, l in enumerate(src) if l.strip().startswith("Frames:"))
motion = [f for f in src[i + 2:] if f.strip()]
text = "\n".join(src[:i] + ["Frames: %d" % frames, src[i + 1]] +
                 [motion[k % len(motion)] for k in range(frames)]) + "\n"
files = []
for c in range(clips):
    files.append(os.path.join(work, "walk_%d.bvh" % c))
    open(files[-1], "w").write(text)
base = [cli, "retarget", "-j", str(jobs), "--no-progress", "--target", target, "--root-motion"]
with_plot = base + ["--out-dir", os.path.join(work, "out_a"), "--plot", os.path.join(work, "plots")] + files
without = base + ["--out-dir", os.path.join(work, "out_b")] + files

timed(with_plot), timed(without)  # warm-up: caches, and the output directories exist
a_wall, a_cpu, b_wall, b_cpu = [], [], [], []
for _ in range(pairs):
    w, c, _ = timed(with_plot)
    a_wall.append(w)
    a_cpu.append(c)
    w, c, _ = timed(without)
    b_wall.append(w)
    b_cpu.append(c)
med = statistics.median
rw = [a / b for a, b in zip(a_wall, b_wall)]
rc = [a / b for a, b in zip(a_cpu, b_cpu)]
print("rigkit plot_cost clips=%d frames=%d jobs=%d pairs=%d plot_wall_s=%.3f wall_s=%.3f "
      "wall_ratio=%.3f wall_ratio_min=%.3f wall_ratio_max=%.3f plot_cpu_s=%.3f cpu_s=%.3f "
      "cpu_ratio=%.3f cpu_ratio_min=%.3f cpu_ratio_max=%.3f"
      % (clips, frames, jobs, pairs, med(a_wall), med(b_wall), med(rw), min(rw), max(rw),
         med(a_cpu), med(b_cpu), med(rc), min(rc), max(rc)))
PY
