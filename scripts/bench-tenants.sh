#!/usr/bin/env bash
# `make bench-tenants`, run through scripts/with-test-postgres.sh: many apps on one relay
# (issue 24). One `pushrelay serve` (release build, every role) and the APNs simulator
# (checking every app's JWT); APPS apps created through the admin API, each with a token
# credential (APPS_PER_KEY apps of one team share a key) and a device with the alias "user".
# Two phases with the same targeted load, PUSHING apps pushing to their user all at once
# every INTERVAL s while broadcasts run:
#   A: one app broadcasts to BROADCASTERS × BROADCAST_DEVICES devices;
#   B: BROADCASTERS other apps broadcast to BROADCAST_DEVICES devices each, at once.
# Figures: the relay's threads (most seen) and peak RSS (VmHWM), its APNs connections
# (ESTABLISHED to the simulator, relay side, from /proc/net/tcp; most seen) during each phase
# and IDLE_TIMEOUT + 30 s after, every push delivered (the simulator's count against the
# messages' targets), targeted p50/p99 across apps in each phase; writes "## Many tenants"
# of docs/benchmarks.md.
#   APPS=2000 PUSHING=200 BROADCAST_DEVICES=20000 scripts/with-test-postgres.sh scripts/bench-tenants.sh
set -euo pipefail
: "${PUSHRELAY_TEST_DATABASE_URL:?run through scripts/with-test-postgres.sh}"
cd "$(dirname "$0")/.."
APPS=${APPS:-10000}
PUSHING=${PUSHING:-1000}
BROADCASTERS=${BROADCASTERS:-10}
BROADCAST_DEVICES=${BROADCAST_DEVICES:-100000}
APPS_PER_KEY=${APPS_PER_KEY:-10}
INTERVAL=${INTERVAL:-5}         # seconds between the targeted rounds
IDLE_TIMEOUT=${IDLE_TIMEOUT:-30} # PUSHRELAY_APNS_IDLE_TIMEOUT_SECONDS (default 300: 30 keeps the run short)
bin=.build/release/pushrelay
doc=${BENCH_DOC:-docs/benchmarks.md}
[ -x "$bin" ] || { echo "build first: swift build -c release" >&2; exit 1; }
pgbin="$(pg_config --bindir 2>/dev/null || ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
psql=("$pgbin/psql" -qtAX -v ON_ERROR_STOP=1)
admin=bench-admin-token-0123456789
keys=$(( (APPS + APPS_PER_KEY - 1) / APPS_PER_KEY ))

. scripts/bench/processes.sh
started=$(date +%s)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
elapsed() { echo "$(( $(date +%s) - started )) s"; }

"${psql[@]}" "$PUSHRELAY_TEST_DATABASE_URL" -c "CREATE DATABASE pushrelay_tenants"
url="$PUSHRELAY_TEST_DATABASE_URL dbname=pushrelay_tenants"
# On stdin: a statement naming thousands of msg_ids is longer than one argument may be.
sql() { "${psql[@]}" "$url" <<<"$1"; }

