#!/bin/bash
# Description: txn postgres: max_wal_size requests a checkpoint every max_wal_size / 1.9 of WAL (CheckPointSegments); the WAL stream length is read from strace's pwrite64 offsets in the named segments
# Timeout: 200
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v strace >/dev/null || fail "strace is not installed (tools/deps installs it)"
mkdir -p "$TMP/w"
# full-page images make ~15 kB of WAL a transaction: 1500 transactions, ~20 MB
strace -f -qq -y -e trace=pwrite64 -o "$TMP/w.strace" "$FIO" --output-format=json --output="$TMP/w.json" \
	--name=w --ioengine="external:$E" --directory="$TMP/w" --rw=write --scale=2 --number_ios=1500 \
	--wal_segment_size=1m --wal_segments=4 --max_wal_size=4m --checkpoint_timeout=300 \
	2>"$TMP/w.err" || { cat "$TMP/w.err"; fail "fio failed"; }
sum=$(grep "txn: database" "$TMP/w.err") || { cat "$TMP/w.err"; fail "no summary"; }
req=$(echo "$sum" | sed -n 's/.* wal_checkpoint_requests=\([0-9]*\).*/\1/p')
n=$(echo "$sum" | sed -n 's/.* checkpoints=\([0-9]*\).*/\1/p')
python3 - "$TMP/w.strace" "$req" <<'PY' || fail "requests: $req; $sum"
import re, sys
seg = 1 << 20
end = 0
for l in open(sys.argv[1]):
    m = re.search(r'pwrite64\(\d+<[^>]*/0000000100000000([0-9A-F]{8})>, .*, (\d+), (\d+)\) = ', l)
    if m and int(m.group(2)) != seg:	# not the zero-fill
        end = max(end, (int(m.group(1), 16) - 1) * seg + int(m.group(3)) + int(m.group(2)))
stream = end * 8168 // 8192	# 24-byte page headers are not stream bytes
want = stream // int(4 * seg / 1.9)
print("WAL written up to %d bytes of file (%d of stream): %d requests expected, the engine made %s"
      % (end, stream, want, sys.argv[2]))
assert abs(want - int(sys.argv[2])) <= 1
PY
[ "$n" -ge 1 ] || fail "no checkpoint ran: $sum"
ok "$req WAL-triggered checkpoint requests, $n checkpoints ran (requests merge while one runs)"
