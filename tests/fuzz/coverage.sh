#!/bin/sh
# Line coverage of the fuzz corpora: replays each target's corpus (kept by run.sh) once through a
# build instrumented for source coverage and prints llvm-cov's per-file table for the files the
# targets exercise.
#
#   CC=clang cmake -S . -B build-fuzz-cov -DRK_FUZZ=ON -DRK_BUILD_TESTS=OFF -DRK_BUILD_BENCH=OFF \
#     -DCMAKE_C_FLAGS="-fprofile-instr-generate -fcoverage-mapping"
#   cmake --build build-fuzz-cov -j2 --target fuzz_bvh fuzz_dh fuzz_keyfile fuzz_gltf fuzz_retarget \
#     fuzz_fbx
#   tests/fuzz/coverage.sh build-fuzz-cov build-fuzz [TARGET...]
#
# COV_BUILD is that build, FUZZ_BUILD the build whose fuzz/corpus/<target> run.sh filled.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 COV_BUILD FUZZ_BUILD [TARGET...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
cov=$(cd "$1" && pwd)
corpus=$(cd "$2" && pwd)/fuzz/corpus
shift 2
targets=${*:-bvh dh keyfile gltf retarget fbx}
out=$cov/fuzz-coverage
mkdir -p "$out"
for t in $targets; do
  case $t in
  bvh) files="importers/src/bvh.c importers/src/bvh_lexer.c importers/src/bvh_file.c importers/src/bvh_hierarchy.c importers/src/bvh_motion.c importers/src/bvh_decide.c importers/src/raw_asset.c importers/src/import.c" ;;
  dh) files="importers/src/dh_table.c importers/src/raw_asset.c importers/src/import.c" ;;
  keyfile) files="core/src/humanoid.c core/src/retarget.c" ;;
  gltf) files="importers/src/gltf_prepass.c importers/src/gltf_doc.c importers/src/gltf_check_buffers.c importers/src/gltf_check_structure.c importers/src/gltf_repair.c importers/src/gltf_collect.c importers/src/scene_import.c importers/src/scene_clips.c importers/src/scene_meshes.c importers/src/raw_asset.c importers/src/assimp_scene.c importers/src/import.c" ;;
  retarget) files="core/src/humanoid.c core/src/retarget.c core/src/ik.c core/src/tree_build.c" ;;
  fbx) files="importers/src/fbx_records.c importers/src/fbx_document.c importers/src/fbx_transform.c importers/src/fbx_animation.c importers/src/fbx_precheck.c importers/src/fbx_helpers.c importers/src/scene_import.c importers/src/scene_clips.c importers/src/scene_meshes.c importers/src/import.c" ;;
  esac
  rm -f "$out/$t"-*.profraw
  # -runs=0: execute the corpus once, no fuzzing; a fresh process per target.
  LLVM_PROFILE_FILE="$out/$t-%p.profraw" ASAN_OPTIONS=detect_leaks=0 \
    "$cov/bin/fuzz_$t" -runs=0 -timeout=60 "$corpus/$t" >"$out/$t.log" 2>&1 || true
  llvm-profdata-14 merge -sparse "$out/$t"-*.profraw -o "$out/$t.profdata"
  echo "== fuzz_$t: line coverage reached by its corpus ($(ls "$corpus/$t" | wc -l) inputs)"
  # shellcheck disable=SC2086
  (cd "$src" && llvm-cov-14 report "$cov/bin/fuzz_$t" -instr-profile="$out/$t.profdata" $files) |
    awk '/\.c / || /^TOTAL/ {printf "  %-16s %6s lines, %5s missed: %8s of lines, %8s of branches\n",
      $1, $8, $9, $10, $13}' | sed 's|/[^ ]*/src/||'
done
