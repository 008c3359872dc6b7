#!/usr/bin/env bash
# Runs a command (the test suite) with a throwaway PostgreSQL cluster on a unix socket
# (pg_stat_statements loaded, so benchmarks can count the statements of a push),
# PUSHRELAY_TEST_DATABASE_URL pointing at it, and a private TMPDIR for the clusters that
# tests start themselves (restart tests). Every cluster is stopped and removed afterwards,
# even when the command crashed.
set -euo pipefail
bin="${PUSHRELAY_POSTGRES_BIN:-$(pg_config --bindir 2>/dev/null || true)}"
[ -x "$bin/initdb" ] || bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
scratch=$(mktemp -d /tmp/pushrelay-test.XXXXXX)
# As root the clusters run as `postgres`, which must be able to reach them.
chmod 0755 "$scratch"
as_owner=()
[ "$(id -u)" -eq 0 ] && as_owner=(runuser -u postgres --)

cleanup() {
  for pid_file in $(find "$scratch" -name postmaster.pid 2>/dev/null); do
    "${as_owner[@]}" "$bin/pg_ctl" -D "$(dirname "$pid_file")" -m immediate stop >/dev/null 2>&1 || true
  done
  rm -rf "$scratch"
}
trap cleanup EXIT INT TERM

shared="$scratch/shared"
mkdir -p "$shared"
[ "$(id -u)" -eq 0 ] && chown postgres:postgres "$shared"
"${as_owner[@]}" "$bin/initdb" -D "$shared/data" -U postgres --auth=trust -E UTF8 >"$shared/initdb.log" 2>&1 \
  || { cat "$shared/initdb.log"; exit 1; }
"${as_owner[@]}" "$bin/pg_ctl" -D "$shared/data" -l "$shared/server.log" -w \
  -o "-c listen_addresses='' -c unix_socket_directories='$shared' -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all" \
  start >/dev/null || { cat "$shared/server.log"; exit 1; }

export PUSHRELAY_TEST_DATABASE_URL="host=$shared port=5432 user=postgres dbname=postgres"
export TMPDIR="$scratch"
"$@"
