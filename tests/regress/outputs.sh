#!/bin/sh
# Byte-for-byte comparison of rigkit's outputs between two builds: every `rigkit convert` and
# `rigkit retarget` run of the matrix below (the inputs and options the test suite runs), plus
# `info`, `tree` and `fk` printouts and `--print-map`. Use it around a change that must not change
# behaviour (a refactoring): build the old revision somewhere, then
#
#   tests/regress/outputs.sh OLD_BUILD_DIR NEW_BUILD_DIR
#
# prints one line per difference and exits 1 when any output differs (0 when all are identical).
# `tests/regress/outputs.sh --make BUILD_DIR OUT_DIR` only writes one build's outputs into OUT_DIR.
# Report files are compared without their time fields ("seconds"), and summary tables without the
# throughput line; everything else must be the same bytes.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
data="$src/tests/data"
maps="$src/samples/maps"

# make BUILD OUT: writes every output of BUILD's rigkit under OUT.
make_outputs() {
  cli=$(cd "$1" && pwd)/bin/rigkit
  out=$2
  rm -rf "$out"
  mkdir -p "$out"
  [ -x "$cli" ] || { echo "no rigkit binary at $cli" >&2; exit 2; }
  log="$out/commands.txt"
  # run NAME ARGS...: runs rigkit in OUT/NAME (its working directory), keeps stdout, stderr, exit.
  run() {
    name=$1
    shift
    d="$out/$name"
    mkdir -p "$d"
    echo "$name: rigkit $*" >>"$log"
    (cd "$d" && "$cli" "$@" >stdout.txt 2>stderr.txt; echo $? >exit.txt) || true
    # Time fields differ between any two runs: drop them. Clips run in parallel report on stderr
    # as they happen: compare its lines in sorted order.
    # (run's loop variables are named apart from the callers': sh has no local variables.)
    for rf in "$d"/stdout.txt "$d"/stderr.txt; do
      sed -e 's/ in [0-9.]* s ([0-9]* frames\/s)//' -e 's/[0-9.]* frames\/s//' -e 's/ in [0-9.]* s$//' \
        "$rf" >"$rf.tmp" && mv "$rf.tmp" "$rf"
    done
    LC_ALL=C sort "$d/stderr.txt" >"$d/stderr.tmp" && mv "$d/stderr.tmp" "$d/stderr.txt"
    for rj in $(find "$d" -name '*.json' 2>/dev/null); do
      python3 - "$rj" <<'PY'
import json, sys
p = sys.argv[1]
try:
    doc = json.load(open(p))
except Exception:
    sys.exit(0)
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k != "seconds"}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
open(p, "w").write(json.dumps(strip(doc), indent=1, sort_keys=False) + "\n")
PY
    done
    # Journals carry times and absolute paths; their presence is compared, not their bytes.
    for rj in $(find "$d" -name '*.journal' 2>/dev/null); do : >"$rj"; done
  }
  inputs=""
  for f in "$data"/*.bvh "$data"/*.glb "$data"/*.gltf "$data"/*.fbx "$data"/*.dh \
           "$data"/derived/* "$data"/crafted/*.bvh "$data"/crafted/*.gltf "$data"/crafted/*.fbx \
           "$data"/crafted/*.dh; do
    [ -f "$f" ] && inputs="$inputs $f"
  done
  i=0
  for f in $inputs; do
    i=$((i + 1))
    stem=$(basename "$f" | tr '.' '_')
    for ext in glb gltf bvh fbx; do
      run "convert/$stem.$ext" convert "$f" "out.$ext"
    done
    run "info/$stem" info --json "$f"
    run "tree/$stem" tree --json "$f"
    run "fk/$stem" fk --frame 1 --json "$f"
  done
  walk="$data/makehuman_walk1.bvh"
  fig="$data/RiggedFigure.glb"
  fox="$data/Fox.glb"
  run convert/walk_fps_reduce convert "$walk" out.glb --fps 120 --reduce 0.001
  run convert/fox_clip_bvh convert "$fox" out.bvh --clip Walk
  run convert/fox_fps_fbx convert "$fox" out.fbx --fps 24
  # The walk's motion lines looped to 300 frames: a longer clip with several steps.
  python3 - "$walk" "$out/walk_300.bvh" <<'PY'
import sys
src = open(sys.argv[1]).read().splitlines()
i = next(k for k, l in enumerate(src) if l.strip().startswith("Frames:"))
frames = [f for f in src[i + 2:] if f.strip()]
out = src[:i] + ["Frames: 300", src[i + 1]] + [frames[k % len(frames)] for k in range(300)]
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
  long="$out/walk_300.bvh"
  rt() { # NAME ARGS... (retarget into the run's own directory, with a report and plots)
    name=$1
    shift
    run "retarget/$name" retarget -j 2 --no-progress --out-dir out --report report.json --plot plots "$@"
  }
  rt fig_default --target "$fig" "$walk"
  rt fig_root --target "$fig" --root-motion "$walk"
  rt fig_noik --target "$fig" --root-motion --no-ik "$walk"
  rt fig_hands --target "$fig" --root-motion --hands "$walk"
  rt fig_reduce --target "$fig" --root-motion --reduce 0.001 "$walk"
  rt fig_fps30 --target "$fig" --root-motion --fps 30 "$walk"
  rt fig_long --target "$fig" --root-motion "$long"
  rt fig_long_noik --target "$fig" --root-motion --no-ik "$long"
  for fmt in glb gltf bvh fbx; do
    rt "fig_format_$fmt" --target "$fig" --root-motion --format "$fmt" "$walk"
  done
  rt walk_onto_itself --target "$walk" --root-motion "$walk"
  rt long_onto_walk --target "$walk" --root-motion "$long"
  rt fig_onto_walk --target "$walk" "$fig"
  rt fig_onto_itself --target "$fig" "$fig"
  rt fox_map --target "$fox" --target-unit cm --map "$maps/fox_hind_legs.map" --root-motion "$walk"
  rt fox_map_fig --target "$fox" --target-unit cm --map "$maps/fox_hind_legs.map" "$fig"
  rt fox_refused --target "$fox" "$walk"
  rt crafted_map --target "$fig" --map "$data/crafted/human_to_figure.map" \
    "$data/crafted/human_yup_cm_full_root.bvh" "$data/crafted/human_yup_m_frames_long.bvh" \
    "$data/crafted/human_zup_in_offset_root.bvh" "$data/crafted/human_bom_crlf_tabs.bvh"
  rt crafted_onto_walk --target "$walk" --map "$data/crafted/human_to_figure.map" \
    "$data/crafted/human_yup_m_frames_short.bvh"
  rt batch_mixed --target "$fig" --root-motion "$walk" "$fig" "$fox" "$data/SimpleSkin.gltf"
  rt huesitos --target "$fig" "$data/assimp_huesitos.fbx"
  run retarget/print_map retarget --target "$fig" --print-map "$walk" "$fig"
  run retarget/print_map_fox retarget --target "$fox" --map "$maps/fox_hind_legs.map" --print-map "$walk"
  for m in "$maps"/*.map; do
    run "retarget/map_$(basename "$m" .map)" retarget --target "$fig" --map "$m" --print-map "$walk"
  done
  run retarget/single_out retarget --no-progress --target "$fig" --root-motion --out one.fbx --report r.json "$walk"
  run retarget/single_bvh retarget --no-progress --target "$walk" --out one.bvh "$fig"
}

if [ "${1:-}" = "--make" ]; then
  [ $# -eq 3 ] || { echo "usage: $0 --make BUILD_DIR OUT_DIR" >&2; exit 2; }
  make_outputs "$2" "$3"
  exit 0
fi
[ $# -eq 2 ] || { echo "usage: $0 OLD_BUILD_DIR NEW_BUILD_DIR  |  $0 --make BUILD_DIR OUT_DIR" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make_outputs "$1" "$tmp/old"
make_outputs "$2" "$tmp/new"
# Paths inside outputs name the run's directory: both runs used the same layout under $tmp, so
# only old/new differ; rewrite those before comparing.
find "$tmp/new" -type f \( -name '*.txt' -o -name '*.json' -o -name '*.svg' \) -exec sed -i "s#$tmp/new#$tmp/old#g" {} +
status=0
files=0
for f in $(cd "$tmp/old" && find . -type f | sort); do
  files=$((files + 1))
  if [ ! -f "$tmp/new/$f" ]; then
    echo "only in old: $f"
    status=1
  elif ! cmp -s "$tmp/old/$f" "$tmp/new/$f"; then
    echo "differs: $f"
    status=1
  fi
done
for f in $(cd "$tmp/new" && find . -type f | sort); do
  [ -f "$tmp/old/$f" ] || { echo "only in new: $f"; status=1; }
done
runs=$(wc -l <"$tmp/old/commands.txt")
if [ $status -eq 0 ]; then
  echo "identical: $runs runs, $files files"
else
  echo "DIFFERENT (see above): $runs runs, $files files"
fi
exit $status
