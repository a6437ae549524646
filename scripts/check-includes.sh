#!/usr/bin/env bash
# Fails (exit 1) when a file includes a header of a module it may not use, and
# lists each such include as "FILE:LINE: MODULE may not include HEADER" on stderr.
# Run by `make test` (CTest: include_check); `--self-test` proves on small
# generated trees that it catches violations (CTest: include_check_self_test).
#
#   scripts/check-includes.sh [--root DIR]   check the tree at DIR (default: this repository)
#   scripts/check-includes.sh --self-test
set -euo pipefail

# THE RULES: module → the modules it may include (besides itself); "*" = any.
# A module is a folder under src/ (the longest one listed that holds the file,
# so store/sqlite is not store), or one of include/redrive (the SDK's public
# headers, included as "redrive/..."), tests, bench, examples. An include
# "a/b/c.h" names the module of the longest listed folder it starts with;
# other includes (the standard library, third parties, a folder's own local
# headers) are not checked. A file under src/ in a folder not listed here
# fails the check: a new module gets its row. So does an include by a
# relative ("../x.h") or absolute path, which would slip past the table.
readonly RULES='
core:
cron:           core
store:          core
store/sqlite:   core store
store/postgres: core store
engine:         core store cron
wire:           core
crypto:
api:            core wire engine cron crypto
server:         core api
outbound_http:  core engine crypto
app:            *
redrive:        core
sdk:            core wire redrive
cli:            core wire redrive cron
bench:          core wire redrive sdk
examples:       redrive
tests:          *
'
# Unit tests beside the code (*_test.cc and their helpers *_test_util.h,
# *_for_test.h) follow the `tests` row; no other file may include them.

die() {
  echo "check-includes: $*" >&2
  exit 2
}

declare -A allowed=()
load_rules() {
  local module deps
  local -a list
  while IFS=: read -r module deps; do
    module="${module//[[:space:]]/}"
    [[ -z "$module" ]] && continue
    read -ra list <<<"$deps"
    allowed[$module]=" ${list[*]} "
  done <<<"$RULES"
}

