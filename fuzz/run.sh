#!/usr/bin/env bash
# Runs each libFuzzer target of fuzz/ for SECONDS, one after another with one
# job each, and fails if any finds a crash, a leak, UB or a timeout. Called by
# `make fuzz` (FUZZ_SECONDS); `make test` runs it with a short budget.
#
#   fuzz/run.sh BUILD_DIR SECONDS TARGET...
#
# The committed corpus (fuzz/corpus/TARGET) is only read: new inputs go to a
# working corpus in BUILD_DIR/fuzz-corpus/TARGET, kept between runs so each
# run starts from what the previous ones found (remove it to start over).
# A finding is saved under BUILD_DIR/fuzz-artifacts/TARGET/ and its path
# printed; reproduce it with `BUILD_DIR/fuzz_TARGET FILE`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

[[ $# -ge 3 ]] || { echo "usage: fuzz/run.sh BUILD_DIR SECONDS TARGET..." >&2; exit 2; }
build_dir=$1 seconds=$2
shift 2

# Inputs longer than this rarely reach new code and make each run slower.
max_len() {
  case "$1" in
    http_request) echo 16384 ;;
    json_decoders) echo 8192 ;;
    *) echo 256 ;;
  esac
}

failed=()
summary=()
for target in "$@"; do
  binary="$build_dir/fuzz_$target"
  work="$build_dir/fuzz-corpus/$target"
  artifacts="$build_dir/fuzz-artifacts/$target/"
  log="$build_dir/fuzz-logs/$target.log"
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  args=(-max_total_time="$seconds" -max_len="$(max_len "$target")" -timeout=10
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts")
  [[ -f "fuzz/dict/$target.dict" ]] && args+=(-dict="fuzz/dict/$target.dict")
  echo "fuzz: $target for ${seconds}s (log: $log)"
  status=0
  # The working corpus first: libFuzzer writes new inputs only to the first.
  "$binary" "${args[@]}" "$work" "fuzz/corpus/$target" >"$log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  per_second=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  line="$target: ${execs:-?} executions (${per_second:-?}/s), ${coverage:-cov: ?}"
  if [[ $status -ne 0 ]]; then
    found=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    line+=" — FAILED (exit $status)${found:+, input: $found}"
    failed+=("$target")
    grep -m1 -E 'ERROR: |fuzz: |runtime error' "$log" >&2 || tail -20 "$log" >&2
  fi
  summary+=("$line")
  echo "fuzz: $line"
done

echo "fuzz: summary"
printf '  %s\n' "${summary[@]}"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: ${failed[*]} found a problem; the logs and inputs are in $build_dir/fuzz-logs and $build_dir/fuzz-artifacts" >&2
  exit 1
fi
