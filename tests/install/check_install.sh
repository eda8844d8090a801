#!/bin/sh
# Installs the build tree into a scratch prefix and builds a consumer against it two ways:
# CMake's find_package(rigkit) (shared and static targets) and pkg-config. Also checks the SONAME.
# Usage: check_install.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
set -eu
build=$1; src=$2; scratch=$3
rm -rf "$scratch"; mkdir -p "$scratch"
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(ls -d "$prefix"/lib* | head -n 1)
soname=$(objdump -p "$libdir/librigkit.so" | awk '/SONAME/ {print $2}')
echo "SONAME: $soname"
case "$soname" in librigkit.so.[0-9]*) ;; *) echo "bad SONAME '$soname'"; exit 1;; esac
test -x "$prefix/bin/rigkit"
"$prefix/bin/rigkit" --version
# 1. CMake package
cmake -S "$src/tests/install/consumer" -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/cmake" >/dev/null
LD_LIBRARY_PATH=$libdir "$scratch/cmake/consumer_shared"
"$scratch/cmake/consumer_static"
bvh=$src/tests/data/makehuman_walk1.bvh
LD_LIBRARY_PATH=$libdir "$scratch/cmake/consumer_io" "$bvh" "$scratch/walk_shared.glb" | grep -q "^91 joints"
"$scratch/cmake/consumer_io_static" "$bvh" "$scratch/walk_static.glb" | grep -q "^91 joints"
# 2. pkg-config
PKG_CONFIG_PATH=$libdir/pkgconfig
export PKG_CONFIG_PATH
cc -std=c11 -Wall -Werror "$src/tests/install/consumer/consumer.c" -o "$scratch/consumer_pc" \
  $(pkg-config --cflags --libs rigkit) -Wl,-rpath,"$libdir"
"$scratch/consumer_pc"
cc -std=c11 -Wall -Werror "$src/tests/install/consumer/consumer_io.c" -o "$scratch/consumer_io_pc" \
  $(pkg-config --cflags --libs rigkit-io) -Wl,-rpath,"$libdir"
"$scratch/consumer_io_pc" "$bvh" "$scratch/walk_pc.glb" | grep -q "^91 joints"
cmp "$scratch/walk_shared.glb" "$scratch/walk_pc.glb"
echo "install check passed"
