#!/usr/bin/env bash
# `make bench-fanout`, run through scripts/with-test-postgres.sh: broadcasts through the
# whole relay (release build, `serve` with every role) to the APNs simulator, beside h2load
# to the same simulator in the same run, then Android broadcasts of the same sizes to the FCM
# simulator beside h2load sending it the same requests; writes "## Fan-out" of docs/benchmarks.md.
#   SIZES="100000 1000000" APNS_CONNECTIONS=2 scripts/with-test-postgres.sh scripts/bench-fanout.sh
# For each size, ROUNDS broadcasts (medians reported): delivered/s (accepted → message done)
# vs h2load's rate (the mean of a run just before and one just after; their ratio), targeted
# latency (accepted → outcome recorded, from the database's own timestamps) p50/p99 idle
# and during the broadcast, and the admin report's latency for the broadcast message.
# Then the largest size again with APNs farther away: the simulator's answers delayed by each
# of LATENCIES ms (set through its control endpoint, PUT /network), LATENCY_ROUNDS broadcasts
# each (fewer than ROUNDS: at 300 ms one 1M broadcast takes minutes); delivered/s, its ratio
# to the 0 ms rate of the same run, peak RSS, targeted p99 as the latency + x. CPU µs per
# notification (/proc) of the relay, PostgreSQL and the simulator during each broadcast, and
# of h2load and the simulator during h2load's runs. Then each size as an Android broadcast
# (ANDROID=0: none) through fcm-sim, beside h2load posting the relay's messages:send body with
# an access token from fcm-sim's token endpoint: its ratio beside the iOS one, and the same CPU
# figures. Then pushes accepted/s through the API (wrk), and the relay's peak RSS (VmHWM).
set -euo pipefail
: "${PUSHRELAY_TEST_DATABASE_URL:?run through scripts/with-test-postgres.sh}"
cd "$(dirname "$0")/.."
SIZES=${SIZES-100000 1000000}  # "" for none (only the targeted figures)
APNS_CONNECTIONS=${APNS_CONNECTIONS:-2}
STREAMS=${STREAMS:-100}
TARGETED=${TARGETED:-50}      # targeted pushes measured idle, one after another
INTERVAL=${INTERVAL:-0.02}    # seconds between targeted pushes during a broadcast
BUSY_LIMIT=${BUSY_LIMIT:-2000} # at most that many of them per broadcast
ROUNDS=${ROUNDS:-3}           # broadcasts per size; the table gives medians
LATENCIES=${LATENCIES-0 50 150 300}  # simulator answer delays (ms) for the largest size
LATENCY_ROUNDS=${LATENCY_ROUNDS:-1}   # broadcasts per latency above 0 (0 ms reuses the size table's)
ANDROID=${ANDROID:-1}         # 0: no Android broadcasts (a build without FCM delivery)
bin=${PUSHRELAY_BIN:-.build/release/pushrelay}  # another build to compare with
doc=${BENCH_DOC:-docs/benchmarks.md}
[ -x "$bin" ] || { echo "build first: swift build -c release" >&2; exit 1; }
# The tree the binary was built from, as it is now (the run takes minutes: later edits are not measured).
commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift || echo ' with uncommitted changes')"
pgbin="$(pg_config --bindir 2>/dev/null || ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
psql=("$pgbin/psql" -qtAX -v ON_ERROR_STOP=1)
key_id=BENCHKEY01 team_id=BENCHTEAM1 topic=com.example.bench admin=bench-admin-token-0123456789

. scripts/bench/processes.sh
. scripts/bench/cpu.sh
load() { cut -d' ' -f1-3 /proc/loadavg; }
# children_cpu VAR: sets VAR to the CPU seconds of this shell's finished children so far
# (bash's `times`, run in this shell: a subshell's children are its own).
children_cpu() {
  times >"$work/times.txt"
  printf -v "$1" '%s' "$(tail -n 1 "$work/times.txt" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.2f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')"
}
# µs per notification: per_notification BEFORE AFTER COUNT.
per_notification() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.2f", (b - a) * 1e6 / n }'; }

"${psql[@]}" "$PUSHRELAY_TEST_DATABASE_URL" -c "CREATE DATABASE pushrelay_fanout"
url="$PUSHRELAY_TEST_DATABASE_URL dbname=pushrelay_fanout"
sql() { "${psql[@]}" "$url" -c "$1"; }

# simulator KIND NAME FLAGS…: `$bin KIND` (apns-sim, fcm-sim) on free ports, recording nothing
# (1M tokens would cost it memory the relay is measured against), its certificate in
# $work/NAME.pem and its log in $work/NAME.log; sets NAME_port, NAME_control and NAME_pid.
simulator() {
  local kind=$1 name=$2 port control
  shift 2
  port=$(free_port) control=$(free_port)
  "$bin" "$kind" --listen "127.0.0.1:$port" --control "127.0.0.1:$control" --write-cert "$work/$name.pem" \
    --max-recorded 0 "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
  printf -v "${name}_pid" '%s' $!
  printf -v "${name}_port" '%s' "$port"
  printf -v "${name}_control" '%s' "$control"
  wait_for_port "$port"
}
# The APNs simulator, checking JWTs against the bench key; the FCM simulator, trusting a demo
# service account it makes in $work.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/key.p8" 2>/dev/null
# The targeted pushes' APNs is a simulator of its own, "tsim": apns-sim serves every connection
# from one thread, so sharing it with a broadcast put up to ~100 ms of the simulator's own
# queueing in front of a targeted request at 300 ms (docs/scaling.md, "The targeted tail at a
# distance"), which APNs, whose connections do not share one thread, does not. The targeted
# device is a sandbox one, and the relay's sandbox endpoint is tsim. Both have one certificate.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
  -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -keyout "$work/apns-key.pem" -out "$work/apns-cert.pem" 2>/dev/null
