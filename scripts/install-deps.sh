#!/usr/bin/env bash
# Installs the Debian 12 packages Redrive needs to build (and, with --test, to
# run every test: the browser tests' chromium and Node.js, and clang with
# libFuzzer for the fuzz targets, too), skipping those already present.
# Idempotent; needs root (or sudo) only when something is missing.
set -euo pipefail

packages=(
  g++ cmake make ccache pkg-config
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev
  libsqlite3-dev libpq-dev libssl-dev libcli11-dev libspdlog-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  postgresql-15 curl
)
# Schedules' cron times in IANA zones: the date library and the tz database it reads.
packages+=(libhowardhinnant-date-dev tzdata)
# `make package` (CPack): dpkg-shlibdeps and file work out the Debian package's Depends.
packages+=(dpkg-dev file)
if [[ "${1:-}" == "--test" ]]; then
  packages+=(chromium clang-format)
  # The fuzz targets (fuzz/, `make fuzz`): clang++ with libFuzzer and the
  # sanitizer runtimes.
  packages+=(clang libfuzzer-14-dev libclang-rt-14-dev)
  # The console's browser tests run on Node.js (>= 18) with npm. A Node.js from
  # elsewhere (e.g. one that bundles npm) is kept; only a missing one is added.
  command -v node >/dev/null 2>&1 || packages+=(nodejs)
  command -v npm >/dev/null 2>&1 || packages+=(npm)
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "installing: ${missing[*]}" >&2
sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
