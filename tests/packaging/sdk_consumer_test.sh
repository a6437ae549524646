#!/usr/bin/env bash
# The C++ SDK used from another project (tests/packaging/consumer), both ways
# docs/sdk.md describes; each consumer talks to a live `redrive serve`:
#   1. find_package(Redrive) against `cmake --install BUILD --component sdk`
#      into a scratch folder (so only installed headers and libraries are
#      used: nothing of src/);
#   2. add_subdirectory(SOURCE): only the SDK is built (no server, tests,
#      bench), in C++20 without the consumer asking for it.
# Either way the consumer compiles with no include path into our source tree,
# and with a core/job.h of its own that our headers must not pick up.
#
#   sdk_consumer_test.sh SOURCE BUILD REDRIVE_BINARY CXX_COMPILER BUILD_TYPE WERROR
# (the last three are the main build's, so that ccache serves the SDK's objects).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source_dir="$1" build_dir="$2" redrive="$3" cxx="$4" build_type="$5" werror="$6"
consumer="$source_dir/tests/packaging/consumer"

# The SDK's objects of step 2 come from ccache when the main build's are
# there; the scratch folder's name must not be part of their hash.
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"

start_server "$redrive"
version=$("$redrive" --version)
version=${version#redrive }

# check_consumer NAME: runs the consumer built in $scratch/NAME.
check_consumer() {
  local binary="$scratch/$1/consumer" out
  out=$("$binary" "$server_url") || fail "$1 consumer failed: $out"
  expect_output "$1 consumer" "health: healthy $version
job: consumer pending {\"n\":7}" "$out"
  # A bad URL: the SDK's own validation error, as a value (exit 1, no crash).
  out=$("$binary" "ftp://nowhere" || true)
  [[ "$out" == "error: VALIDATION_ERROR: "*"(field server_url)" ]] ||
    fail "$1 consumer with a bad URL: $out"
}

cmake_consumer() {
  local name="$1"
  shift
  cmake -S "$consumer" -B "$scratch/$name" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_BUILD_TYPE="$build_type" "$@" >"$scratch/$name.log" 2>&1 ||
    fail "configuring the $name consumer: $(cat "$scratch/$name.log")"
  cmake --build "$scratch/$name" -j2 >>"$scratch/$name.log" 2>&1 ||
    fail "building the $name consumer: $(cat "$scratch/$name.log")"
}

# no_source_paths NAME: the consumer compiles with no include path into our
# tree (nothing of src/, and no include/ whose headers reach src/).
no_source_paths() {
  local flags="$scratch/$1/CMakeFiles/consumer.dir/flags.make"
  if grep -Eq -- "$source_dir/(src|include)( |\$)" "$flags"; then
    fail "the $1 consumer compiles with paths of the source tree: $(grep INCLUDES "$flags")"
  fi
}

# 1. find_package against an installed SDK: staged with DESTDIR, then used
# from where it landed, so the package must also be relocatable.
DESTDIR="$scratch/stage" cmake --install "$build_dir" --component sdk --prefix /opt/redrive \
  >/dev/null
prefix="$scratch/stage/opt/redrive"
[[ -f "$prefix/include/redrive/client.h" ]] || fail "DESTDIR/PREFIX not honoured"
[[ ! -e "$prefix/bin/redrive" ]] || fail "the sdk component installed the server"
cmake_consumer find_package -DCMAKE_PREFIX_PATH="$prefix"
grep -qx "Redrive_DIR:PATH=$prefix/lib/cmake/Redrive" "$scratch/find_package/CMakeCache.txt" ||
  fail "find_package found another Redrive: $(grep Redrive_DIR "$scratch/find_package/CMakeCache.txt")"
no_source_paths find_package
check_consumer find_package
echo "find_package: ok"

# 2. add_subdirectory of the source tree.
cmake_consumer add_subdirectory -DREDRIVE_SOURCE_DIR="$source_dir" -DREDRIVE_WERROR="$werror"
check_consumer add_subdirectory
no_source_paths add_subdirectory
targets=$(cmake --build "$scratch/add_subdirectory" --target help)
for unwanted in redrive_engine redrive_cli redrive_core_test redrive-bench example_producer; do
  ! grep -qw "$unwanted" <<<"$targets" || fail "add_subdirectory defined our target $unwanted"
done
echo "add_subdirectory: ok"
