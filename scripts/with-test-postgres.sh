#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL cluster (unix socket only) and
# PUSHRELAY_TEST_DATABASE_URL pointing at it; the cluster is removed afterwards.
set -euo pipefail
bin=$(pg_config --bindir 2>/dev/null || true)
[ -x "$bin/initdb" ] || bin=/usr/lib/postgresql/15/bin
dir=$(mktemp -d /tmp/pushrelay-test-pg.XXXXXX)
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
  chown postgres:postgres "$dir"
  as_owner=(runuser -u postgres --)
fi
cleanup() {
  "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 \
  || { cat "$dir/initdb.log"; exit 1; }
"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
  start >/dev/null || { cat "$dir/server.log"; exit 1; }
export PUSHRELAY_TEST_DATABASE_URL="host=$dir port=5432 user=postgres dbname=postgres"
"$@"
