#!/usr/bin/env bash
# Checks deploy/redrive.service: always that it parses (sections, KEY=VALUE
# lines) and keeps its hardening; and, where systemd-analyze exists, that
# systemd itself accepts it without a single warning (systemd only warns
# about unknown keys and bad values, and still exits 0, so any output fails).
#
#   check_systemd_unit.sh UNIT REDRIVE_BINARY
set -euo pipefail

unit=$1
binary=$2
fail() { echo "check_systemd_unit: $unit: $*" >&2; exit 1; }

# 1. It parses: comments, blank lines, [Section] headers, KEY=VALUE.
section=""
declare -A seen
lineno=0
while IFS= read -r line || [[ -n "$line" ]]; do
  lineno=$((lineno + 1))
  [[ -z "$line" || "$line" == \#* ]] && continue
  if [[ "$line" =~ ^\[([A-Za-z]+)\]$ ]]; then
    section=${BASH_REMATCH[1]}
    continue
  fi
  [[ "$line" =~ ^([A-Za-z]+)=(.*)$ ]] || fail "line $lineno is not KEY=VALUE: $line"
  [[ -n "$section" ]] || fail "line $lineno is outside a section"
  key="$section.${BASH_REMATCH[1]}"
  seen[$key]="${seen[$key]:-}${seen[$key]:+ | }${BASH_REMATCH[2]}"
done < "$unit"

# 2. The hardening it promises (docs/deploy.md) is there.
expect() {
  local key=$1 value=$2
  [[ "${seen[$key]:-}" == "$value" ]] || fail "$key is '${seen[$key]:-}', expected '$value'"
}
expect Service.Type exec
expect Service.DynamicUser yes
expect Service.StateDirectory redrive
expect Service.ProtectSystem strict
expect Service.ProtectHome yes
expect Service.PrivateTmp yes
expect Service.PrivateDevices yes
expect Service.NoNewPrivileges yes
expect Service.CapabilityBoundingSet ""
expect Service.RestrictAddressFamilies "AF_INET AF_INET6 AF_UNIX"
expect Service.SystemCallFilter "@system-service | ~@privileged @resources"
expect Service.MemoryDenyWriteExecute yes
expect Service.KillSignal SIGTERM
expect Install.WantedBy multi-user.target
[[ "${seen[Service.ExecStart]:-}" == "/usr/local/bin/redrive serve --config /etc/redrive/redrive.toml" ]] ||
  fail "ExecStart is '${seen[Service.ExecStart]:-}'"

# 3. systemd's own verdict, on a copy whose ExecStart names the built binary
# (verify checks that the executable exists).
if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "check_systemd_unit: systemd-analyze not found: checked the parse only"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed "s|/usr/local/bin/redrive|$binary|" "$unit" > "$tmp/redrive.service"
if ! out=$(systemd-analyze verify "$tmp/redrive.service" 2>&1) || [[ -n "$out" ]]; then
  fail "systemd-analyze verify: ${out:-failed}"
fi
echo "check_systemd_unit: parses, hardened, and systemd-analyze verify is silent"
