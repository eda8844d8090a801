#!/bin/sh
# Retargeting quality before and after: every bundled and generated clip onto RiggedFigure and the
# characters built in Blender on the clips' skeletons (and the Fox with its hind-legs map),
# retargeted by two builds and measured alike, on the written outputs read back with their
# meshes, by this build's rk_retarget_measure (tests/retarget/measure.c). Prints a Markdown table:
# per clip and target, before -> after, the identity-style pose error (where the rigs correspond),
# the planted feet's lowest mesh point (median; worst), the feet's pitch against the source's
# (95th percentile), the planted points' skate, each build's own pin error, and the verdict.
#
#   tests/retarget/quality.sh [BUILD_DIR [BEFORE_BUILD_DIR [CLIP[:UNIT]...]]]
#
# Defaults: build, and no before build (then only this build's figures, "-" before). Extra
# clips (e.g. local mocap files, UNIT as `rigkit --unit`) go onto RiggedFigure and the two
# Blender characters. Needs python3.
set -eu
build=${1:-build}
before=${2:-}
[ "$#" -ge 2 ] && shift 2 || shift "$#"
src=$(cd "$(dirname "$0")/../.." && pwd)
data="$src/tests/data"
gen="$data/generated"
maps="$src/samples/maps"
measure="$build/bin/rk_retarget_measure"
[ -x "$measure" ] || { echo "quality.sh: no $measure (build the tests)" >&2; exit 2; }
[ -n "$before" ] && [ ! -x "$before/bin/rigkit" ] && { echo "quality.sh: no $before/bin/rigkit" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0

# out BUILD TAG TARGET CLIP OPTS...: retargets with BUILD's rigkit; prints the output path.
out() {
  b=$1 tag=$2 target=$3 clip=$4
  shift 4
  d="$tmp/$tag$n"
  "$b/bin/rigkit" retarget --target "$target" --out-dir "$d" --report "$d.json" --no-progress "$@" \
    "$clip" >/dev/null 2>&1 || true
  stem=$(basename "$clip" | sed 's/\.[^.]*$//')
  ls "$d"/"$stem".* 2>/dev/null | grep -v '\.svg$' | head -n 1
}

# row NAME TARGET CLIP MEASURE_OPTS -- RETARGET_OPTS...
row() {
  name=$1 target=$2 clip=$3 mopts=$4
  shift 5
  n=$((n + 1))
  after_out=$(out "$build" a "$target" "$clip" "$@")
  before_out=
  [ -n "$before" ] && before_out=$(out "$before" b "$target" "$clip" "$@")
  # shellcheck disable=SC2086
  a=$([ -n "$after_out" ] && "$measure" --target "$target" $mopts "$clip" "$after_out" 2>/dev/null || echo '{}')
  b='{}'
  # An output of the starting point: written in metres whatever the target's unit.
  # shellcheck disable=SC2086
  [ -n "$before_out" ] && b=$("$measure" --target "$target" $(echo " $mopts" | sed 's/ --output-unit [^ ]*//') \
    "$clip" "$before_out" 2>/dev/null || echo '{}')
  python3 - "$name" "$*" "$b" "$a" "$tmp/b$n.json" "$tmp/a$n.json" "$src/" <<'PY'
import json, os, sys
name, opts, b, a, rb, ra, root = sys.argv[1:8]
b, a = json.loads(b), json.loads(a)
def rep(path):
    try:
        c = json.load(open(path))["clips"][0]
        return c if c["status"] == "ok" else None
    except (OSError, ValueError, KeyError, IndexError):
        return None
rb, ra = rep(rb), rep(ra)
def f(v, d=1):
    return "-" if v is None else f"{v:.{d}f}"
def pair(key, d=1):
    return f"{f(b.get(key), d)} → {f(a.get(key), d)}"
def goal(r):
    return None if r is None else r["ik_goal_error_mm"]["max"]
opts = opts.replace(root, "") or "-"
verdict = ra.get("verdict", "-") if ra else "error"
frames = ra["frames"] if ra else "-"
print(f"| {name} | `{opts}` | {frames} | {pair('pose_error_max_mm')} | {pair('low_median_mm')} "
      f"| {pair('low_min_mm')} | {pair('pitch_p95_deg')} | {pair('skate_max_mm', 2)} "
      f"| {f(goal(rb), 2)} → {f(goal(ra), 2)} | {verdict} |")
PY
}

echo "| clip -> target | options | frames | identity error max mm | planted mesh lowest mm (median) | planted mesh lowest mm (worst) | foot pitch off source p95 deg | skate max mm | pin error max mm (own) | verdict |"
echo "|---|---|---|---|---|---|---|---|---|---|"
rf="$data/RiggedFigure.glb" cc="$gen/cmu_char.glb" mc="$gen/mh_char.glb"
for t in "RiggedFigure:$rf" "cmu_char:$cc" "mh_char:$mc"; do
  tn=${t%%:*} tf=${t#*:}
  row "MakeHuman walk -> $tn" "$tf" "$data/makehuman_walk1.bvh" "--root-motion" -- --root-motion
done
row "MakeHuman walk -> Fox hind legs" "$data/Fox.glb" "$data/makehuman_walk1.bvh" \
  "--root-motion --target-unit cm --output-unit cm --map $maps/fox_hind_legs.map" -- \
  --root-motion --target-unit cm --map "$maps/fox_hind_legs.map"
for c in walk hop turn shuffle floor; do
  for t in "RiggedFigure:$rf" "cmu_char:$cc" "mh_char:$mc"; do
    tn=${t%%:*} tf=${t#*:}
    row "cmu_$c -> $tn" "$tf" "$gen/cmu_$c.bvh" "--unit cmu" -- --unit cmu
  done
done
for c in walk floor; do
  for t in "RiggedFigure:$rf" "mh_char:$mc"; do
    tn=${t%%:*} tf=${t#*:}
    row "mh_$c -> $tn" "$tf" "$gen/mh_$c.bvh" "" --
  done
done
row "cmu_walk -> cmu_char (no IK)" "$cc" "$gen/cmu_walk.bvh" "--unit cmu" -- --unit cmu --no-ik
row "mh_walk -> mh_char (no IK)" "$mc" "$gen/mh_walk.bvh" "" -- --no-ik
for extra in "$@"; do
  clip=${extra%%:*} unit=
  [ "$clip" != "$extra" ] && unit=${extra#*:}
  for t in "RiggedFigure:$rf" "cmu_char:$cc" "mh_char:$mc"; do
    tn=${t%%:*} tf=${t#*:}
    if [ -n "$unit" ]; then
      row "$(basename "$clip") -> $tn" "$tf" "$clip" "--unit $unit" -- --unit "$unit"
    else
      row "$(basename "$clip") -> $tn" "$tf" "$clip" "" --
    fi
  done
done
