# Shared by the packaging tests (sourced): a scratch folder removed on exit,
# failing with a message, and a `redrive serve` on a free loopback port.

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The scratch folder, $scratch; removed, and the server stopped, on exit.
scratch=$(mktemp -d)
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT

# start_server BINARY: runs `BINARY serve` on 127.0.0.1:0 with a SQLite store
# in the scratch folder and sets server_url from the "listening on URL" line
# it prints once it accepts connections (read from a FIFO, up to 30 s).
start_server() {
  local binary="$1" line
  mkfifo "$scratch/server.out"
  "$binary" serve --listen 127.0.0.1:0 --store "sqlite:$scratch/data/redrive.db" \
    >"$scratch/server.out" 2>"$scratch/server.log" &
  server_pid=$!
  exec 3<"$scratch/server.out"
  read -r -t 30 line <&3 || fail "$binary serve did not start: $(cat "$scratch/server.log")"
  [[ "$line" == "listening on http://"* ]] || fail "unexpected first line of serve: $line"
  server_url=${line#listening on }
}

# expect_output WHAT EXPECTED ACTUAL: ACTUAL must equal EXPECTED.
expect_output() {
  [[ "$3" == "$2" ]] || fail "$1: expected
$2
got
$3"
}
