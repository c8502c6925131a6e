#!/bin/bash
# Description: txn postgres: max_wal_size requests a checkpoint every (int)(max_wal_size in segments / 1.9) WAL segments
# Timeout: 200
# In full: txn postgres: max_wal_size requests a checkpoint every CheckPointSegments =
# (int)(max_wal_size in segments / 1.9) whole WAL segments; the WAL stream length is read from
# strace's pwrite64 offsets in the named segments
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v strace >/dev/null || fail "strace is not installed (tools/deps installs it)"
mkdir -p "$TMP/w"
# full-page images make ~15 kB of WAL a transaction: 1500 transactions, ~20 MB
strace -f -qq -y -e trace=pwrite64 -o "$TMP/w.strace" "$FIO" --output-format=json --output="$TMP/w.json" \
	--name=w --ioengine="external:$E" --calibration=none --directory="$TMP/w" --rw=write --scale=2 --number_ios=1500 \
	--wal_segment_size=1m --wal_segments=4 --max_wal_size=5m --checkpoint_timeout=300 \
	2>"$TMP/w.err" || { cat "$TMP/w.err"; fail "fio failed"; }
sum=$(grep "txn: database" "$TMP/w.err") || { cat "$TMP/w.err"; fail "no summary"; }
req=$(echo "$sum" | sed -n 's/.* wal_checkpoint_requests=\([0-9]*\).*/\1/p')
n=$(echo "$sum" | sed -n 's/.* checkpoints=\([0-9]*\).*/\1/p')
py txn-wal-requests "$TMP/w.strace" "$req" || fail "requests: $req; $sum"
[ "$n" -ge 1 ] || fail "no checkpoint ran: $sum"
ok "$req WAL-triggered checkpoint requests, $n checkpoints ran (requests merge while one runs)"
