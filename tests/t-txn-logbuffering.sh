#!/bin/bash
# Description: txn, metastorm, redolog flavor=mariadb open ib_logfile0 as MariaDB 10.11: O_DIRECT on a block device, else buffered
# Timeout: 300
# In full: the engines that model MariaDB's redo log (txn, metastorm's DDL, redolog) open it as MariaDB
# 10.11 does in the same directory: O_DIRECT with writes in the device's physical block size on a
# block device's file system, buffered where there is none (ceph-fuse): local, CephFS and
# ext4-on-RBD; the oracle is real mariadbd's own start-up line ("File system buffers for log disabled
# (block size=N bytes)" / "Buffered log writes") and the models' openat flags and pwrite sizes under
# strace. metastorm's DDL records also advance the log as the real server's do (about 1 kB a write:
# its O_DIRECT writes are 4 kB, 8 kB where a record crosses a block, on a 4k disk)
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
n=0
for d in "$TMP/blk" "$CDIR" "$EDIR"; do
	n=$((n + 1))
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
	# metastorm's MariaDB DDL: the same decision, the same block
	rm -rf "$d/m" && mkdir -p "$d/m"
	strace -f -e trace=openat,pwrite64 -o "$TMP/metastorm.$n.st" "$FIO_BIN" --name=m \
		--ioengine="external:$B/metastorm.so" --calibration=none --directory="$d/m" --flavor=mariadb \
		--ddl_mix=create:100 --number_ios=40 >"$TMP/fio.out" 2>&1 ||
		{ cat "$TMP/fio.out"; fail "$d: metastorm failed"; }
	got=$(py redo-writes "$TMP/metastorm.$n.st" "${want#* }") || fail "$d: cannot read metastorm's strace"
	echo "$d: metastorm: $got"
	[ "${got%% *}" = "${want%% *}" ] || fail "$d: metastorm opens ib_logfile0 ${got%% *}, MariaDB ${want%% *}"
	case "$got" in *" aligned "*) ;; *) fail "$d: metastorm's redo writes not in MariaDB's block of ${want#* } bytes";; esac
	ok "$d: metastorm's ib_logfile0 ${got%% *} as real MariaDB's"
	# redolog flavor=mariadb, innodb_log_file_buffering and innodb_log_write_size not given
	rm -rf "$d/m" && mkdir -p "$d/m"
	strace -f -e trace=openat,pwrite64 -o "$TMP/st" "$FIO_BIN" --name=m --ioengine="external:$B/redolog.so" \
		--directory="$d/m" --rw=write --flavor=mariadb --innodb_log_file_size=4m --bs=1k --number_ios=100 \
		>"$TMP/fio.out" 2>&1 || { cat "$TMP/fio.out"; fail "$d: redolog failed"; }
	got=$(py redo-writes "$TMP/st" "${want#* }") || fail "$d: cannot read redolog's strace"
	echo "$d: redolog: $got"
	[ "${got%% *}" = "${want%% *}" ] || fail "$d: redolog opens ib_logfile0 ${got%% *}, MariaDB ${want%% *}"
	case "$got" in *" aligned "*) ;; *) fail "$d: redolog's writes not in MariaDB's block of ${want#* } bytes";; esac
	ok "$d: redolog's ib_logfile0 ${got%% *} as real MariaDB's"
done
# The records' size against the real server's: CREATE TABLE on local (a 4k disk here: the writes
# are whole 4 kB blocks, from the block the last record ended in), 20 real ones and metastorm's run
# above. The oracle is the real server's ib_logfile0 writes under strace (lab/dbtrace); the model's
# mean write must be within 25 % of the real one, and its share of writes over one block (records
# crossing it) within 0.15.
"$REPO/lab/dbtrace" --db mariadb --dir "$TMP/blk" --workload ddl --tables 20 --json "$TMP/real.json" \
	>"$TMP/dbtrace.out" 2>&1 || { tail -5 "$TMP/dbtrace.out"; fail "lab/dbtrace of real MariaDB's DDL failed"; }
want=$(py dbtrace-redo-shape "$TMP/real.json" create_table) || fail "real MariaDB's DDL redo writes: not in the trace"
got=$(py redo-shape "$TMP/metastorm.1.st") || fail "cannot read metastorm's strace"
echo "CREATE TABLE's redo writes, real MariaDB: $want; metastorm: $got"
py shapes-agree "$want" "$got" 0.25 0.15 || fail "metastorm's DDL redo writes differ from real MariaDB's ($got vs $want)"
ok "DDL redo writes: metastorm $got, real MariaDB $want"
