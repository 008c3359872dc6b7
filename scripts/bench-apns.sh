#!/usr/bin/env bash
# `make bench-apns`: PushRelay's APNs client against the APNs simulator, h2load against the
# same simulator with the same requests, and h2load against nghttpd as the machine's
# reference; RUNS rounds, medians written to docs/benchmarks.md.
#   N=200000 RUNS=3 CONNECTIONS=4 STREAMS=100 scripts/bench-apns.sh
set -euo pipefail
N=${N:-200000}
RUNS=${RUNS:-3}
CONNECTIONS=${CONNECTIONS:-4}
STREAMS=${STREAMS:-100}       # h2load's streams per connection (-m)
IN_FLIGHT=${IN_FLIGHT:-4000}  # the client's bound on notifications in flight
bin=${PUSHRELAY_BIN:-.build/release/pushrelay}
doc=${BENCH_DOC:-docs/benchmarks.md}
key_id=BENCHKEY01
team_id=BENCHTEAM1
topic=com.example.bench
token=$(printf 'ab%.0s' $(seq 1 32))

. "$(dirname "$0")/bench/processes.sh"
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The provider key, a JWT signed with it (openssl signs DER; a JWT carries raw r||s), the payload.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/key.p8" 2>/dev/null
jwt=$(python3 - "$work/key.p8" "$key_id" "$team_id" <<'PY'
import base64, json, subprocess, sys, time
key, kid, team = sys.argv[1:]
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
signing_input = b64(json.dumps({"alg": "ES256", "kid": kid}).encode()) + "." + \
    b64(json.dumps({"iss": team, "iat": int(time.time())}).encode())
der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=signing_input.encode(),
                     capture_output=True, check=True).stdout
def integers(d):  # SEQUENCE { INTEGER r, INTEGER s }
    i = 2 if d[1] < 0x80 else 2 + (d[1] & 0x7f)
    out = []
    for _ in range(2):
        n = d[i + 1]; out.append(d[i + 2:i + 2 + n]); i += 2 + n
    return out
print(signing_input + "." + b64(b"".join(x.lstrip(b"\0").rjust(32, b"\0") for x in integers(der))))
PY
)
printf '{"aps":{"alert":"Benchmark","sound":"default"},"id":42}' >"$work/payload.json"

# The simulator, checking every JWT against the key.
sim_port=$(free_port)
"$bin" apns-sim --listen "127.0.0.1:$sim_port" --write-cert "$work/sim-cert.pem" \
  --jwt-key "$key_id=$work/key.p8" --max-recorded 1000 >"$work/sim.log" 2>&1 &
pids+=($!)
wait_for_port "$sim_port"

# nghttpd: the reference, serving an empty file at the token path.
mkdir -p "$work/docroot/3/device"
: >"$work/docroot/3/device/$token"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/nghttpd.key" \
  -out "$work/nghttpd.crt" -days 1 -subj /CN=127.0.0.1 2>/dev/null
ref_port=$(free_port)
nghttpd -d "$work/docroot" "$ref_port" "$work/nghttpd.key" "$work/nghttpd.crt" >/dev/null 2>&1 &
pids+=($!)
wait_for_port "$ref_port"

# h2load sends to the same distinct device tokens as the client: the token's last 8 digits
# count up (apns-send --count does the same).
python3 - "$N" "$sim_port" "$token" >"$work/uris.txt" <<'PY'
import sys
n, port, token = int(sys.argv[1]), sys.argv[2], sys.argv[3]
sys.stdout.write("".join(f"https://127.0.0.1:{port}/3/device/{token[:-8]}{i & 0xffffffff:08x}\n" for i in range(n)))
PY

h2load_headers=(-H "apns-topic: $topic" -H "apns-push-type: alert" -H "apns-priority: 10"
  -H "apns-id: 5d3f0a4e-1b2c-4d5e-8f90-123456789abc" -H "authorization: bearer $jwt")
client_command="pushrelay apns-send --count $N --connections $CONNECTIONS --in-flight $IN_FLIGHT --topic $topic --key key.p8 --key-id $key_id --team-id $team_id --token $token --payload <payload>"
h2load_command="h2load -n $N -c $CONNECTIONS -m $STREAMS -H apns-topic/apns-push-type/apns-priority/apns-id/authorization -d payload.json -i uris.txt"

# h2load_rate strict|lenient URL [headers...]: req/s.
# Strict (our simulator): every request answered must be a 2xx. Like APNs, the simulator
# allows one stream per connection until a request has carried a valid token, and h2load
# does not wait for its SETTINGS: up to CONNECTIONS × (STREAMS − 1) of h2load's first streams
# may be refused (REFUSED_STREAM, counted by h2load as failed); more than that fails the run.
# Lenient (nghttpd, not ours): errors are reported, not fatal.
h2load_rate() {
  local mode=$1 url=$2; shift 2
  local out succeeded failed target=("$url")
  [ -f "$url" ] && target=(-i "$url")
  out=$(h2load -n "$N" -c "$CONNECTIONS" -m "$STREAMS" "$@" -d "$work/payload.json" "${target[@]}" 2>&1)
  succeeded=$(sed -n 's/^requests: .* \([0-9]*\) succeeded, \([0-9]*\) failed.*/\1/p' <<<"$out")
  failed=$(sed -n 's/^requests: .* \([0-9]*\) succeeded, \([0-9]*\) failed.*/\2/p' <<<"$out")
  if [ "$failed" != 0 ]; then
    if [ "$mode" = strict ] && ! { [ "$failed" -le $((CONNECTIONS * (STREAMS - 1))) ] &&
         grep -q "status codes: $succeeded 2xx, 0 3xx, 0 4xx, 0 5xx" <<<"$out"; }; then
      echo "h2load: requests failed:" >&2; echo "$out" >&2; exit 1
    fi
    echo "h2load ($url): $(grep '^requests:' <<<"$out")" >&2
  fi
  sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' <<<"$out"
}