is_test_file() {
  [[ "$1" == tests/* || "$1" == *_test.cc || "$1" == *_test_util.h || "$1" == *_for_test.h ]]
}

# The listed module that is the longest leading folder path of $1, or "".
longest_module() {
  local path="$1" best="" module
  for module in "${!allowed[@]}"; do
    if [[ "$path" == "$module"/* && ${#module} -gt ${#best} ]]; then best="$module"; fi
  done
  echo "$best"
}

# The module a file (relative to the root) belongs to, or "" if unlisted.
module_of_file() {
  local file="$1"
  case "$file" in
    tests/* | bench/* | examples/*) echo "${file%%/*}" ;;
    include/redrive/*) echo redrive ;;
    src/*) longest_module "${file#src/}" ;;
    *) echo "" ;;
  esac
}

check_tree() {
  local root="$1" bad=0 files=0 file line include module target
  cd "$root"
  local -a sources
  mapfile -t sources < <(find src include tests bench examples -path '*/node_modules' -prune \
    -o -type f \( -name '*.cc' -o -name '*.h' \) -print 2>/dev/null | sort)
  [[ ${#sources[@]} -gt 0 ]] || die "no sources under $root"

  declare -A module_cache=() target_cache=()
  for file in "${sources[@]}"; do
    module="$(module_of_file "$file")"
    if [[ -z "$module" ]]; then
      echo "$file: in no module of the rules (add its folder to scripts/check-includes.sh)" >&2
      bad=1
    fi
    module_cache[$file]="$module"
  done
  files=${#sources[@]}

  # Every #include "x" or <x>, as FILE:LINE:x.
  while IFS=: read -r file line include; do
    module="${module_cache[$file]}"
    [[ -z "$module" ]] && continue
    target=""
    if [[ "$include" == */* ]]; then
      if [[ -z "${target_cache[${include%/*}]+set}" ]]; then
        target_cache[${include%/*}]="$(longest_module "$include")"
      fi
      target="${target_cache[${include%/*}]}"
    fi
    if [[ "$include" == /* || "$include" == ../* || "$include" == */../* ]]; then
      echo "$file:$line: include by the path from src/, not $include" >&2
      bad=1
      continue
    fi
    if ! is_test_file "$file" &&
      [[ "$include" == *_test_util.h || "$include" == *_for_test.h ]]; then
      echo "$file:$line: only tests may include $include" >&2
      bad=1
      continue
    fi
    is_test_file "$file" && module=tests
    [[ -z "$target" || "$target" == "$module" ]] && continue
    [[ "${allowed[$module]}" == *" * "* || "${allowed[$module]}" == *" $target "* ]] && continue
    echo "$file:$line: $module may not include $include ($target)" >&2
    bad=1
  done < <(grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "${sources[@]}" |
    sed -E 's/^([^:]*):([0-9]*):[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^">]*)[">].*/\1:\2:\3/')

  if [[ $bad -ne 0 ]]; then
    echo "check-includes: includes against the rules (the table in scripts/check-includes.sh)" >&2
    return 1
  fi
  echo "check-includes: ${files} files follow the rules"
}

# --- self-test: each case is a tiny tree and the verdict it must get.
write_file() {  # write_file ROOT PATH [INCLUDE...]
  local root="$1" path="$2"
  shift 2
  mkdir -p "$(dirname "$root/$path")"
  : >"$root/$path"
  local include
  for include in "$@"; do echo "#include $include" >>"$root/$path"; done
}

base_tree() {
  local root="$1"
  write_file "$root" src/core/job.h '<string>'
  write_file "$root" src/store/store.h '"core/job.h"'
  write_file "$root" src/store/sqlite/sqlite_store.h '"store/store.h"' '<sqlite3.h>'
  write_file "$root" src/engine/engine.h '"store/store.h"' '"core/job.h"'
  write_file "$root" src/engine/engine_test_util.h '"store/sqlite/sqlite_store.h"'
  write_file "$root" src/engine/engine_test.cc '"engine/engine_test_util.h"'
  write_file "$root" src/api/api.cc '"engine/engine.h"'
  write_file "$root" include/redrive/client.h '"core/job.h"'
  write_file "$root" src/cli/main.cc '"redrive/client.h"' '<CLI/CLI.hpp>'
  write_file "$root" src/app/main.cc '"store/sqlite/sqlite_store.h"' '"api/api.h"'
  write_file "$root" bench/main.cc '"bench_clock.h"' '"redrive/client.h"'
  write_file "$root" tests/store/conformance_test.cc '"store/sqlite/sqlite_store.h"'
}

self_test() {
  local self tmp failed=0
  self="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
  tmp="$(mktemp -d)"
  trap "rm -rf '$tmp'" EXIT

  # expect NAME pass|fail FILE INCLUDE: the base tree plus FILE including INCLUDE.
  expect() {
    local name="$1" verdict="$2" file="${3:-}" include="${4:-}" root="$tmp/$1" out rc=0
    base_tree "$root"
    [[ -n "$file" ]] && write_file "$root" "$file" "$include"
    out="$("$self" --root "$root" 2>&1)" || rc=$?
    # A failure must name the file that was added, not some other one.
    if [[ $verdict == pass && $rc -eq 0 ]] ||
      [[ $verdict == fail && $rc -eq 1 && "$out" == *"$file"* ]]; then
      echo "  ok    $name"
    else
      echo "  WRONG $name: expected $verdict, got exit $rc:"
      echo "$out" | sed 's/^/        /'
      failed=1
    fi
  }

  echo "check-includes self-test:"
  expect clean_tree pass
  expect engine_includes_sqlite fail src/engine/job_ops.cc '"store/sqlite/sqlite_store.h"'
  expect api_includes_store fail src/api/job_handlers.cc '"store/store.h"'
  expect core_includes_engine fail src/core/status.h '<engine/engine.h>'
  expect cli_includes_engine fail src/cli/jobs.cc '"engine/engine.h"'
  expect sdk_header_includes_wire fail include/redrive/types.h '"wire/job_json.h"'
  expect production_includes_test_util fail src/engine/engine.cc '"engine/engine_test_util.h"'
  expect unlisted_module fail src/realtime/hub.cc '"core/job.h"'
  expect relative_include fail src/api/routes.cc '"../store/sqlite/sqlite_store.h"'
  expect unit_test_includes_sqlite pass src/api/api_test.cc '"store/sqlite/sqlite_store.h"'
  expect store_includes_core pass src/store/sqlite/job_sql.cc '"core/job.h"'
  if [[ $failed -ne 0 ]]; then
    echo "check-includes self-test: FAILED" >&2
    return 1
  fi
  echo "check-includes self-test: every case got its verdict"
}

load_rules
case "${1:-}" in
  --self-test) self_test ;;
  --root) check_tree "${2:?--root needs a directory}" ;;
  "") check_tree "$(dirname "${BASH_SOURCE[0]}")/.." ;;
  *) die "usage: $0 [--root DIR | --self-test]" ;;
esac
