#!/bin/sh
# Retargeting quality on every shared clip, measured on the written outputs (rigkit retarget's
# report), printed as the Markdown table of tests/bench/README.md "Retargeting quality".
# Usage: tests/retarget/quality.sh [BUILD_DIR]   (default build; needs python3)
set -eu
build=${1:-build}
src=$(cd "$(dirname "$0")/../.." && pwd)
cli="$build/bin/rigkit"
data="$src/tests/data"
maps="$src/samples/maps"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
run() { # NAME TARGET CLIP [OPTIONS...]
  name=$1 target=$2 clip=$3
  shift 3
  n=$((n + 1))
  "$cli" retarget --target "$target" --out-dir "$tmp/out$n" --report "$tmp/r$n.json" "$@" "$clip" \
    >/dev/null 2>&1 || true
  python3 - "$tmp/r$n.json" "$name" "$*" "$src/" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["clips"][0]
name, opts = sys.argv[2], sys.argv[3].replace(sys.argv[4], "") or "-"
if c["status"] != "ok":
    print(f"| {name} | `{opts}` | error: {c['error']} |" + " |" * 9)
    sys.exit(0)
f = lambda v, d=3: "-" if v is None else f"{v:.{d}f}"
joints = sum(len(v) for v in c["contacts"].values())
print(f"| {name} | `{opts}` | {c['frames']} | {c['contact_frames']} ({joints} intervals) "
      f"| {f(c['foot_skate_fk_mm']['max'], 2)} | {f(c['foot_skate_mm']['max'], 4)} "
      f"| {f(c['ik_goal_error_mm']['max'], 4)} | {f(c['loop_closure_residual_mm']['max'], 4)} "
      f"| {c['joint_limit_violations']} | {f(c['limb_direction_median_deg'], 4)} "
      f"| {f(c['planted_height_error_mm']['max'], 2)} |")
PY
}
# The walk's motion lines looped to 900 frames (37.5 s): a long clip with many steps.
python3 - "$data/makehuman_walk1.bvh" "$tmp/walk_900.bvh" <<'PY'
import sys
src = open(sys.argv[1]).read().splitlines()
i = next(k for k, l in enumerate(src) if l.strip().startswith("Frames:"))
frames = [f for f in src[i + 2:] if f.strip()]
out = src[:i] + ["Frames: 900", src[i + 1]] + [frames[k % len(frames)] for k in range(900)]
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
echo "| clip -> target | options | frames | contact frames | skate FK-only max mm | skate max mm (output) | IK goal error max mm | closure max mm | limit violations | limb direction median deg | planted height error max mm |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
run "MakeHuman walk -> RiggedFigure" "$data/RiggedFigure.glb" "$data/makehuman_walk1.bvh"
run "MakeHuman walk -> RiggedFigure" "$data/RiggedFigure.glb" "$data/makehuman_walk1.bvh" --root-motion
run "MakeHuman walk -> RiggedFigure" "$data/RiggedFigure.glb" "$data/makehuman_walk1.bvh" --root-motion --hands
run "MakeHuman walk -> RiggedFigure" "$data/RiggedFigure.glb" "$data/makehuman_walk1.bvh" --root-motion --reduce 0.001
run "MakeHuman walk -> RiggedFigure" "$data/RiggedFigure.glb" "$data/makehuman_walk1.bvh" --root-motion --no-ik
run "MakeHuman walk looped to 900 frames -> RiggedFigure" "$data/RiggedFigure.glb" "$tmp/walk_900.bvh" --root-motion
run "MakeHuman walk looped to 900 frames -> MakeHuman (BVH)" "$data/makehuman_walk1.bvh" "$tmp/walk_900.bvh" --root-motion
run "MakeHuman walk -> MakeHuman (itself, BVH)" "$data/makehuman_walk1.bvh" "$data/makehuman_walk1.bvh" --root-motion
run "MakeHuman walk -> Fox hind legs" "$data/Fox.glb" "$data/makehuman_walk1.bvh" --root-motion --target-unit cm --map "$maps/fox_hind_legs.map"
run "RiggedFigure clip0 -> MakeHuman (BVH)" "$data/makehuman_walk1.bvh" "$data/RiggedFigure.glb"
run "RiggedFigure clip0 -> RiggedFigure (itself)" "$data/RiggedFigure.glb" "$data/RiggedFigure.glb"
run "RiggedFigure clip0 -> Fox hind legs" "$data/Fox.glb" "$data/RiggedFigure.glb" --target-unit cm --map "$maps/fox_hind_legs.map"