load_before=$(cut -d' ' -f1 /proc/loadavg)
client_rates=() sim_rates=() ref_rates=()
for run in $(seq 1 "$RUNS"); do
  out=$(PUSHRELAY_APNS_SANDBOX_URL="https://127.0.0.1:$sim_port" PUSHRELAY_APNS_CA_FILE="$work/sim-cert.pem" \
    "$bin" apns-send --count "$N" --connections "$CONNECTIONS" --in-flight "$IN_FLIGHT" --topic "$topic" \
    --key "$work/key.p8" --key-id "$key_id" --team-id "$team_id" --token "$token" \
    --payload "$(cat "$work/payload.json")" 2>&1) || { echo "apns-send failed:" >&2; echo "$out" >&2; exit 1; }
  grep -q "accepted $N," <<<"$out" || { echo "apns-send: not every notification was accepted:" >&2; echo "$out" >&2; exit 1; }
  client=$(sed -n 's/.*: \([0-9]*\) notifications\/s$/\1/p' <<<"$out")
  sim=$(h2load_rate strict "$work/uris.txt" "${h2load_headers[@]}")
  ref=$(h2load_rate lenient "https://127.0.0.1:$ref_port/3/device/$token")
  printf 'run %d: client %s/s, h2load→simulator %s/s, h2load→nghttpd %s/s\n' "$run" "$client" "$sim" "$ref"
  client_rates+=("$client") sim_rates+=("$sim") ref_rates+=("$ref")
done

client_median=$(printf '%s\n' "${client_rates[@]}" | median)
sim_median=$(printf '%s\n' "${sim_rates[@]}" | median)
ref_median=$(printf '%s\n' "${ref_rates[@]}" | median)
ratio=$(awk -v a="$client_median" -v b="$sim_median" 'BEGIN { printf "%.2f", a / b }')
ratios=()
for i in $(seq 0 $((RUNS - 1))); do
  ratios+=("$(awk -v a="${client_rates[$i]}" -v b="${sim_rates[$i]}" 'BEGIN { printf "%.2f", a / b }')")
done
ratio_median=$(printf '%s\n' "${ratios[@]}" | median)
sim_ratio=$(awk -v a="$sim_median" -v b="$ref_median" 'BEGIN { printf "%.2f", a / b }')
printf '\nmedians of %d runs: client %.0f/s, h2load→simulator %.0f/s (client/h2load %s; median of the per-run ratios %s), h2load→nghttpd %.0f/s (simulator/nghttpd %s)\n' \
  "$RUNS" "$client_median" "$sim_median" "$ratio" "$ratio_median" "$ref_median" "$sim_ratio"

section=$(cat <<MD
## APNs client and simulator

\`make bench-apns\` (N=$N, $RUNS runs, medians), measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(uname -m)),
load average $load_before before the run (other work shares this machine).
Everything runs on 127.0.0.1 over TLS with HTTP/2, one event-loop thread on each side; the
simulator checks the ES256 JWT of every connection (one signature check per connection,
then a cached comparison) and validates every request as APNs would. Both senders send each
notification to its own device token (\`uris.txt\`: the $N tokens \`apns-send --count\` makes).
The client also gives each its own \`apns-id\`, as it must; h2load repeats one, which HPACK
then indexes (the simulator's echo of it is never indexed, for either). nghttpd's reference
run requests one path over and over.
Like APNs, the simulator allows one stream until a request carried a valid token; h2load
does not wait for that, so a few of its first streams per connection are refused (see the
script's output).

| sender → server | requests/s | ratio |
| --- | ---: | ---: |
| PushRelay APNs client → simulator | $(printf '%.0f' "$client_median") | client / h2load: **$ratio** |
| h2load → simulator (same headers, JWT and payload) | $(printf '%.0f' "$sim_median") | simulator / nghttpd: $sim_ratio |
| h2load → nghttpd (reference: empty file at the token path) | $(printf '%.0f' "$ref_median") | 1.00 |

Per run (client, h2load → simulator, h2load → nghttpd; client / h2load), the median of
the per-run ratios being $ratio_median:
$(for i in $(seq 0 $((RUNS - 1))); do printf -- '- %s, %s, %s; %s\n' "${client_rates[$i]}" "${sim_rates[$i]}" "${ref_rates[$i]}" "${ratios[$i]}"; done)

Commands (in the same run, against the same simulator, one event-loop thread each side):
- \`$client_command\`
- \`$h2load_command\`
- \`h2load -n $N -c $CONNECTIONS -m $STREAMS -d payload.json https://127.0.0.1:PORT/3/device/<token>\` against \`nghttpd -d docroot PORT key cert\`
MD
)
mkdir -p "$(dirname "$doc")"
[ -f "$doc" ] || printf '# Benchmarks\n\nThroughput figures of PushRelay, each measured beside a reference on the same machine in\nthe same run (this is a shared 2-core box: absolute numbers move, ratios less so).\nRe-run with `make bench`.\n' >"$doc"
python3 - "$doc" "$section" <<'PY'
import re, sys
path, section = sys.argv[1], sys.argv[2].rstrip() + "\n"
text = open(path).read()
pattern = re.compile(r"^## APNs client and simulator\n.*?(?=^## |\Z)", re.S | re.M)
if pattern.search(text):
    text = pattern.sub(lambda _: section + "\n", text, count=1)
else:
    text = text.rstrip() + "\n\n" + section
open(path, "w").write(text.rstrip() + "\n")
PY
echo "written to $doc"
