#!/usr/bin/env bash
# Device-registry benchmark, run through scripts/with-test-postgres.sh (make bench-devices):
#  1. registrations per second through the API: wrk, many connections, a fresh random token
#     per request (scripts/bench/register.lua), against a release build of the relay;
#  2. the same upsert straight into the same database with pgbench (scripts/bench/register.sql),
#     with as many connections as the relay's pool has: the ceiling the API could reach;
#  3. bulk import of 1M rows as CSV and as NDJSON (POST /v3/devices/import, COPY inside).
# Prints the figures as a markdown table. Everything it starts is stopped when it ends.
# BENCH_IMPORT_ONLY=1 skips 1 and 2 (for iterating on the import). The import is cut into
# min(cores, BENCH_POOL_SIZE - 1) partitions: BENCH_POOL_SIZE=2 imports on one connection.
set -euo pipefail
: "${PUSHRELAY_TEST_DATABASE_URL:?run through scripts/with-test-postgres.sh}"
cd "$(dirname "$0")/.."
duration=${BENCH_DURATION:-15}
doc=${BENCH_DOC:-docs/benchmarks.md}
load_before=$(cut -d' ' -f1 /proc/loadavg)
connections=${BENCH_CONNECTIONS:-64}
pool=${BENCH_POOL_SIZE:-8}
rows=${BENCH_IMPORT_ROWS:-1000000}
relay=${BENCH_RELAY:-.build/release/pushrelay}
[ -x "$relay" ] || { echo "build first: swift build -c release" >&2; exit 1; }
pgbin="$(pg_config --bindir 2>/dev/null || ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"

work=$(mktemp -d)
relay_pid=""
cleanup() {
  [ -n "$relay_pid" ] && kill "$relay_pid" 2>/dev/null && wait "$relay_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

"$pgbin/psql" -q "$PUSHRELAY_TEST_DATABASE_URL" -c "CREATE DATABASE pushrelay_bench" >/dev/null
url="$PUSHRELAY_TEST_DATABASE_URL dbname=pushrelay_bench"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
admin=bench-admin-token-0123456789
PUSHRELAY_DATABASE_URL="$url" PUSHRELAY_LISTEN="127.0.0.1:$port" PUSHRELAY_ADMIN_TOKEN=$admin \
  PUSHRELAY_DATA_DIR="$work/data" PUSHRELAY_DB_POOL_SIZE=$pool PUSHRELAY_MAX_BODY_SIZE=$((512 << 20)) \
  PUSHRELAY_LOG_LEVEL=warning "$relay" serve 2>"$work/serve.log" &
relay_pid=$!
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -sf "http://127.0.0.1:$port/readyz" >/dev/null || { cat "$work/serve.log"; exit 1; }

app=$(curl -sf -X POST "http://127.0.0.1:$port/admin/v1/apps" -H "Authorization: Bearer $admin" -d '{"name":"bench"}')
export APP_KEY=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["app_key"])' <<<"$app")
export APP_SECRET=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["master_secret"])' <<<"$app")
app_id=$("$pgbin/psql" -tA "$url" -c "SELECT id FROM apps WHERE app_key = '$APP_KEY'")

source scripts/bench/cpu.sh
# PostgreSQL's CPU seconds: its live processes, and those it reaped (the postmaster's
# children's times), since pgbench's backends end with pgbench.
postmaster=$(head -n 1 "$("$pgbin/psql" -tAX "$url" -c "SHOW data_directory")/postmaster.pid")
postgres_cpu() {
  python3 -c "print('%.2f' % ($(postgres_cpu_of "$url") + $(awk '{ print $16 + $17 }' "/proc/$postmaster/stat") / $(getconf CLK_TCK)))"
}
# Statements PostgreSQL ran in the bench database since the last reset (pg_stat_statements).
statements() {
  "$pgbin/psql" -tAX "$url" -c "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'"
}
# The statements by calls, for the log: what a registration costs PostgreSQL, statement by statement.
top_statements() {
  "$pgbin/psql" -X "$url" -c "SELECT calls, round(total_exec_time::numeric / calls * 1000) AS mean_us, left(regexp_replace(query, '\\s+', ' ', 'g'), 70) AS query
    FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND query NOT LIKE '%pg_stat_statements%' ORDER BY calls DESC LIMIT 6" >&2
}
reset_statements() {
  "$pgbin/psql" -qtAX "$url" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" -c "SELECT pg_stat_statements_reset()" >/dev/null
}
# Per registration: µs of CPU of $1 seconds, statements of $1 calls, over $2 registrations.
per() { python3 -c "print('%.0f' % ($1 * 1e6 / $2))"; }