# The team keys, and the simulator checking every app's provider token against its team's
# key (recording nothing: a million tokens would cost it memory beside the relay's).
python3 scripts/bench/tenants.py keys "$work/keys" "$keys"
jwt_keys=()
for key in "$work"/keys/*.p8; do jwt_keys+=(--jwt-key "$(basename "$key" .p8)=$key"); done
sim_port=$(free_port)
control_port=$(free_port)
"$bin" apns-sim --listen "127.0.0.1:$sim_port" --control "127.0.0.1:$control_port" --write-cert "$work/sim.pem" \
  "${jwt_keys[@]}" --max-recorded 0 \
  --max-connections 20000 >"$work/sim.log" 2>&1 &
pids+=($!)
wait_for_port "$sim_port"

start_relay "$url" "$sim_port" PUSHRELAY_APNS_IDLE_TIMEOUT_SECONDS=$IDLE_TIMEOUT

# The apps, then their devices straight into the table: a user per app; the phase A
# broadcaster (app 0) and the phase B ones (apps 1…BROADCASTERS) get their audiences.
python3 scripts/bench/tenants.py create "$base" "$admin" "$work/keys" "$APPS" "$APPS_PER_KEY" >"$work/apps.txt"
echo "$APPS apps created ($(elapsed))" >&2
# The id of the app on line INDEX + 1 of apps.txt (created four at a time: ids are not in line order).
app_id_of() { sql "SELECT id FROM apps WHERE app_key = '$(sed -n "$(($1 + 1))p" "$work/apps.txt" | cut -d' ' -f1)'"; }
sql "INSERT INTO devices (app_id, token, environment, alias) SELECT id, lpad(to_hex(id), 64, 'e'), 'production', 'user' FROM apps"
big=$((BROADCASTERS * BROADCAST_DEVICES))
sql "INSERT INTO devices (app_id, token, environment) SELECT $(app_id_of 0), lpad(to_hex(i), 64, '0'), 'production' FROM generate_series(1, $big) AS i"
for b in $(seq 1 "$BROADCASTERS"); do
  sql "INSERT INTO devices (app_id, token, environment) SELECT $(app_id_of "$b"), lpad(to_hex(i), 64, '0'), 'production'
       FROM generate_series(1, $BROADCAST_DEVICES) AS i"
done
sql "VACUUM ANALYZE devices"
echo "devices inserted ($(elapsed))" >&2

auth_of() { read -r key secret < <(sed -n "$(($1 + 1))p" "$work/apps.txt"); printf 'Basic %s' "$(printf '%s:%s' "$key" "$secret" | base64 -w0)"; }
broadcast() {  # broadcast APP_INDEX → msg_id
  curl -sf -X POST "$base/v3/push" -H "Authorization: $(auth_of "$1")" -H 'Content-Type: application/json' \
    -d '{"platform":"ios","audience":"all","notification":{"alert":"news"}}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["msg_id"])'
}
threads() { awk '/^Threads:/ { print $2 }' "/proc/$relay_pid/status"; }
rss_peak() { awk '/^VmHWM:/ { printf "%.0f", $2 / 1024 }' "/proc/$relay_pid/status"; }
rss_now() { awk '/^VmRSS:/ { printf "%.0f", $2 / 1024 }' "/proc/$relay_pid/status"; }
# The relay's connections to the simulator: ESTABLISHED (01) with the simulator's port as the remote end.
connections() { awk -v remote="$(printf '0100007F:%04X' "$sim_port")" '$3 == remote && $4 == "01" { n++ } END { print n + 0 }' /proc/net/tcp; }
# sample FILE: the most threads and connections seen, every 0.2 s, until the file's "stop" appears.
sample() {
  local most_threads=0 most_connections=0 t c
  while [ ! -e "$1.stop" ]; do
    t=$(threads); c=$(connections)
    [ "$t" -gt "$most_threads" ] && most_threads=$t
    [ "$c" -gt "$most_connections" ] && most_connections=$c
    echo "$most_threads $most_connections" >"$1"
    sleep 0.2
  done
}

# phase NAME APP_INDEXES… : broadcasts from those apps with the targeted rounds beside them.
rows=()
phase() {
  local name=$1; shift
  local sampled="$work/sample-$name" msgs=() ids
  sample "$sampled" & local sampler=$!
  pids+=("$sampler")
  for index in "$@"; do msgs+=("$(broadcast "$index")"); done
  ids=$(IFS=,; echo "${msgs[*]}")
  python3 scripts/bench/tenants.py targeted "$base" "$admin" "$work/apps.txt" 0 "$PUSHING" "$INTERVAL" "$ids" >"$work/targeted-$name.txt"
  for _ in $(seq 1 6000); do
    [ "$(sql "SELECT count(*) FROM messages WHERE id IN ($ids) AND state <> 'done'")" = 0 ] &&
      [ "$(sql "SELECT count(*) FROM messages WHERE id IN ($(paste -sd, "$work/targeted-$name.txt")) AND state <> 'done'")" = 0 ] && break
    sleep 0.1
  done
  touch "$sampled.stop"; wait "$sampler"
  local targeted; targeted=$(paste -sd, "$work/targeted-$name.txt")
  local pushes; pushes=$(wc -l <"$work/targeted-$name.txt")
  # Targeted latency, accepted → APNs answer recorded (the database's clock), of the pushes
  # accepted before the last broadcast finished.
  read -r p50 p99 measured <<<"$(sql "SELECT coalesce(round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))::numeric, 1)::text, '-') || ' ' ||
           coalesce(round((percentile_cont(0.99) WITHIN GROUP (ORDER BY ms))::numeric, 1)::text, '-') || ' ' || count(*)
    FROM (SELECT extract(epoch FROM d.at - m.created_at) * 1000 AS ms
          FROM messages m JOIN delivery_spans d ON d.message_id = m.id
          WHERE m.id IN ($targeted) AND m.created_at < (SELECT max(finished_at) FROM messages WHERE id IN ($ids))) t")"
  read -r target sent failed <<<"$(sql "SELECT sum(target_count), sum(sent_count), sum(failed_count) FROM messages WHERE id IN ($ids,$targeted)" | tr '|' ' ')"
  read -r seconds <<<"$(sql "SELECT round(extract(epoch FROM max(finished_at) - min(created_at))::numeric, 1) FROM messages WHERE id IN ($ids)")"
  # Each broadcast's own time, accepted → finished: the fastest and the slowest (one starved by
  # the others would stand out).
  read -r each <<<"$(sql "SELECT round(min(s), 1) || '–' || round(max(s), 1)
    FROM (SELECT extract(epoch FROM finished_at - created_at)::numeric AS s FROM messages WHERE id IN ($ids)) t")"
  read -r most_threads most_connections <"$sampled"
  echo "phase $name: $# broadcasting, $pushes targeted pushes ($measured during the broadcasts): p50 $p50 ms, p99 $p99 ms;" \
       "broadcasts done in $seconds s (each $each s); sent $sent of $target, failed $failed; threads ≤ $most_threads, APNs connections ≤ $most_connections ($(elapsed))" >&2
  rows+=("| $name | $# × $(( big / $# )) | $seconds | $each | $pushes ($measured) | $p50 / **$p99** | $sent / $target ($failed failed) | $most_threads | $most_connections |")
  delivered_total=$((delivered_total + sent))
  target_total=$((target_total + target))
}

sim_stats() { curl -sf "http://127.0.0.1:$control_port/stats"; }
# Cold: every pushing app's first push at once, each opening its app's first APNs connection.
python3 scripts/bench/tenants.py targeted "$base" "$admin" "$work/apps.txt" 0 "$PUSHING" "$INTERVAL" "" >"$work/cold.txt"
for _ in $(seq 1 6000); do
  [ "$(sql "SELECT count(*) FROM messages WHERE id IN ($(paste -sd, "$work/cold.txt")) AND state <> 'done'")" = 0 ] && break
  sleep 0.1
done
read -r cold_p50 cold_p99 cold_sent <<<"$(sql "SELECT round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))::numeric, 1) || ' ' ||
    round((percentile_cont(0.99) WITHIN GROUP (ORDER BY ms))::numeric, 1) || ' ' || count(*)
  FROM (SELECT extract(epoch FROM d.at - m.created_at) * 1000 AS ms FROM messages m JOIN delivery_spans d ON d.message_id = m.id
        WHERE m.id IN ($(paste -sd, "$work/cold.txt"))) t")"
delivered_total=$cold_sent target_total=$PUSHING
echo "cold: $PUSHING apps' first pushes at once: p50 $cold_p50 ms, p99 $cold_p99 ms, $cold_sent delivered, $(connections) APNs connections ($(elapsed))" >&2
phase A 0
phase B $(seq 1 "$BROADCASTERS")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
threads_after_load=$(threads)
connections_after_load=$(connections)
rss_peak_load=$(rss_peak)
echo "after the load: $threads_after_load threads, $connections_after_load APNs connections, peak RSS $rss_peak_load MiB" >&2
sleep $((IDLE_TIMEOUT + 30))
connections_idle=$(connections)
clients_idle=$(curl -sf "$base/metrics" | awk '$1 == "pushrelay_apns_clients" { print $2 }')
rss_idle=$(rss_now)
threads_idle=$(threads)
echo "$((IDLE_TIMEOUT + 30)) s later: $connections_idle APNs connections, $clients_idle clients, RSS $rss_idle MiB, $threads_idle threads" >&2
lost=$((target_total - delivered_total))

section=$(cat <<MD
## Many tenants

\`make bench-tenants\` (= \`swift build -c release && scripts/with-test-postgres.sh scripts/bench-tenants.sh\`),
measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(uname -m)); other work shares this machine (load
average $load_before before the run, $load_after after the phases).
One \`pushrelay serve\` (release build, every role, defaults but \`PUSHRELAY_APNS_IDLE_TIMEOUT_SECONDS=$IDLE_TIMEOUT\`
to keep the run short) sends to \`pushrelay apns-sim\` (one thread, every app's ES256 token checked
against its team's key) over TLS and HTTP/2 on 127.0.0.1, PostgreSQL 15 in the same box.

- **$APPS apps**, created through the admin API, each with a token credential ($APPS_PER_KEY apps
  of a team share its key: $keys keys) and a device with the alias \`user\`.
- **$PUSHING apps push at once**: each sends a push to its user, all together (16 connections):
  first once with nothing running (cold: each app's first APNs connection opens on demand),
  then a round every $INTERVAL s while the broadcasts run (\`scripts/bench/tenants.py\`). Latency from
  accepted (\`messages.created_at\`) to the APNs answer recorded (\`delivery_spans.at\`), of the
  pushes accepted before the last broadcast finished, across all apps.
- **Broadcasts**: phase A, one app broadcasts to $big devices; phase B, $BROADCASTERS other
  apps broadcast to $BROADCAST_DEVICES each at once (the same devices in all): the issue's load by
  default (\`BROADCASTERS\`, \`BROADCAST_DEVICES\`).
- **threads**, **connections**: the most seen during the phase, sampled every 0.2 s: the relay's
  \`Threads\` (/proc/PID/status) and its TCP connections to the simulator in ESTABLISHED state
  (/proc/net/tcp).

Cold, the $PUSHING apps' first pushes at once: p50 **$cold_p50 ms**, p99 **$cold_p99 ms** ($cold_sent delivered).

| phase | broadcasting | broadcasts took s | each broadcast s (fastest–slowest) | targeted pushes (during) | targeted p50 / p99 ms | sent / target | threads | APNs connections |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
$(printf '%s\n' "${rows[@]}")

- Peak RSS (VmHWM) over the whole run: **$rss_peak_load MiB**; after the load: $threads_after_load threads,
  $connections_after_load APNs connections.
- $((IDLE_TIMEOUT + 30)) s after the load (idle timeout $IDLE_TIMEOUT s): **$connections_idle** APNs connections,
  **$clients_idle** APNs clients alive (\`pushrelay_apns_clients\`), RSS $rss_idle MiB, $threads_idle threads.
- Delivered: $delivered_total of $target_total notifications; **$lost lost**. Simulator: $(sim_stats).

Goals on 2 cores: threads ≤ 64; RSS < 150 MiB; idle connections closed within the idle
timeout; nothing lost; the targeted p99 of phase B no worse than phase A's.
MD
)
python3 - "$doc" "$section" <<'PY'
import os, re, sys
path, section = sys.argv[1], sys.argv[2].rstrip() + "\n"
text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
pattern = re.compile(r"^## Many tenants\n.*?(?=^## |\Z)", re.S | re.M)
text = pattern.sub(lambda _: section + "\n", text, count=1) if pattern.search(text) else text.rstrip() + "\n\n" + section
open(path, "w").write(text.rstrip() + "\n")
PY
echo "written to $doc ($(elapsed))"
