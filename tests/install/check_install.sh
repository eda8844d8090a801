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
# 2. pkg-config
PKG_CONFIG_PATH=$libdir/pkgconfig
export PKG_CONFIG_PATH
cc -std=c11 -Wall -Werror "$src/tests/install/consumer/consumer.c" -o "$scratch/consumer_pc" \
  $(pkg-config --cflags --libs rigkit) -Wl,-rpath,"$libdir"
"$scratch/consumer_pc"
echo "install check passed"
