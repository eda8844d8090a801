#!/bin/sh
# FK benchmark beside the KDL peer, interleaved in one run (this machine's speed drifts), then the
# median over runs of every field and the rigkit/KDL ratios.
# Usage: tests/bench/run_fk.sh [BUILD_DIR] [RUNS]     (default build, 5)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:-$here/../../build}" && pwd)
runs=${2:-5}
. "$here/peers.sh"
out=$BUILD/bench-results/fk
rm -rf "$out"; mkdir -p "$out"
i=1
while [ "$i" -le "$runs" ]; do
  "$BUILD/bin/rk_bench_fk" --quick > "$out/rigkit_$i.txt"
  [ -n "$KDL_BENCH" ] && "$KDL_BENCH" --quick --no-calib --n-ik 1 > "$out/kdl_$i.txt"
  [ -n "$FK_FLOOR" ] && "$FK_FLOOR" > "$out/floor_$i.txt"
  i=$((i + 1))
done
python3 "$here/ratios.py" "$out"/*.txt \
  --pair "treefk_onepass:treefk_onepass_kdlprims" --pair "skelfk_locals:treefk_onepass_kdlprims" \
  --pair "treefk_5leaves:treefk_5leaves" --pair "fk7_ee:fk7_ee" --pair "fk7_all:fk7_all" \
  --pair "treefk_onepass:tree_aos_f64_simd:ns_per_joint" --pair "skelfk_locals:tree_aos_f64_simd:ns_per_joint" \
  --pair "treefk_batch:treefk_onepass_kdlprims" --pair "treefk_batch_256:treefk_onepass_kdlprims" \
  --pair "treefk_batch_frames:treefk_onepass_kdlprims" \
  --pair "treefk_batch:tree_soa8_f64_mat_simd:ns_per_joint" --pair "treefk_batch_256:tree_soa8_f64_mat_simd:ns_per_joint"