api=""
if [ "${BENCH_IMPORT_ONLY:-0}" != 1 ]; then
  echo "warming up…" >&2
  wrk -t2 -c"$connections" -d3s -s scripts/bench/register.lua "http://127.0.0.1:$port" >/dev/null
  echo "API: wrk -t2 -c$connections -d${duration}s" >&2
  reset_statements
  pg_before=$(postgres_cpu)
  relay_before=$(cpu_seconds "$relay_pid")
  wrk -t2 -c"$connections" -d"${duration}s" --latency -s scripts/bench/register.lua "http://127.0.0.1:$port" | tee "$work/wrk.txt" >&2
  api_pg=$(python3 -c "print($(postgres_cpu) - $pg_before)")
  api_relay=$(python3 -c "print($(cpu_seconds "$relay_pid") - $relay_before)")
  api_statements=$(statements)
  top_statements
  api=$(awk '/^Requests\/sec:/ { printf "%d", $2 }' "$work/wrk.txt")
  api_total=$(awk '/requests in/ { print $1 }' "$work/wrk.txt")
  api_p99=$(awk '$1 == "99%" { print $2 }' "$work/wrk.txt")
  failed=$(awk '/Non-2xx/ { print $NF }' "$work/wrk.txt")

  echo "pgbench: -c$pool -j2 -T$duration -M prepared" >&2
  reset_statements
  pg_before=$(postgres_cpu)
  "$pgbin/pgbench" -n -M prepared -c "$pool" -j 2 -T "$duration" -f scripts/bench/register.sql \
    -D app_id="$app_id" -D platform=ios -D environment=production -D alias_given=false \
    -D tags_given=false -D 'tags={}' "$url" | tee "$work/pgbench.txt" >&2
  direct_pg=$(python3 -c "print($(postgres_cpu) - $pg_before)")
  direct_statements=$(statements)
  top_statements
  direct=$(awk '/^tps/ { printf "%d", $3 }' "$work/pgbench.txt")
  direct_total=$(awk '/actually processed/ { print $NF }' "$work/pgbench.txt")
fi

echo "generating $rows rows…" >&2
python3 - "$rows" "$work" <<'PY'
import json, os, sys
rows, work = int(sys.argv[1]), sys.argv[2]
with open(os.path.join(work, "import.csv"), "w") as csv, open(os.path.join(work, "import.ndjson"), "w") as nd:
    csv.write("token,environment,alias,tags\n")
    for i in range(rows):
        csv.write("%s,production,user%d,group%d\n" % (os.urandom(32).hex(), i % 200000, i % 50))
        nd.write(json.dumps({"platform": "ios", "token": os.urandom(32).hex(), "environment": "sandbox",
                             "alias": "user%d" % (i % 200000), "tags": ["group%d" % (i % 50)]}) + "\n")
PY
import_rate() {
  local file=$1 type=$2 start end pg_before relay_before
  pg_before=$(postgres_cpu)
  relay_before=$(cpu_seconds "$relay_pid")
  start=$(date +%s.%N)
  curl -sf --max-time 600 -u "$APP_KEY:$APP_SECRET" -H "Content-Type: $type" --data-binary "@$file" \
    "http://127.0.0.1:$port/v3/devices/import" >"$work/import.json"
  end=$(date +%s.%N)
  python3 - "$start" "$end" "$work/import.json" "$pg_before" "$(postgres_cpu)" "$relay_before" "$(cpu_seconds "$relay_pid")" <<'PY'
import json, sys
start, end, reply = float(sys.argv[1]), float(sys.argv[2]), json.load(open(sys.argv[3]))
pg, relay = float(sys.argv[5]) - float(sys.argv[4]), float(sys.argv[7]) - float(sys.argv[6])
assert reply["rejected"] == 0, reply
print("%d %.1f %d %.1f %.1f" % (reply["accepted"], end - start, reply["accepted"] / (end - start), pg, relay))
PY
}
read -r csv_rows csv_seconds csv_rate csv_pg csv_relay < <(import_rate "$work/import.csv" text/csv)
read -r nd_rows nd_seconds nd_rate nd_pg nd_relay < <(import_rate "$work/import.ndjson" application/x-ndjson)
partitions=$(python3 -c "import os; print(max(1, min(os.cpu_count(), $pool - 1)))")
devices=$("$pgbin/psql" -tA "$url" -c "SELECT count(*) FROM devices")

table() {
echo "| measure | figure |"
echo "| --- | --- |"
if [ -n "$api" ]; then
  ratio=$(python3 -c "print('%.2f' % ($api / $direct))")
  cat <<TABLE
| registrations/s through the API (wrk, $connections connections, ${duration} s) | $api (p99 $api_p99, non-2xx: ${failed:-0}) |
| the same upsert with pgbench ($pool connections, ${duration} s) | $direct |
| API / pgbench | $ratio |
| per registration through the API: CPU µs of the relay, of PostgreSQL; statements | $(per "$api_relay" "$api_total"), $(per "$api_pg" "$api_total"); $(python3 -c "print('%.2f' % ($api_statements / $api_total))") |
| per registration with pgbench: CPU µs of PostgreSQL; statements | $(per "$direct_pg" "$direct_total"); $(python3 -c "print('%.2f' % ($direct_statements / $direct_total))") |
TABLE
fi
cat <<TABLE
| import, CSV ($partitions partitions) | $csv_rows rows in $csv_seconds s = $csv_rate rows/s (CPU s: PostgreSQL $csv_pg, relay $csv_relay) |
| import, NDJSON ($partitions partitions) | $nd_rows rows in $nd_seconds s = $nd_rate rows/s (CPU s: PostgreSQL $nd_pg, relay $nd_relay) |
| devices in the table afterwards | $devices |
TABLE
}
table
# A whole run (not BENCH_IMPORT_ONLY) replaces the latest-run block of the doc.
[ -n "$api" ] || exit 0
block="<!-- bench-devices: begin -->
Latest run, written by \`make bench-devices\`: $(date -u '+%Y-%m-%d %H:%M') UTC on $(nproc) cores, load average
$load_before before, the import on $partitions partitions:

$(table)
<!-- bench-devices: end -->"
python3 - "$doc" "$block" <<'PY'
import re, sys
path, block = sys.argv[1], sys.argv[2]
text = open(path).read()
pattern = re.compile(r"<!-- bench-devices: begin -->.*?<!-- bench-devices: end -->", re.S)
assert pattern.search(text), "no bench-devices block in " + path
open(path, "w").write(pattern.sub(lambda _: block, text, count=1))
PY
echo "written to $doc"
