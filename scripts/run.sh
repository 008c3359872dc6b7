#!/usr/bin/env bash
# `make run`: the APNs and FCM simulators and the relay side by side, with a demo app whose
# APNs token key and FCM service account (both made here, for the simulators only) they
# trust, so a first push has somewhere real to go. Ctrl-C (or SIGTERM) stops all three.
set -euo pipefail
bin=${PUSHRELAY_BIN:-.build/release/pushrelay}
data=${PUSHRELAY_DATA_DIR:-./.pushrelay}
sim_listen=${PUSHRELAY_SIM_LISTEN:-127.0.0.1:2197}
sim_control=${PUSHRELAY_SIM_CONTROL:-127.0.0.1:2198}
fcm_listen=${PUSHRELAY_FCM_SIM_LISTEN:-127.0.0.1:2297}
fcm_control=${PUSHRELAY_FCM_SIM_CONTROL:-127.0.0.1:2298}
listen=${PUSHRELAY_LISTEN:-127.0.0.1:8080}
demo="$data/demo"
key_id=DEMOKEY001
team_id=DEMOTEAM01
topic=com.example.demo

mkdir -p "$demo"
chmod 0711 "$data"
chmod 0700 "$demo"
[ -f "$demo/AuthKey_$key_id.p8" ] || \
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$demo/AuthKey_$key_id.p8" 2>/dev/null

pids=()
stop() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop EXIT
trap 'exit 0' INT TERM

# Starts a simulator in the background and waits until it has written its certificate.
start_simulator() {  # name cert-file command…
  local name=$1 cert=$2
  shift 2
  rm -f "$cert"
  "$bin" "$@" --write-cert "$cert" &
  pids+=($!)
  for _ in $(seq 1 100); do [ -s "$cert" ] && break; sleep 0.1; done
  [ -s "$cert" ] || { echo "the $name simulator did not start" >&2; exit 1; }
}
start_simulator APNs "$demo/simulator-cert.pem" apns-sim --listen "$sim_listen" --control "$sim_control" \
  --jwt-key "$key_id=$demo/AuthKey_$key_id.p8"
# The FCM simulator makes the demo service account (a fresh RSA key) on first start.
start_simulator FCM "$demo/fcm-simulator-cert.pem" fcm-sim --listen "$fcm_listen" --control "$fcm_control" \
  --demo-account "$demo/fcm-service-account.json"

export PUSHRELAY_APNS_PRODUCTION_URL=${PUSHRELAY_APNS_PRODUCTION_URL:-https://$sim_listen}
export PUSHRELAY_APNS_SANDBOX_URL=${PUSHRELAY_APNS_SANDBOX_URL:-https://$sim_listen}
# The simulator serves APNs' channel management (Live Activity broadcast channels) too.
export PUSHRELAY_APNS_CHANNELS_PRODUCTION_URL=${PUSHRELAY_APNS_CHANNELS_PRODUCTION_URL:-https://$sim_listen}
export PUSHRELAY_APNS_CHANNELS_SANDBOX_URL=${PUSHRELAY_APNS_CHANNELS_SANDBOX_URL:-https://$sim_listen}
export PUSHRELAY_APNS_CA_FILE=${PUSHRELAY_APNS_CA_FILE:-$demo/simulator-cert.pem}
# Android devices go to the FCM simulator (the demo service account's token_uri is its own).
export PUSHRELAY_FCM_URL=${PUSHRELAY_FCM_URL:-https://$fcm_listen}
export PUSHRELAY_FCM_CA_FILE=${PUSHRELAY_FCM_CA_FILE:-$demo/fcm-simulator-cert.pem}
export PUSHRELAY_DATA_DIR=$data PUSHRELAY_LISTEN=$listen
"$bin" serve &
relay=$!
pids+=($relay)

base="http://$listen"
for _ in $(seq 1 600); do
  curl -sf "$base/readyz" >/dev/null 2>&1 && break
  kill -0 "$relay" 2>/dev/null || { echo "the relay exited; see its log above" >&2; exit 1; }
  sleep 0.1
done
curl -sf "$base/readyz" >/dev/null || { echo "the relay did not become ready" >&2; exit 1; }

# The demo app: made once, and given the simulator-trusted key on every start.
admin=${PUSHRELAY_ADMIN_TOKEN:-$(cat "$data/admin-token")}
app_key=""
if [ -f "$demo/app.env" ]; then
  . "$demo/app.env"
  curl -sf -H "Authorization: Bearer $admin" "$base/admin/v1/apps/$APP_KEY" >/dev/null || rm -f "$demo/app.env"
fi
if [ ! -f "$demo/app.env" ]; then
  reply=$(curl -sf -X POST -H "Authorization: Bearer $admin" "$base/admin/v1/apps" -d '{"name":"Demo"}')
  app_key=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["app_key"])' <<<"$reply")
  secret=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["master_secret"])' <<<"$reply")
  (umask 077; printf 'APP_KEY=%s\nMASTER_SECRET=%s\n' "$app_key" "$secret" >"$demo/app.env")
  . "$demo/app.env"
fi
python3 - "$demo/AuthKey_$key_id.p8" "$key_id" "$team_id" "$topic" <<'PY' | \
  curl -sf -X PUT -H "Authorization: Bearer $admin" "$base/admin/v1/apps/$APP_KEY/apns" -d @- >/dev/null
import json, sys
path, key_id, team_id, topic = sys.argv[1:]
print(json.dumps({"auth": "token", "key_id": key_id, "team_id": team_id, "topic": topic,
                  "private_key": open(path).read()}))
PY
curl -sf -X PUT -H "Authorization: Bearer $admin" "$base/admin/v1/apps/$APP_KEY/fcm" \
  --data-binary @"$demo/fcm-service-account.json" >/dev/null

cat <<MSG

PushRelay is ready on $base (APNs simulator on https://$sim_listen, control http://$sim_control;
FCM simulator on https://$fcm_listen, control http://$fcm_control).
  admin token:   $data/admin-token
  demo app:      $demo/app.env (APP_KEY, MASTER_SECRET; topic $topic, token key $key_id;
                 FCM service account $demo/fcm-service-account.json, project pushrelay-demo)
Ctrl-C stops all three.

MSG
wait "$relay"
