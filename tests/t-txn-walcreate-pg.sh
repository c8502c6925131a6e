#!/bin/bash
# Description: real PostgreSQL 15 creates WAL segments with the steps t-txn-walcreate checks in txn (strace of pgbench)
# Timeout: 400
# In full: the oracle of t-txn-walcreate: a real PostgreSQL 15 (min_wal_size=32MB, max_wal_size=64MB),
# strace'd through pgbench -i -s 2, 40 MB of inserted rows and 5 s of 4 clients, creates each new segment as xlogtemp.PID, zero-filled
# in 256 kB pwritev (wal_init_zero=off: one byte at its end), fsync, fsync, rename, fsync of the segment and
# of pg_wal, with no WAL fdatasync of another backend meanwhile: the same words as the model's trace.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "a real PostgreSQL runs as user postgres: needs root"
command -v strace >/dev/null || skip "strace is not installed"
[ -x /usr/lib/postgresql/15/bin/postgres ] || skip "postgresql-15 is not installed (tools/deps --with fidelity)"
[ -x /usr/bin/pgbench ] || skip "pgbench is not installed (postgresql-contrib)"
chmod 711 "$TMP"	# user postgres reaches its data directory below
for z in 1 0; do
	res=$(py pg-wal-creations "$TMP" $z) || { echo "$res"; fail "wal_init_zero=$z: real PostgreSQL did not create segments as the model does"; }
	ok "real PostgreSQL 15, wal_init_zero=$z: $res"
done
