# Sourced by the bench scripts: a scratch directory ($work), the processes they start
# (append each pid to `pids`; all are stopped and the directory removed on exit), and
# waiting for a port or a command.
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
# A signal ends the script (its EXIT trap then cleans up) instead of resuming it.
trap cleanup EXIT
trap 'exit 143' INT TERM
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
# wait_for COMMAND: until it succeeds, at most 30 s.
wait_for() { for _ in $(seq 1 300); do eval "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; echo "timed out: $1" >&2; exit 1; }
# wait_for_port PORT: until something listens there (the probe connection is a subshell's, closed at once).
wait_for_port() { wait_for "(exec 3<>/dev/tcp/127.0.0.1/$1)"; }
# start_relay DATABASE_URL SIM_PORT [NAME=VALUE…]: `$bin serve` (every role, as `make run`
# starts it) sending to the simulator on SIM_PORT (its certificate in $work/sim.pem), with
# the extra settings given; sets port, base and relay_pid once it is ready.
start_relay() {
  local database=$1 sim=$2
  shift 2
  port=$(free_port)
  base="http://127.0.0.1:$port"
  env PUSHRELAY_DATABASE_URL="$database" PUSHRELAY_LISTEN="127.0.0.1:$port" PUSHRELAY_ADMIN_TOKEN="$admin" \
    PUSHRELAY_DATA_DIR="$work/data" PUSHRELAY_LOG_LEVEL=warning \
    PUSHRELAY_APNS_PRODUCTION_URL="https://127.0.0.1:$sim" PUSHRELAY_APNS_SANDBOX_URL="https://127.0.0.1:$sim" \
    PUSHRELAY_APNS_CA_FILE="$work/sim.pem" "$@" "$bin" serve 2>"$work/serve.log" &
  relay_pid=$!
  pids+=($relay_pid)
  wait_for "curl -sf $base/readyz"
}
