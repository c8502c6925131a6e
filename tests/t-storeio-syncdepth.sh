#!/bin/bash
# Description: storeio on a synchronous store (posix) completes each I/O in queue(): clat at iodepth 16 = clat at iodepth 1
# In full: storeio on a synchronous store (posix) completes each I/O in queue(): clat at iodepth 16 =
# clat at iodepth 1, as fio's psync
. "$(dirname "$0")/lib.sh"
# O_SYNC 4k writes: each write costs about one fdatasync, far more than the
# engine's own work. fio's psync engine, run the same way beside it, is the
# oracle for what one write costs. A storeio that queues synchronous I/O
# completes it only at fio's next reap (when iodepth I/Os are queued): its
# mean clat would then be ~iodepth/2 x the cost of one write.
# The disk's speed drifts and the machine is shared: three interleaved rounds,
# the median clat of each run, the best round of each configuration. All runs
# overwrite one file psync laid out (extending writes cost a journal commit).
run() {
	local name=$1; shift
	run_fio "$name" --name="$name" --directory="$TMP/d" --filename=data --size=1m --bs=4k \
		--rw=write --sync=1 "$@" || { cat "$TMP/$name.err"; fail "$name: fio failed"; }
	json "$TMP/$name.json" "d['jobs'][0]['write']['clat_ns']['percentile']['50.000000']"
}
min() { [ -z "$1" ] || [ "$2" -lt "$1" ] && echo "$2" || echo "$1"; }
mkdir -p "$TMP/d"
psync= s1= s16=
for r in 1 2 3; do
	psync=$(min "$psync" "$(run psync$r --ioengine=psync --iodepth=1)")
	s1=$(min "$s1" "$(run s1-$r --ioengine="external:$B/storeio.so" --store=posix --iodepth=1)")
	s16=$(min "$s16" "$(run s16-$r --ioengine="external:$B/storeio.so" --store=posix --iodepth=16)")
done
echo "median clat (best of 3): psync $psync ns, storeio iodepth=1 $s1 ns, iodepth=16 $s16 ns"
[ "$psync" -gt 20000 ] || skip "O_SYNC writes cost only $psync ns here (no real flush): nothing to compare"
echo "storeio/psync: iodepth=1 $(py calc "round($s1 / $psync, 2)"), iodepth=16 $(py calc "round($s16 / $psync, 2)")"
py check "$s1 / $psync < 3 and $s16 / $psync < 3 and $s16 / $s1 < 3" || fail "storeio clat does not match the cost of one write (psync)"
ok "storeio's clat at iodepth 16 is the cost of one write ($s16 ns vs psync $psync ns)"
# Completed in queue(), a read past the end of the (empty, size=) file is a
# hole of zeros, as it is when fio reaps it: fio must not see a short read.
mkdir -p "$TMP/e"
run_fio hole --name=hole --ioengine="external:$B/storeio.so" --directory="$TMP/e" --rw=randrw --bs=4k \
	--size=1m --verify=crc32c || { cat "$TMP/hole.err"; fail "randrw on a new file: $(grep -m1 'err=' "$TMP/hole.json")"; }
[ "$(json "$TMP/hole.json" "d['jobs'][0]['error']")" = 0 ] || fail "randrw on a new file: fio error"
ok "randrw + verify on a new file: reads past its end are zeros"