for name in sim tsim; do
  simulator apns-sim "$name" --jwt-key "$key_id=$work/key.p8" --cert "$work/apns-cert.pem" --key "$work/apns-key.pem"
done
simulator fcm-sim fcm --demo-account "$work/fcm-account.json"

# The relay: every role in one process, as `make run` starts it.
start_relay "$url" "$sim_port" PUSHRELAY_APNS_CONNECTIONS=$APNS_CONNECTIONS \
  PUSHRELAY_APNS_SANDBOX_URL="https://127.0.0.1:$tsim_port" \
  PUSHRELAY_FCM_URL="https://127.0.0.1:$fcm_port" PUSHRELAY_FCM_CA_FILE="$work/fcm.pem"

# Two apps: "big" gets the broadcasts, "small" one device with the alias bench_user.
make_app() {
  local reply key
  reply=$(curl -sf -X POST "$base/admin/v1/apps" -H "Authorization: Bearer $admin" -d "{\"name\":\"$1\"}")
  key=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["app_key"])' <<<"$reply")
  python3 - "$work/key.p8" "$key_id" "$team_id" "$topic" >"$work/cred.json" <<'PY'
import json, sys
print(json.dumps({"auth": "token", "private_key": open(sys.argv[1]).read(), "key_id": sys.argv[2], "team_id": sys.argv[3], "topic": sys.argv[4]}))
PY
  curl -sf -X PUT "$base/admin/v1/apps/$key/apns" -H "Authorization: Bearer $admin" --data-binary @"$work/cred.json" >/dev/null
  printf '%s %s\n' "$key" "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["master_secret"])' <<<"$reply")"
}
read -r big_key big_secret <<<"$(make_app big)"
read -r small_key small_secret <<<"$(make_app small)"
big_auth="Basic $(printf '%s:%s' "$big_key" "$big_secret" | base64 -w0)"
small_auth="Basic $(printf '%s:%s' "$small_key" "$small_secret" | base64 -w0)"
big_id=$(sql "SELECT id FROM apps WHERE app_key = '$big_key'")
# A third app, "droid", gets the Android broadcasts, sent with the simulator's demo account.
read -r droid_key droid_secret <<<"$(make_app droid)"
curl -sf -X PUT "$base/admin/v1/apps/$droid_key/fcm" -H "Authorization: Bearer $admin" --data-binary @"$work/fcm-account.json" >/dev/null
droid_auth="Basic $(printf '%s:%s' "$droid_key" "$droid_secret" | base64 -w0)"
droid_id=$(sql "SELECT id FROM apps WHERE app_key = '$droid_key'")
small_id=$(sql "SELECT id FROM apps WHERE app_key = '$small_key'")
sql "INSERT INTO devices (app_id, token, environment, alias) VALUES ($small_id, repeat('cd', 32), 'sandbox', 'bench_user')"
# And 1,000 users u0…u999 (one device each) for the transactional pushes (scripts/bench/push.lua).
sql "INSERT INTO devices (app_id, token, environment, alias) SELECT $small_id, 'f' || lpad(to_hex(i), 63, '0'), 'production', 'u' || i
     FROM generate_series(0, 999) AS i"
# Statistics that know them: with none, an alias is looked for among all the app's devices
# (devices_fanout, 1,000 rows filtered) instead of through devices_alias.
sql "ANALYZE devices"

