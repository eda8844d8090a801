#!/bin/sh
# Runs rigkit's libFuzzer targets one after another (they share the machine's cores).
#
#   tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
#
# BUILD_DIR was configured with -DCMAKE_C_COMPILER=clang -DRK_FUZZ=ON (see README.md); SECONDS is
# the time per target; TARGETs default to all six: bvh dh keyfile gltf retarget fbx. Each target
# keeps its corpus in BUILD_DIR/fuzz/corpus/<target> (it grows from run to run) and is seeded from
# tests/data; findings go to BUILD_DIR/fuzz/artifacts/<target>-crash-..., the full log to
# BUILD_DIR/fuzz/<target>.log. Prints one summary line per target; exits 1 when any target
# found a crash, a leak, a timeout or an out-of-memory. RK_FUZZ_SEED fixes libFuzzer's random seed
# (CI sets it, so that a run can be repeated); unset, every run explores differently.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../data
[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR SECONDS [TARGET...]" >&2; exit 2; }
build=$(cd "$1" && pwd)
secs=$2
shift 2
targets=${*:-bvh dh keyfile gltf retarget fbx}
out=$build/fuzz
mkdir -p "$out/artifacts"

# Seed files of a target (globs of tests/data).
seeds() {
  case $1 in
  bvh | retarget) echo "$data"/*.bvh "$data"/crafted/*.bvh "$data"/bad/*.bvh ;;
  dh) echo "$data"/*.dh "$data"/crafted/*.dh "$data"/bad/*.dh ;;
  keyfile) echo "$data"/crafted/*.map "$data"/bad/*.map ;;
  gltf) echo "$data"/*.gltf "$data"/*.glb "$data"/crafted/*.gltf "$data"/bad/*.gltf \
      "$data"/bad/*.glb "$data"/derived/*.glb ;;
  fbx) echo "$data"/*.fbx "$data"/derived/*.fbx "$data"/bad/*.fbx ;;
  esac
}

status=0
for t in $targets; do
  bin=$build/bin/fuzz_$t
  [ -x "$bin" ] || { echo "fuzz_$t: not built in $build" >&2; exit 2; }
  rm -rf "$out/seeds/$t"
  mkdir -p "$out/corpus/$t" "$out/seeds/$t"
  for f in $(seeds "$t"); do
    if [ -f "$f" ]; then cp "$f" "$out/seeds/$t/"; fi
  done
  dict=""
  [ -f "$here/$t.dict" ] && dict="-dict=$here/$t.dict"
  [ "$t" = retarget ] && dict="-dict=$here/bvh.dict"
  # Limits: a hang is 20 s on one input; one allocation above 512 MB or 1.5 GB resident is an
  # out-of-memory finding (rigkit refuses absurd declared sizes before allocating).
  rc=0
  # shellcheck disable=SC2086
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} LSAN_OPTIONS=suppressions=$here/lsan.supp \
    "$bin" -max_total_time="$secs" -timeout=20 -malloc_limit_mb=512 -rss_limit_mb=1536 \
    -print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" $dict ${RK_FUZZ_SEED:+-seed=$RK_FUZZ_SEED} \
    "$out/corpus/$t" "$out/seeds/$t" >"$out/$t.log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log")
  cov=$(grep -E '^#[0-9]+' "$out/$t.log" | grep -o 'cov: [0-9]* ft: [0-9]*' | tail -1)
  corpus=$(ls "$out/corpus/$t" | wc -l)
  if [ $rc -eq 0 ]; then
    echo "fuzz_$t: ${secs} s, ${execs:-?} execs, ${cov:-cov ?}, corpus $corpus files: ok"
  else
    status=1
    echo "fuzz_$t: FAILED (exit $rc) after ${execs:-?} execs; see $out/$t.log:"
    grep -E 'ERROR|contract broken|SUMMARY|Test unit written' "$out/$t.log" | head -5
  fi
done
exit $status
