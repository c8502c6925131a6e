#!/bin/bash
# Description: flavor=mariadb opens its redo log as MariaDB 10.11 does: O_DIRECT on a block device, buffered on ceph-fuse
# Timeout: 300
# In full: flavor=mariadb opens its redo log as MariaDB 10.11 does in the same directory: O_DIRECT
# with writes in the device's physical block size on a block device's file system, buffered where
# there is none (ceph-fuse): local, CephFS and ext4-on-RBD; the oracle is real mariadbd's own start-up
# line ("File system buffers for log disabled (block size=N bytes)" / "Buffered log writes") and the
# model's openat flags and pwrite sizes under strace
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (mariadbd --user=root)"
command -v mariadbd >/dev/null && command -v mariadb-install-db >/dev/null ||
	fail "MariaDB missing (tools/deps --with fidelity installs it)"
command -v strace >/dev/null || fail "strace missing"
need_mounts
CDIR=$CEPHFS_MNT/t-txn-logbuffering.$$ EDIR=$EXT4RBD_MNT/t-txn-logbuffering.$$
cephfs_cleanup "$CDIR"
at_exit 'rm -rf "$EDIR"'
mkdir -p "$TMP/blk" "$CDIR" "$EDIR"
for d in "$TMP/blk" "$CDIR" "$EDIR"; do
	# what real MariaDB decides in DIR: "direct N" or "buffered N" (its log's line)
	want=$(py mariadb-log-buffering "$d") || fail "$d: mariadbd did not start"
	[ "$want" != none ] || fail "$d: mariadbd's log names no log buffering (its wording changed?)"
	mkdir -p "$d/m"
	strace -f -e trace=openat,pwrite64 -o "$TMP/st" "$FIO_BIN" --name=m --ioengine="external:$B/txn.so" --calibration=none \
		--directory="$d/m" --rw=write --number_ios=200 --flavor=mariadb --txn_profile=oltp_read_write \
		--table_size=2000 --txn_prewarm=1 >"$TMP/fio.out" 2>&1 || { cat "$TMP/fio.out"; fail "$d: fio failed"; }
	got=$(py redo-writes "$TMP/st" "${want#* }") || fail "$d: cannot read the model's strace"
	echo "$d: real mariadbd: $want; the model: $got"
	mode=${got%% *}
	[ "$mode" = "${want%% *}" ] || fail "$d: the model opens ib_logfile0 $mode, MariaDB ${want%% *}"
	if [ "$mode" = direct ]; then
		case "$got" in *" aligned "*) ;; *) fail "$d: O_DIRECT writes not in MariaDB's block of ${want#* } bytes";; esac
	fi
	ok "$d: ib_logfile0 $mode as real MariaDB's (${want})"
done
