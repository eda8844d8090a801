#!/bin/sh
# Builds the KDL peer harness from ../shared/bench/kdl (or $RK_SHARED_BENCH) into the build tree.
# Sourced by the run_*.sh scripts; sets KDL_BENCH to the binary (empty when KDL is unavailable).
RK_SHARED_BENCH=${RK_SHARED_BENCH:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/bench}
KDL_BENCH=""
FK_FLOOR=""
if [ -f "$RK_SHARED_BENCH/kdl/kdl_bench.cpp" ] && [ -f /usr/include/kdl/chain.hpp ]; then
  mkdir -p "$BUILD/peers"
  if [ ! -x "$BUILD/peers/kdl_bench" ] || [ "$RK_SHARED_BENCH/kdl/kdl_bench.cpp" -nt "$BUILD/peers/kdl_bench" ]; then
    # Same flags as ../shared/bench/kdl/build.sh (the peer's own build script), output kept out of git.
    g++ -O2 -std=c++17 -w -I/usr/include/eigen3 "$RK_SHARED_BENCH/kdl/kdl_bench.cpp" -lorocos-kdl \
      -o "$BUILD/peers/kdl_bench"
  fi
  KDL_BENCH=$BUILD/peers/kdl_bench
  # The FK floor micro-benchmark (no library: what composing frames costs on this CPU), with its
  # build script's flags.
  if [ ! -x "$BUILD/peers/fk_floor" ] || [ "$RK_SHARED_BENCH/kdl/fk_floor.cpp" -nt "$BUILD/peers/fk_floor" ]; then
    g++ -O3 -std=c++17 -march=native -mprefer-vector-width=512 -fno-tree-loop-distribute-patterns -w \
      "$RK_SHARED_BENCH/kdl/fk_floor.cpp" -o "$BUILD/peers/fk_floor"
  fi
  FK_FLOOR=$BUILD/peers/fk_floor
else
  echo "# KDL peer not available (need $RK_SHARED_BENCH/kdl and liborocos-kdl-dev): rigkit numbers only" >&2
fi
