#!/bin/sh
# IK benchmark beside the KDL peer, interleaved in one run (this machine's speed drifts), then the
# median over runs of every field and the rigkit/KDL ratios on the same 1000 iiwa targets.
# Usage: tests/bench/run_ik.sh [BUILD_DIR] [RUNS] [TARGETS_FILE]   (default build, 3, the shared set)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:-$here/../../build}" && pwd)
runs=${2:-3}
. "$here/peers.sh"
targets=${3:-$RK_SHARED_BENCH/ik_targets_iiwa14.txt}
[ -f "$targets" ] || targets=$here/../data/ik_targets_iiwa14.txt
out=$BUILD/bench-results/ik
rm -rf "$out"; mkdir -p "$out"
i=1
while [ "$i" -le "$runs" ]; do
  "$BUILD/bin/rk_bench_ik" "$targets" > "$out/rigkit_$i.txt"
  # kdl_bench draws the same 1000 targets (seed 20240601) the shared file was dumped from.
  [ -n "$KDL_BENCH" ] && "$KDL_BENCH" --quick --no-calib > "$out/kdl_$i.txt"
  i=$((i + 1))
done
python3 "$here/ratios.py" "$out"/*.txt \
  --pair "ik:ik_lma:median_us:seed=rand" --pair "ik:ik_lma:p99_us:seed=rand" \
  --pair "ik:ik_lma:mean_us:seed=rand" --pair "ik:ik_nrjl:median_us:seed=rand" \
  --pair "ik:ik_lma:median_us:seed=zero" --pair "ik:ik_nrjl:median_us:seed=zero" \
  --pair "ik_tracik_protocol:ik_nrjl_tracik_protocol:median_us:seed=nominal" \
  --pair "ik_tracik_protocol:ik_nrjl_tracik_protocol:mean_us:seed=nominal" \
  --pair "ik_tree:ik_lma:median_us:seed=rand"
