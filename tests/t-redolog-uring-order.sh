#!/bin/bash
# Description: redolog uring linked write+fdatasync: the kernel's io_uring trace orders each fdatasync after its writes
# Timeout: 180
# In full: redolog uring linked write+fdatasync on a loop-device ext4: the kernel's io_uring trace
# shows every fdatasync ordered after all writes of its file (mariadb O_DIRECT log wrapping 33 times);
# durable_lsn advances (SIGKILL, logverify --durable walks the records)
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/loopfs.sh"
E=$B/redolog.so
LV=$B/logverify
have_backend LIBURING || skip "uring backend not built"
[ "$(id -u)" = 0 ] || skip "needs root (tracefs)"
TR=/sys/kernel/tracing
MNT=
if [ ! -d "$TR/instances" ]; then
	mkdir -p "$TMP/tracefs"
	mount -t tracefs nodev "$TMP/tracefs" || skip "cannot mount tracefs"
	TR=$TMP/tracefs MNT=$TMP/tracefs
fi
[ -d "$TR/events/io_uring/io_uring_file_get" ] || { [ -n "$MNT" ] && umount "$MNT"; skip "no io_uring trace events"; }
I=$TR/instances/dbfio-order-$$
cleanup() {
	[ -d "$I" ] && { echo 0 >"$I/tracing_on"; rmdir "$I"; }
	# never rm -rf through a mount that did not go away
	[ -z "$MNT" ] || umount "$MNT"
}
# O_DIRECT writes through a loop device complete asynchronously (loop's
# worker), so a write the engine does not order before its fdatasync is
# still in flight when that fdatasync is submitted
loopfs_up 128
at_exit cleanup
mkdir "$I" || fail "cannot create trace instance $I"
echo 16384 >"$I/buffer_size_kb"
echo 1 >"$I/options/record-tgid"
for e in io_uring_submit_req io_uring_complete io_uring_file_get; do
	echo 1 >"$I/events/io_uring/$e/enable" || fail "cannot enable $e"
done

# 1. ordering: a 256 KiB circular ib_logfile0 (O_DIRECT, innodb_log_file_buffering=0)
#    wraps every 60 commits: groups straddling the wrap write two runs to one file
O=$LFS/o
mkdir -p "$O"
echo >"$I/trace"
echo 1 >"$I/tracing_on"
"$FIO" --name=o --thread --ioengine="external:$E" --store=uring --directory="$O" --rw=write \
	--flavor=mariadb --innodb_log_file_size=256k --bs=4k --size=8m --iodepth=8 \
	--lsn_file="$TMP/o.lsn" --output-format=json --output="$TMP/o.json" 2>"$TMP/o.err" &
pid=$!
fio_wait $pid ordering "" "$TMP/o.err" || { cat "$TMP/o.err"; fail "ordering run: fio failed"; }
echo 0 >"$I/tracing_on"
cp "$I/trace" "$TMP/o.trace"
wraps=$(grep -o "wraps=[0-9]*" "$TMP/o.err" | cut -d= -f2)
((${wraps:-0} >= 16)) || { cat "$TMP/o.err"; fail "ordering run wrapped only ${wraps:-0} times"; }
py uring-order "$TMP/o.trace" "$pid" || fail "an fdatasync was not ordered after every write of its file (see above)"
ok "ordering: $wraps wraps; no fdatasync overtook a write of its group"
"$LV" --dir="$O" "$TMP/o.lsn" >/dev/null || fail "ordering run: logverify failed"

# 2. durable_lsn in linked mode: SIGKILL mid-run, the sidecar's durable LSN
#    covers what was acknowledged and logverify --durable walks those records
for fl in postgres mariadb; do
	mkdir -p "$TMP/k-$fl"
	"$FIO" --name=k --ioengine="external:$E" --store=uring --directory="$TMP/k-$fl" --rw=write \
		--flavor=$fl --innodb_log_file_size=4m --wal_segment_size=1m --bs=4k --size=1g --iodepth=4 \
		--time_based --runtime=60 --lsn_file="$TMP/k-$fl.lsn" >"$TMP/k-$fl.out" 2>&1 &
	kill_when_acked $! "k-$fl" 3000000 300 "$TMP/k-$fl.lsn"
	ack=$ACKED
	dur=$(od -An -tu8 -j24 -N8 "$TMP/k-$fl.lsn" | tr -d ' ')
	[ "$dur" = "$ack" ] && [ "$ack" -gt 0 ] || fail "$fl: after SIGKILL durable LSN $dur, acknowledged $ack (linked mode must advance durable_lsn with every group)"
	a=$("$LV" --dir="$TMP/k-$fl" "$TMP/k-$fl.lsn") || fail "$fl: logverify: $a"
	d=$("$LV" --durable --dir="$TMP/k-$fl" "$TMP/k-$fl.lsn") || fail "$fl: logverify --durable: $d"
	na=$(sed 's/.*ok: \([0-9]*\) records.*/\1/' <<<"$a")
	nd=$(sed 's/.*ok: \([0-9]*\) records.*/\1/' <<<"$d")
	[ "$nd" = "$na" ] && ((nd > 500)) || fail "$fl: logverify --durable checked $nd records, the acknowledged walk $na"
	ok "$fl: SIGKILL at acknowledged LSN $ack = durable LSN; logverify --durable: $d"
done
