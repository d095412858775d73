#!/bin/sh
# test_install.sh BUILD SOURCE WORK: cmake --install BUILD into WORK/prefix, then
# SOURCE/examples/poisson.c built against the installed package two ways (pkg-config and
# find_package(gsolve)) and run; each must solve and report its errors.
set -eu
build=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -f "$work/prefix/include/gsolve.h"
test -x "$work/prefix/bin/gsolve"
pc=$(find "$work/prefix" -name gsolve.pc)
libdir=$(dirname "$(dirname "$pc")")
export PKG_CONFIG_PATH="$(dirname "$pc")"
export LD_LIBRARY_PATH="$libdir"
echo "== pkg-config: $(pkg-config --cflags --libs gsolve)"
cc -std=c11 -Wall "$src/examples/poisson.c" $(pkg-config --cflags --libs gsolve) -lm \
    -o "$work/poisson-pc"
"$work/poisson-pc" 60
echo "== find_package(gsolve)"
cmake -S "$src/examples" -B "$work/example" -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DCMAKE_BUILD_TYPE=Release > "$work/example.log"
cmake --build "$work/example" > "$work/example-build.log"
"$work/example/poisson" 60
