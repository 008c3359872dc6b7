#!/bin/sh
# Runs the PostgresStore tests, then stops and deletes any cluster they left behind.
#
# Without PUSHRELAY_TEST_DATABASE_URL the tests start embedded clusters under $TMPDIR; this
# script gives them a private TMPDIR, so a crashed test run cannot leave a server running.
# Extra arguments go to `swift test`.
set -u

pg_bin="${PUSHRELAY_POSTGRES_BIN:-$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)}"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/pushrelay-store-tests.XXXXXX")"
# As root the clusters run as `postgres`, which must be able to reach them.
chmod 0755 "$scratch"

cleanup() {
    for data in "$scratch"/pushrelay-pg-*/data; do
        [ -f "$data/postmaster.pid" ] || continue
        if [ "$(id -u)" = 0 ]; then
            runuser -u postgres -- "$pg_bin/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1
        else
            "$pg_bin/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1
        fi
    done
    rm -rf "$scratch"
}
trap cleanup EXIT INT TERM

TMPDIR="$scratch" swift test --filter PostgresStoreTests "$@"