push() {  # push AUTH BODY → msg_id
  curl -sf -X POST "$base/v3/push" -H "Authorization: $1" -H 'Content-Type: application/json' -d "$2" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["msg_id"])'
}
targeted() { push "$small_auth" '{"platform":"ios","audience":{"alias":["bench_user"]},"notification":{"alert":"trade filled"},"options":{"apns_production":false}}'; }
wait_done() {  # wait_done MSG_ID TIMEOUT_SECONDS
  for _ in $(seq 1 $(($2 * 10))); do
    [ "$(sql "SELECT state FROM messages WHERE id = $1")" = done ] && return 0
    sleep 0.1
  done
  echo "message $1 did not finish in $2 s" >&2; exit 1
}
# percentiles MSG_IDS… → "p50 p99" in ms of accepted (messages.created_at) → outcome recorded (delivery_spans.at).
percentiles() {
  [ $# -gt 0 ] || { echo "- -"; return; }
  local ids; ids=$(IFS=,; echo "$*")
  sql "SELECT round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))::numeric, 1) || ' ' ||
              round((percentile_cont(0.99) WITHIN GROUP (ORDER BY ms))::numeric, 1)
       FROM (SELECT extract(epoch FROM d.at - m.created_at) * 1000 AS ms
             FROM messages m JOIN delivery_spans d ON d.message_id = m.id WHERE m.id IN ($ids)) t"
}

# Idle targeted latency: one push at a time, each waited for. The first push of an app opens
# its APNs connection (TLS handshake, provider token): it is sent before measuring.
wait_done "$(targeted)" 10
idle_ids=()
for _ in $(seq 1 "$TARGETED"); do id=$(targeted); wait_done "$id" 10; idle_ids+=("$id"); done
read -r idle_p50 idle_p99 <<<"$(percentiles "${idle_ids[@]}")"
echo "targeted, idle: p50 $idle_p50 ms, p99 $idle_p99 ms" >&2

# h2load's rate to the same simulator, the same connections, each request to its own token.
jwt=$(python3 - "$work/key.p8" "$key_id" "$team_id" <<'PY'
import base64, json, subprocess, sys, time
key, kid, team = sys.argv[1:]
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
signing_input = b64(json.dumps({"alg": "ES256", "kid": kid}).encode()) + "." + b64(json.dumps({"iss": team, "iat": int(time.time())}).encode())
der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=signing_input.encode(), capture_output=True, check=True).stdout
def integers(d):
    i = 2 if d[1] < 0x80 else 2 + (d[1] & 0x7f)
    out = []
    for _ in range(2):
        n = d[i + 1]; out.append(d[i + 2:i + 2 + n]); i += 2 + n
    return out
print(signing_input + "." + b64(b"".join(x.lstrip(b"\0").rjust(32, b"\0") for x in integers(der))))
PY
)
printf '{"aps":{"alert":"news"},"_j_msgid":1}' >"$work/payload.json"
# An Android device's FCM registration token: FCM's shape (an instance id, ":APA91b", then
# 134 characters; 163 in all), distinct per device.
fcm_token() { echo "lpad(to_hex($1), 22, '0') || ':APA91b' || repeat('Q', 134)"; }
# h2load_run N [android]: sets h2load_rps (req/s), h2load_us and h2load_sim_us (CPU µs per
# request of h2load and of the simulator). iOS: each request to its own token's path. Android:
# every request the same POST messages:send with an access token from fcm-sim's token endpoint
# ($fcm_access_token) and the body the relay sends ($work/fcm-body.json): h2load sends one
# body, so one device's token.
h2load_run() {
  local own_before own_after sim_before simulator=$sim_pid request
  if [ "${2:-ios}" = android ]; then
    simulator=$fcm_pid
    request=(-H "authorization: Bearer $fcm_access_token" -H "content-type: application/json" -d "$work/fcm-body.json"
             "https://127.0.0.1:$fcm_port/v1/projects/$fcm_project/messages:send")
  else
    python3 - "$1" "$sim_port" >"$work/uris.txt" <<'PY'
import sys
n, port = int(sys.argv[1]), sys.argv[2]
sys.stdout.write("".join(f"https://127.0.0.1:{port}/3/device/{i:064x}\n" for i in range(n)))
PY
    request=(-H "apns-topic: $topic" -H "apns-push-type: alert" -H "apns-priority: 10" -H "authorization: bearer $jwt"
             -d "$work/payload.json" -i "$work/uris.txt")
  fi
  children_cpu own_before
  sim_before=$(cpu_seconds "$simulator")
  h2load -n "$1" -c "$APNS_CONNECTIONS" -m "$STREAMS" "${request[@]}" >"$work/h2load.txt" 2>&1
  h2load_rps=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' "$work/h2load.txt")
  # No request refused (apns-sim resets the streams past the first on a connection until it
  # authenticated one, as APNs does: those few fail without an answer), or the rate measures refusals.
  grep -q "^status codes: .* 0 4xx, 0 5xx" "$work/h2load.txt" || { echo "h2load ${2:-ios}:" >&2; cat "$work/h2load.txt" >&2; exit 1; }
  children_cpu own_after
  h2load_us=$(per_notification "$own_before" "$own_after" "$1")
  h2load_sim_us=$(per_notification "$sim_before" "$(cpu_seconds "$simulator")" "$1")
}

