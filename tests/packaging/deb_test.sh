#!/usr/bin/env bash
# The Debian packages of `make package`: builds them with CPack from BUILD,
# unpacks both into a scratch root (dpkg-deb -x, no root needed), and checks
# what a user would get: the control fields, a stripped `redrive` that
# answers --version and serves /health, its man page, and the SDK's files.
#
#   deb_test.sh BUILD VERSION
set -euo pipefail
source "$(dirname "$0")/lib.sh"
build_dir="$1" version="$2"

cpack --config "$build_dir/CPackConfig.cmake" -B "$scratch/out" >"$scratch/cpack.log" 2>&1 ||
  fail "cpack: $(cat "$scratch/cpack.log")"
arch=$(dpkg --print-architecture)
server_deb="$scratch/out/redrive_${version}_${arch}.deb"
sdk_deb="$scratch/out/libredrive-dev_${version}_${arch}.deb"
[[ -f "$server_deb" && -f "$sdk_deb" ]] || fail "expected two packages, got: $(ls "$scratch/out")"

expect_output "server package" "redrive $version" "$(dpkg-deb -f "$server_deb" Package Version |
  sed 's/^[A-Za-z]*: //' | paste -sd' ')"
depends=$(dpkg-deb -f "$server_deb" Depends)
for lib in libc6 libpq5 libsqlite3-0 libssl3; do
  grep -q "\b$lib\b" <<<"$depends" || fail "Depends lacks $lib: $depends"
done

root="$scratch/root"
dpkg-deb -x "$server_deb" "$root"
dpkg-deb -x "$sdk_deb" "$root"
binary="$root/usr/bin/redrive"
expect_output "redrive --version" "redrive $version" "$("$binary" --version)"
for f in "$binary" "$root"/usr/lib/libredrive_*.a; do
  if readelf -S "$f" | grep -q '\.debug_info'; then fail "${f#"$root"/} is not stripped"; fi
done
manpage=$(gzip -dc "$root/usr/share/man/man1/redrive.1.gz") || fail "no redrive(1) man page"
grep -q '^\.TH REDRIVE 1' <<<"$manpage" || fail "redrive.1.gz is not a man page"
grep -q '^\.SS "redrive serve"' <<<"$manpage" || fail "the man page lacks serve"
for f in usr/share/doc/redrive/README.md usr/include/redrive/client.h \
  usr/include/redrive/core/job.h usr/lib/libredrive_sdk.a usr/lib/cmake/Redrive/RedriveConfig.cmake; do
  [[ -f "$root/$f" ]] || fail "missing $f"
done
if dpkg-deb -c "$server_deb" | grep -q 'usr/include'; then fail "headers in the server package"; fi

start_server "$binary"
health=$(curl -fsS --max-time 10 "$server_url/health") || fail "GET /health failed"
[[ "$health" == *'"status":"healthy"'* && "$health" == *"\"version\":\"$version\""* ]] ||
  fail "unexpected /health: $health"
echo "packages: ok ($(du -h "$server_deb" | cut -f1) server, $(du -h "$sdk_deb" | cut -f1) sdk)"
