#!/bin/bash
# Description: storeio on a synchronous store (posix) completes each I/O in queue(): clat at iodepth 16 = clat at iodepth 1, as fio's psync
. "$(dirname "$0")/lib.sh"
# O_SYNC 4k writes: each write costs about one fdatasync, far more than the
# engine's own work. fio's psync engine, run the same way beside it, is the
# oracle for what one write costs. A storeio that queues synchronous I/O
# completes it only at fio's next reap (when iodepth I/Os are queued): its
# mean clat would then be ~iodepth/2 x the cost of one write.
run() {
	local name=$1; shift
	rm -f "$TMP/d/data"
	run_fio "$name" --name="$name" --directory="$TMP/d" --filename=data --size=2m --bs=4k \
		--rw=write --sync=1 "$@" || { cat "$TMP/$name.err"; fail "$name: fio failed"; }
	json "$TMP/$name.json" "int(d['jobs'][0]['write']['clat_ns']['mean'])"
}
mkdir -p "$TMP/d"
psync=$(run psync --ioengine=psync --iodepth=1)
s1=$(run s1 --ioengine="external:$B/storeio.so" --store=posix --iodepth=1)
s16=$(run s16 --ioengine="external:$B/storeio.so" --store=posix --iodepth=16)
psync2=$(run psync2 --ioengine=psync --iodepth=1)
[ "$psync2" -lt "$psync" ] && psync=$psync2	# the disk's speed drifts: the faster of two
echo "mean clat: psync $psync ns, storeio iodepth=1 $s1 ns, iodepth=16 $s16 ns"
[ "$psync" -gt 20000 ] || skip "O_SYNC writes cost only $psync ns here (no real flush): nothing to compare"
python3 - "$psync" "$s1" "$s16" <<'EOF' || fail "storeio clat does not match the cost of one write (psync)"
import sys
p, s1, s16 = map(int, sys.argv[1:])
r1, r16 = s1 / p, s16 / p
print(f"storeio/psync: iodepth=1 {r1:.2f}, iodepth=16 {r16:.2f}")
sys.exit(0 if r1 < 2.5 and r16 < 2.5 and s16 / s1 < 2.5 else 1)
EOF
ok "storeio's clat at iodepth 16 is the cost of one write ($s16 ns vs psync $psync ns)"