# median VALUES… → their median (values that are not numbers, "-" for none, left out).
median() { printf '%s\n' "$@" | { grep -E '^[0-9.]+$' || true; } | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# broadcast AUTH PLATFORM SIMULATOR_PID: one broadcast to every PLATFORM device of the app,
# with targeted pushes during it; sets msg, sent, seconds, rate (delivered/s), busy_ids,
# busy_p50, busy_p99, and relay_us, pg_us, sim_us (CPU µs per notification sent, from the push
# until the last targeted push was done).
broadcast() {
  local relay_before pg_before sim_before simulator=$3
  relay_before=$(cpu_seconds "$relay_pid") pg_before=$(postgres_cpu_of "$url") sim_before=$(cpu_seconds "$simulator")
  msg=$(push "$1" "{\"platform\":\"$2\",\"audience\":\"all\",\"notification\":{\"alert\":\"news\"}}")
  # Targeted pushes while the broadcast runs, one every $INTERVAL s over a kept-alive connection.
  mapfile -t busy_ids < <(python3 scripts/bench/targeted.py "$base" "$small_auth" "$admin" "$msg" "$INTERVAL" "$BUSY_LIMIT")
  wait_done "$msg" 1800
  for id in "${busy_ids[@]}"; do wait_done "$id" 60; done
  read -r sent seconds <<<"$(sql "SELECT sent_count, extract(epoch FROM finished_at - created_at) FROM messages WHERE id = $msg" | tr '|' ' ')"
  relay_us=$(per_notification "$relay_before" "$(cpu_seconds "$relay_pid")" "$sent")
  pg_us=$(per_notification "$pg_before" "$(postgres_cpu_of "$url")" "$sent")
  sim_us=$(per_notification "$sim_before" "$(cpu_seconds "$simulator")" "$sent")
  # Only those accepted while the broadcast still ran (the script notices its end late).
  [ ${#busy_ids[@]} -eq 0 ] || mapfile -t busy_ids < <(sql "SELECT id FROM messages WHERE id IN ($(IFS=,; echo "${busy_ids[*]}"))
    AND created_at < (SELECT finished_at FROM messages WHERE id = $msg)")
  rate=$(awk -v n="$sent" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }')
  read -r busy_p50 busy_p99 <<<"$(percentiles "${busy_ids[@]}")"
}
# set_latency MS: every answer of both APNs simulators that late from now on.
set_latency() {
  local control
  for control in "$sim_control" "$tsim_control"; do curl -sf -X PUT "http://127.0.0.1:$control/network" -d "{\"latency_ms\":$1}" >/dev/null; done
}
# The relay's peak RSS (MiB) since the last reset_peak_rss (clear_refs 5: VmHWM back to the
# current RSS), and over the whole run (run_peak_rss).
peak_rss() { awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$relay_pid/status"; }
earlier_peaks=0
reset_peak_rss() {
  earlier_peaks=$(run_peak_rss)
  echo 5 >"/proc/$relay_pid/clear_refs" 2>/dev/null || true
}
run_peak_rss() { local now; now=$(peak_rss); echo $((now > earlier_peaks ? now : earlier_peaks)); }
# x of "RTT + x": a targeted p99 less the latency.
over_rtt() { awk -v p="$1" -v l="$2" 'BEGIN { if (p == "-") print "-"; else printf "%.1f", p - l }'; }

# rounds PLATFORM AUTH SIMULATOR_PID SIZE: ROUNDS broadcasts of the app's PLATFORM devices,
# each with h2load to the same simulator just before and just after it (their mean is the
# reference, so a host whose speed drifts, a shared machine, moves both sides of the ratio
# alike); fills rates, references, ratios, p50s, p99s, counts, relay_uss, pg_uss, sim_uss,
# h2_uss, h2_sim_uss (a value per round, h2load's two per round).
rounds() {
  local round h2load_before h2load_after h2load ratio
  rates=() references=() ratios=() p50s=() p99s=() counts=() relay_uss=() pg_uss=() sim_uss=() h2_uss=() h2_sim_uss=()
  for round in $(seq 1 "$ROUNDS"); do
    h2load_run "$4" "$1"
    h2load_before=$h2load_rps
    h2_uss+=("$h2load_us") h2_sim_uss+=("$h2load_sim_us")
    broadcast "$2" "$1" "$3"
    h2load_run "$4" "$1"
    h2load_after=$h2load_rps
    h2_uss+=("$h2load_us") h2_sim_uss+=("$h2load_sim_us")
    h2load=$(awk -v a="$h2load_before" -v b="$h2load_after" 'BEGIN { printf "%.0f", (a + b) / 2 }')
    ratio=$(awk -v a="$rate" -v b="$h2load" 'BEGIN { printf "%.2f", a / b }')
    rates+=("$rate") references+=("$h2load") ratios+=("$ratio") p50s+=("$busy_p50") p99s+=("$busy_p99") counts+=("${#busy_ids[@]}")
    relay_uss+=("$relay_us") pg_uss+=("$pg_us") sim_uss+=("$sim_us")
    echo "$4 $1 devices, round $round: $sent sent in ${seconds}s = $rate/s; h2load $h2load_before/s before, $h2load_after/s after; ratio $ratio; targeted during p50 $busy_p50 p99 $busy_p99 ms (${#busy_ids[@]} pushes); CPU µs per notification: relay $relay_us, PostgreSQL $pg_us, simulator $sim_us; h2load $h2load_us, simulator under h2load $h2load_sim_us" >&2
  done
}
# rounds_of VALUES…: "a / b / c", each round's value.
rounds_of() { local IFS=/; echo "$*" | sed 's|/| / |g'; }
# The cells the size tables share, from the arrays `rounds` filled: delivered/s, h2load/s,
# ratio (rounds), and targeted p50 / p99 (rounds' p99; pushes).
round_cells() {
  echo "$(printf '%.0f' "$(median "${rates[@]}")") | $(printf '%.0f' "$(median "${references[@]}")") | **$(median "${ratios[@]}")** ($(rounds_of "${ratios[@]}")) | $(median "${p50s[@]}") / **$(median "${p99s[@]}")** ($(rounds_of "${p99s[@]}"); $(IFS=+; echo $((${counts[*]}))))"
}
# cpu_row SIZE PLATFORM: a row of the CPU table from the arrays `rounds` filled.
cpu_row() { echo "| $1 | $2 | $(median "${relay_uss[@]}") | $(median "${pg_uss[@]}") | $(median "${sim_uss[@]}") | $(median "${h2_uss[@]}") | $(median "${h2_sim_uss[@]}") |"; }

rows=() cpu_rows=()
declare -A ios_ratio  # by size, for the Android table
inserted=0
for size in $SIZES; do
  # Devices of "big" up to `size`, straight into the table (the import has its own benchmark).
  sql "INSERT INTO devices (app_id, token, environment) SELECT $big_id, lpad(to_hex(i), 64, '0'), 'production'
       FROM generate_series($inserted, $((size - 1))) AS i"
  inserted=$size
  sql "VACUUM ANALYZE devices"
  load_before=$(load)
  rounds ios "$big_auth" "$sim_pid" "$size"
  report_ms=$(curl -sf -o /dev/null -w '%{time_total}' "$base/admin/v1/messages/$msg" -H "Authorization: Bearer $admin" |
    awk '{ printf "%.1f", $1 * 1000 }')
  rss=$(peak_rss)
  ios_ratio[$size]=$(median "${ratios[@]}")
  echo "$size devices: median ratio ${ios_ratio[$size]}, median targeted p99 $(median "${p99s[@]}") ms; report ${report_ms} ms; VmHWM $rss MiB; load $load_before" >&2
  # The largest size's figures are the latency table's 0 ms row.
  base_rate=$(printf '%.0f' "$(median "${rates[@]}")") base_p99=$(median "${p99s[@]}") base_rss=$rss
  base_cpu="$(median "${relay_uss[@]}") / $(median "${pg_uss[@]}") / $(median "${sim_uss[@]}")"
  cpu_rows+=("$(cpu_row "$size" iOS)")
  rows+=("| $size | $(round_cells) | $report_ms | $rss | $load_before |")
done

# The largest size with APNs farther away: the same devices, the answers LATENCY ms late.
latency_rows=()
for latency in $LATENCIES; do
  if [ "$latency" = 0 ]; then
    l_rate=$base_rate l_p99=$base_p99 l_rss=$base_rss l_rounds="(the table above)" l_cpu=$base_cpu
  else
    set_latency "$latency"
    reset_peak_rss
    l_rates=() l_p99s=() l_relay=() l_pg=() l_sim=()
    for round in $(seq 1 "$LATENCY_ROUNDS"); do
      broadcast "$big_auth" ios "$sim_pid"
      l_rates+=("$rate") l_p99s+=("$busy_p99") l_relay+=("$relay_us") l_pg+=("$pg_us") l_sim+=("$sim_us")
      echo "$size devices at $latency ms, round $round: $sent sent in ${seconds}s = $rate/s; targeted during p50 $busy_p50 p99 $busy_p99 ms (${#busy_ids[@]} pushes); CPU µs per notification: relay $relay_us, PostgreSQL $pg_us, simulator $sim_us" >&2
    done
    l_cpu="$(median "${l_relay[@]}") / $(median "${l_pg[@]}") / $(median "${l_sim[@]}")"
    set_latency 0
    l_rate=$(printf '%.0f' "$(median "${l_rates[@]}")") l_p99=$(median "${l_p99s[@]}") l_rss=$(peak_rss)
    l_rounds="($(rounds_of "${l_rates[@]}"))"
  fi
  l_ratio=$(awk -v a="$l_rate" -v b="$base_rate" 'BEGIN { printf "%.2f", a / b }')
  echo "$size devices at $latency ms: $l_rate/s, ratio to 0 ms $l_ratio, targeted p99 $l_p99 ms, peak RSS $l_rss MiB" >&2
  latency_rows+=("| $latency | $l_rate $l_rounds | **$l_ratio** | $latency + $(over_rtt "$l_p99" "$latency") | $l_rss | $l_cpu |")
done

# Android: each size again as a broadcast of "droid"'s Android devices through fcm-sim, beside
# h2load sending fcm-sim the requests the relay sends; the iOS ratio of the same size beside.
android_rows=()
if [ "$ANDROID" = 1 ]; then
  fcm_project=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["project_id"])' "$work/fcm-account.json")
  fcm_access_token=$(python3 scripts/bench/fcm_access_token.py "$work/fcm-account.json" "$work/fcm.pem")
  # What the relay sends a device for this broadcast (FCMPayloadBuilder's `message`, keys
  # sorted, behind the token FCMMessage puts first), with a msg_id as long as the broadcasts'.
  id=$(sql "SELECT max(id) FROM messages")
  printf '{"message":{"token":"%s","android":{"notification":{"tag":"pushrelay-%s"},"ttl":"86400s"},"data":{"_j_msgid":"%s"},"notification":{"body":"news"}}}' \
    "$(sql "SELECT $(fcm_token 0)")" "$id" "$id" >"$work/fcm-body.json"
  inserted=0
  for size in $SIZES; do
    sql "INSERT INTO devices (app_id, platform, token, environment) SELECT $droid_id, 'android', $(fcm_token i), NULL
         FROM generate_series($inserted, $((size - 1))) AS i"
    inserted=$size
    sql "VACUUM ANALYZE devices"
    reset_peak_rss
    load_before=$(load)
    rounds android "$droid_auth" "$fcm_pid" "$size"
    android_ratio=$(median "${ratios[@]}")
    versus=$(awk -v a="$android_ratio" -v i="${ios_ratio[$size]}" 'BEGIN { printf "%.2f", a / i }')
    echo "$size Android devices: median ratio $android_ratio (iOS ${ios_ratio[$size]}: $versus of it), median targeted p99 $(median "${p99s[@]}") ms; VmHWM $(peak_rss) MiB; load $load_before" >&2
    cpu_rows+=("$(cpu_row "$size" Android)")
    android_rows+=("| $size | $(round_cells) | ${ios_ratio[$size]} | **$versus** | $(peak_rss) | $load_before |")
  done
fi

# Transactional pushes through the API: each to a random one of 1,000 users with badge "+1"
# (stored, answered, then sent by the same process). wrk counts every answer: only the 200s
# are accepted pushes. The relay's and PostgreSQL's CPU from before wrk until every push is
# sent, per push; the statements PostgreSQL ran for them (pg_stat_statements, which
# scripts/with-test-postgres.sh loads), per push.
# First 5 s of the same load, sent, then ANALYZE: a relay in service has tables its autovacuum has
# analysed. Without it the run measured plans made while the tables were nearly empty (a
# connection keeps a generic plan until ANALYZE invalidates it): a scan of every chunk and
# message per batch, growing through the run (docs/scaling.md, "Transactional pushes").
unsent_sql="SELECT count(*) FROM messages WHERE state IN ('resolving', 'sending') AND app_id = $small_id"
AUTH="$small_auth" wrk -t2 -c64 -d5s -s scripts/bench/push.lua "$base/v3/push" >/dev/null
while [ "$(sql "$unsent_sql")" != 0 ]; do sleep 0.1; done
sql "ANALYZE"
sql "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"
sql "SELECT pg_stat_statements_reset()" >/dev/null
relay_cpu_before=$(cpu_seconds "$relay_pid") pg_cpu_before=$(postgres_cpu_of "$url")
AUTH="$small_auth" wrk -t2 -c64 -d10s --latency -s scripts/bench/push.lua "$base/v3/push" >"$work/wrk.txt"
refused=$(sed -n 's/^ *Non-2xx or 3xx responses: *\([0-9]*\)/\1/p' "$work/wrk.txt")
total=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$work/wrk.txt")
accept=$(awk -v t="$total" -v r="${refused:-0}" 'BEGIN { printf "%.0f", (t - r) / 10 }')
accept_p99=$(sed -n 's/^ *99% *\(.*\)/\1/p' "$work/wrk.txt")
[ "${refused:-0}" = 0 ] || { echo "wrk: ${refused} of ${total} pushes refused:" >&2; cat "$work/wrk.txt" >&2; }
# Accepted is not delivered: how many were still unsent when wrk stopped, and how long they took.
# (Counted through the index of messages in progress, migration 0036: counting every message of
# the app was a scan of all it ever sent, 16 ms of PostgreSQL's CPU every 0.1 s of the drain.)
unsent=$(sql "$unsent_sql")
drain_start=$(date +%s.%N)
while [ "$(sql "$unsent_sql")" != 0 ]; do sleep 0.1; done
drained=$(awk -v a="$drain_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
relay_cpu_after=$(cpu_seconds "$relay_pid") pg_cpu_after=$(postgres_cpu_of "$url")
# Accepted and sent: every accepted push over wrk's 10 s plus the time the last ones took.
accepted=$((total - ${refused:-0}))
delivered_rate=$(awk -v n="$accepted" -v d="$drained" 'BEGIN { printf "%.0f", n / (10 + d) }')
per_push() { awk -v a="$1" -v b="$2" -v n="$accepted" 'BEGIN { printf "%.0f", (b - a) * 1e6 / n }'; }
relay_us=$(per_push "$relay_cpu_before" "$relay_cpu_after") pg_us=$(per_push "$pg_cpu_before" "$pg_cpu_after")
# Statements per push (the waiting loop's own counts above excluded), and the busiest ones.
statements=$(sql "SELECT round(sum(calls)::numeric / $accepted, 1) FROM pg_stat_statements
                  WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%state IN (%) AND app_id = %'")
sql "SELECT round(calls::numeric / $accepted, 2) || ' per push, ' || round(mean_exec_time::numeric * 1000) || ' µs: ' ||
            left(regexp_replace(query, '\s+', ' ', 'g'), 100)
     FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
     ORDER BY total_exec_time DESC LIMIT 12" >"$work/statements.txt"
rss=$(run_peak_rss)
echo "pushes accepted: $accept/s (${refused:-0} refused, p99 $accept_p99); unsent when wrk stopped: $unsent (sent within ${drained} s); accepted and sent: $delivered_rate/s; CPU µs per push: relay $relay_us, PostgreSQL $pg_us; $statements statements per push; peak RSS $rss MiB" >&2
cat "$work/statements.txt" >&2

# pgbench running the relay's own accepting statement: one more push with every statement
# logged (log_statement, reloaded into the relay's sessions), that text with those parameters
# (scripts/bench/accept_pgbench.py), the relay stopped (it would send what pgbench accepts),
# as many clients as wrk's connections.
server_log="$(dirname "$(sql "SHOW data_directory")")/server.log"
log_from=$(wc -l <"$server_log")
sql "ALTER SYSTEM SET log_statement = 'all'" && sql "SELECT pg_reload_conf()" >/dev/null && sleep 0.5
logged=$(push "$small_auth" '{"platform":"ios","audience":{"alias":["u1"]},"notification":{"ios":{"alert":"trade filled","badge":"+1"}}}')
wait_done "$logged" 10
sql "ALTER SYSTEM RESET log_statement" && sql "SELECT pg_reload_conf()" >/dev/null
tail -n +"$((log_from + 1))" "$server_log" >"$work/statements.log"
python3 scripts/bench/accept_pgbench.py "$work/statements.log" >"$work/accept.pgbench"
kill -TERM "$relay_pid"; wait "$relay_pid" 2>/dev/null || true
"$pgbin/pgbench" -n -M prepared -c 64 -j 2 -T 10 -f "$work/accept.pgbench" "$url" >"$work/pgbench.txt" 2>&1 ||
  { cat "$work/pgbench.txt" >&2; exit 1; }
pgbench_rate=$(awk '/^tps/ { printf "%d", $3 }' "$work/pgbench.txt")
# With BENCH_EXPLAIN=FILE: each statement of that logged push, EXPLAIN (ANALYZE, BUFFERS) with
# its parameters (rolled back), and the pg_stat_statements figures of the wrk run, in FILE.
if [ -n "${BENCH_EXPLAIN:-}" ]; then
  python3 scripts/bench/explain_logged.py "$work/statements.log" >"$work/explain.sql"
  { echo "### pg_stat_statements during wrk (calls per accepted push, mean time, text)"; cat "$work/statements.txt"
    "${psql[@]}" "$url" -f "$work/explain.sql"; } >"$BENCH_EXPLAIN" 2>&1
fi
accept_ratio=$(awk -v a="$delivered_rate" -v b="$pgbench_rate" 'BEGIN { printf "%.2f", a / b }')
echo "pgbench, the same accepting statement: $pgbench_rate/s; accepted and sent / pgbench $accept_ratio" >&2

android_intro="" android_section=""
if [ "$ANDROID" = 1 ]; then
  android_intro="; Android broadcasts go to \`pushrelay fcm-sim\` (its demo service account, OAuth2 access tokens checked, nothing recorded) the same way"
  android_section=$(cat <<MD

Android: each size again as a broadcast (\`"platform":"android"\`) of a third app's Android devices
(FCM-shaped registration tokens of 163 characters) through \`pushrelay fcm-sim\`, the same
number of rounds, with targeted iOS pushes during it as above. **h2load** here:
\`h2load -n SIZE -c $APNS_CONNECTIONS -m $STREAMS -H "authorization: Bearer …" -H "content-type: application/json" -d body\`
to \`POST /v1/projects/$fcm_project/messages:send\` of the same simulator, the access token
from its token endpoint (\`scripts/bench/fcm_access_token.py\`: an RS256 assertion signed with
the demo service account, as the relay's FCM client gets one) and the body the relay sends a
device for this broadcast (h2load sends one body: every request names the same device).
**Android ÷ iOS**: the Android ratio over the iOS ratio of the same size above (goal ≥ 0.90,
issue 27). **peak RSS**: VmHWM over the size's Android broadcasts.

| devices | delivered/s | h2load/s | ratio (rounds) | targeted p50 / p99 ms during (rounds' p99; pushes) | iOS ratio | Android ÷ iOS | peak RSS MiB | load avg before |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
$(printf '%s\n' "${android_rows[@]}")
MD
)
  android_section+=$'\n'  # the blank line before the next paragraph ($(…) drops it)
fi

# The worker defaults as the binary states them (`pushrelay help`), so the text cannot go stale.
default_of() { "$bin" help 2>&1 | sed -n "s/^ *$1 .*(default \(.*\))\$/\1/p"; }
section=$(cat <<MD
## Fan-out

\`make bench-fanout\` (= \`swift build -c release && scripts/with-test-postgres.sh scripts/bench-fanout.sh\`,
SIZES="$SIZES" ROUNDS=$ROUNDS LATENCIES="$LATENCIES"), commit $commit, measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(uname -m), Linux $(uname -r),
\`kernel.sched_autogroup_enabled\` = $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo absent): see
docs/scaling.md, "The targeted tail"); the load average (1, 5, 15 min) before each broadcast is
in the table: other work shares this machine.
One \`pushrelay serve\` (release build, every role, defaults: $APNS_CONNECTIONS APNs connections,
chunks of $(default_of PUSHRELAY_CHUNK_SIZE), broadcast slots $(default_of PUSHRELAY_WORKER_SLOTS)) sends to \`pushrelay apns-sim\` (JWT checked, nothing recorded) over TLS and
HTTP/2 on 127.0.0.1, with PostgreSQL 15 on a unix socket (fsync off) in the same box$android_intro.

- **delivered/s**: devices sent ÷ (message finished − accepted), audience resolution included.
- **h2load**: \`h2load -n SIZE -c $APNS_CONNECTIONS -m $STREAMS -H apns-topic/push-type/priority/authorization -d payload -i uris\`
  to the same simulator, one distinct token per request, just before and just after each
  broadcast; the reference is their mean.
- **targeted**: a push to one alias of another app every $INTERVAL s while the broadcast runs
  (\`scripts/bench/targeted.py\`, one kept-alive connection; only pushes accepted before the
  broadcast finished are counted), to a sandbox device: the relay's sandbox endpoint is a
  second apns-sim with the same latency, as APNs does not serve one app's connection from the
  thread another app's broadcast keeps busy (docs/scaling.md, "The targeted tail at a distance");
  latency from accepted (\`messages.created_at\`) to its APNs answer recorded
  (\`delivery_spans.at\`), both the database's clock. Idle ($TARGETED pushes one after another):
  p50 **$idle_p50 ms**, p99 **$idle_p99 ms**.
- **report**: \`GET /admin/v1/messages/{msg_id}\` of the last broadcast of the size, after it finished (curl's total time).
- **RSS**: the relay's VmHWM (peak resident set) from /proc after the broadcast.

$ROUNDS broadcasts of each size, one after another: each figure is the median of the $ROUNDS,
with every round's ratio and targeted p99 in brackets.

| devices | delivered/s | h2load/s | ratio (rounds) | targeted p50 / p99 ms during (rounds' p99; pushes) | report ms | peak RSS MiB | load avg before |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
$(printf '%s\n' "${rows[@]}")
$android_section
CPU µs per notification (user + system from /proc, medians of the rounds): during the broadcast
(from the push until its last targeted push was done, ÷ devices sent) the relay, PostgreSQL and
the simulator (apns-sim for iOS, fcm-sim for Android); during h2load's runs (÷ requests) h2load
and the simulator. The simulator's two columns compare the server's work per request from the
relay with its work per request from h2load.

| devices | platform | relay | PostgreSQL | simulator (relay's requests) | h2load | simulator (h2load's requests) |
| ---: | --- | ---: | ---: | ---: | ---: | ---: |
$(printf '%s\n' "${cpu_rows[@]}")

APNs farther away: the last size's broadcast again with every answer of the simulator
delayed by the latency (\`PUT /network\` on its control endpoint; \`--latency-ms\` at start
does the same), LATENCIES="$LATENCIES", $LATENCY_ROUNDS broadcast(s) per latency above 0
(median; each round's rate in brackets), the 0 ms row being the table above's. **ratio**: to
the 0 ms rate of this run. **targeted p99**: during the broadcast, written as the round trip
(the latency) + the relay's own share. **peak RSS**: VmHWM over that latency's broadcasts
(reset before each through \`/proc/PID/clear_refs\`).

| APNs latency ms | delivered/s (rounds) | ratio to 0 ms | targeted p99 ms during | peak RSS MiB | CPU µs per notification: relay / PostgreSQL / simulator |
| ---: | ---: | ---: | ---: | ---: | ---: |
$(printf '%s\n' "${latency_rows[@]}")

Transactional pushes through the API (\`wrk -t2 -c64 -d10s -s scripts/bench/push.lua\`: \`POST /v3/push\`
to a random one of 1,000 aliases with \`badge: "+1"\`, each push stored, answered and then sent by the same
process; after 5 s of the same load, sent, and an \`ANALYZE\`, as a database in service has): **$accept/s** accepted (${refused:-0} refused, p99 $accept_p99); when wrk stopped, **$unsent** of them
were not yet sent (all were within $drained s): **$delivered_rate/s** accepted and sent. pgbench running the
relay's own accepting statement as PostgreSQL logged it for one more push (\`scripts/bench/accept_pgbench.py\`, 64 clients, -M prepared, the relay
stopped): $pgbench_rate/s, ratio **$accept_ratio**. CPU per push, from before wrk until the last was sent
(/proc): relay **$relay_us µs**, PostgreSQL **$pg_us µs**; $statements statements per push
(pg_stat_statements). Idle targeted latency (above): p50 $idle_p50 ms, p99 $idle_p99 ms. Peak RSS after it: $rss MiB.

Goals: broadcast ≥ 0.50 of h2load's rate; targeted p99 < 10 ms during a broadcast; RSS < 100 MiB;
at 150 and 300 ms, ≥ 0.8 of the 0 ms rate, targeted p99 within RTT + 15 ms, RSS < 150 MiB (issue 26).
MD
)
python3 - "$doc" "$section" <<'PY'
import os, re, sys
path, section = sys.argv[1], sys.argv[2].rstrip() + "\n"
text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
pattern = re.compile(r"^## Fan-out\n.*?(?=^## |\Z)", re.S | re.M)
text = pattern.sub(lambda _: section + "\n", text, count=1) if pattern.search(text) else text.rstrip() + "\n\n" + section
open(path, "w").write(text.rstrip() + "\n")
PY
echo "written to $doc"
