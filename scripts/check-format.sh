#!/usr/bin/env bash
# Fails (exit 1) when a C++ source or header of the project differs from what
# clang-format makes of it under the repository's .clang-format; lists those
# files. Run by `make test` (CTest: format_check). To fix: scripts/check-format.sh --fix
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

fix=0
[[ "${1:-}" == "--fix" ]] && fix=1

if ! command -v clang-format >/dev/null 2>&1; then
  echo "check-format: clang-format not found (scripts/install-deps.sh --test installs it)" >&2
  exit 1
fi

# The project's own C++ (not build trees, not node_modules).
mapfile -t files < <(find src include tests bench examples fuzz \
  -path '*/node_modules' -prune -o -type f \( -name '*.cc' -o -name '*.h' \) -print | sort)

if [[ $fix -eq 1 ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi

# One clang-format for all files; each violation is reported as "FILE:LINE:COL: error: ...".
mapfile -t bad < <(clang-format --dry-run --Werror "${files[@]}" 2>&1 |
  sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
if [[ ${#bad[@]} -gt 0 ]]; then
  echo "check-format: ${#bad[@]} of ${#files[@]} files are not clang-formatted:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "fix with: scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
