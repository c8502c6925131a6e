#!/bin/bash
# Description: txn with one connection flushes the log once per commit (strace counts fdatasync: postgres, mariadb)
# Timeout: 200
# In full: txn with one connection flushes the log once per commit (strace counts fdatasync: postgres,
# mariadb); innodb_flush_log_at_trx_commit=2 writes per commit and flushes about once a second, =0
# writes about once a second; mysql's binlog: one fdatasync per group (sync_binlog=1) or per 5 (=5),
# with trx_commit 2 and 0 too; at max_binlog_size it rotates to a new file
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v strace >/dev/null || fail "strace is not installed (tools/deps installs it)"
# the oracle: fdatasync calls and log writes as the kernel saw them. No full-page
# images: a commit whose WAL crosses into the next segment flushes both (as PostgreSQL does)
st() {	# st NAME ARGS...: fio under strace, fd paths shown
	local n=$1; shift
	mkdir -p "$TMP/$n"
	strace -f -qq -y -e trace=fdatasync,pwrite64 -o "$TMP/$n.strace" \
		"$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" --ioengine="external:$E" --calibration=none \
		--directory="$TMP/$n" --rw=write --wal_segment_size=1m --innodb_log_file_size=2m \
		--full_page_writes=0 "$@" \
		2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
	[ "$(json "$TMP/$n.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/$n.err"; fail "$n: fio error"; }
}
count() { grep -c "^[0-9]* *$1(.*$2" "$TMP/$3.strace"; }

for fl in postgres mariadb; do
	st $fl --flavor=$fl --number_ios=150
	commits=$(json "$TMP/$fl.json" "d['jobs'][0]['write']['total_ios']")
	syncs=$(count fdatasync . $fl)
	[ "$commits" = 150 ] || fail "$fl: $commits transactions, expected 150"
	[ "$syncs" = "$commits" ] || fail "$fl: strace saw $syncs fdatasync for $commits commits (1 connection: one each)"
	ok "$fl: $commits commits, $syncs fdatasync (strace)"
done

# trx_commit=2: a write per commit, the flush once a second; 0: both once a second
for tc in 2 0; do
	n=mariadb-tc$tc
	st $n --flavor=mariadb --innodb_flush_log_at_trx_commit=$tc --time_based --runtime=3 --rtt=1ms
	commits=$(json "$TMP/$n.json" "d['jobs'][0]['write']['total_ios']")
	syncs=$(count fdatasync ib_logfile0 $n)
	writes=$(count pwrite64 ib_logfile0 $n)
	[ "$commits" -ge 100 ] || fail "$n: only $commits commits in 3 s"
	[ "$syncs" -ge 2 ] && [ "$syncs" -le 5 ] || fail "$n: $syncs log fdatasync in 3 s, expected 2..5 (one a second + shutdown)"
	if [ $tc = 2 ]; then
		[ "$writes" -ge "$commits" ] || fail "$n: $writes log writes for $commits commits (=2 writes at each commit)"
	else
		# the zero-fill of the 2 MB file at creation is 2 writes; the run adds about one a second
		[ "$writes" -le $((2 + 5)) ] || fail "$n: $writes log writes (=0 writes once a second)"
	fi
	ok "$n: $commits commits, $writes log writes, $syncs log fdatasync (strace)"
done

# mysql with the binlog: per commit group one redo fsync (innodb_flush_method=fsync)
# and, with sync_binlog=1, one binlog fdatasync; sync_binlog=5: every fifth group
for sb in 1 5; do
	n=mysql-binlog$sb
	mkdir -p "$TMP/$n"
	strace -f -qq -y -e trace=fsync,fdatasync -o "$TMP/$n.strace" "$FIO" --output=/dev/null \
		--name=$n --ioengine="external:$E" --calibration=none --directory="$TMP/$n" --rw=write --flavor=mysql \
		--innodb_log_file_size=2m --log_bin=1 --sync_binlog=$sb --number_ios=50 \
		--txn_profile=oltp_read_write 2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
	redo=$(grep -c "^[0-9]* *fsync(.*ib_logfile" "$TMP/$n.strace")
	bl=$(grep -c "^[0-9]* *fdatasync(.*binlog\.[0-9]*>" "$TMP/$n.strace")
	# two fsyncs are the creation of ib_logfile0 and ib_logfile1
	[ "$redo" = $((50 + 2)) ] || fail "$n: $redo redo fsyncs for 50 commits (+2 at creation)"
	# and one for binlog.000001's header, written when it is created (sync_binlog > 0)
	[ "$bl" = $((50 / sb + 1)) ] || fail "$n: $bl binlog fdatasync for 50 commits with sync_binlog=$sb (+1 the header's)"
	ok "$n: 50 commits, $redo redo fsyncs (2 at creation), $bl binlog fdatasync (1 the header's) (strace)"
done

# trx_commit 2 and 0 with the binlog: MySQL's ordered_commit still writes and
# syncs the binlog for every commit group (1 connection: every commit); only the
# redo flush waits for the once-a-second timer
for tc in 2 0; do
	n=mysql-binlog-tc$tc
	mkdir -p "$TMP/$n"
	strace -f -qq -y -e trace=fsync,fdatasync -o "$TMP/$n.strace" "$FIO" --output=/dev/null \
		--name=$n --ioengine="external:$E" --calibration=none --directory="$TMP/$n" --rw=write --flavor=mysql \
		--innodb_log_file_size=2m --log_bin=1 --sync_binlog=1 --innodb_flush_log_at_trx_commit=$tc \
		--number_ios=50 --txn_profile=oltp_read_write 2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
	redo=$(grep -c "^[0-9]* *fsync(.*ib_logfile" "$TMP/$n.strace")
	bl=$(grep -c "^[0-9]* *fdatasync(.*binlog\.[0-9]*>" "$TMP/$n.strace")
	[ "$bl" = 51 ] || fail "$n: $bl binlog fdatasync for 50 commits (sync_binlog=1: one per commit group, +1 the header's)"
	# 2 at creation, about one a second and one at shutdown
	[ "$redo" -le $((2 + 5)) ] || fail "$n: $redo redo fsyncs for 50 commits (trx_commit=$tc: about once a second)"
	ok "$n: 50 commits, $bl binlog fdatasync, $redo redo fsyncs (2 at creation) (strace)"
done

# max_binlog_size: the binlog rotates to a new file (as MySQL/MariaDB do) instead of growing
# past it; each file's writes append (store=rbd: past its extent every commit failed with EFBIG)
n=mysql-binlog-rotate
mkdir -p "$TMP/$n"
strace -f -qq -y -e trace=pwrite64 -o "$TMP/$n.strace" "$FIO" --output=/dev/null \
	--name=$n --ioengine="external:$E" --calibration=none --directory="$TMP/$n" --rw=write --flavor=mysql \
	--innodb_log_file_size=2m --log_bin=1 --max_binlog_size=8k --number_ios=50 \
	--txn_profile=oltp_read_write 2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
# pwrite64(fd</path/binlog.NNNNNN>, "..."..., LEN, OFF) = LEN
read -r w maxend files <<<"$(grep "^[0-9]* *pwrite64(.*binlog.[0-9]*>" "$TMP/$n.strace" |
	sed -E 's/.*binlog\.([0-9]+)>.*, ([0-9]+), ([0-9]+)\) += [0-9]+$/\1 \2 \3/' |
	awk '$2 > 1 { w++; if ($2 + $3 > m) m = $2 + $3; f[$1] = 1 } END { print w + 0, m + 0, length(f) }')"
[ "$w" -ge 50 ] || fail "$n: $w binlog writes for 50 commits"
[ "$maxend" -le $((8192 + 1100 + 44)) ] || fail "$n: a binlog write reached byte $maxend (max_binlog_size=8k)"
[ "$files" -ge 5 ] || fail "$n: binlog writes went to $files files: the binlog never rotated"
ok "$n: $w binlog writes in $files files, none past byte $maxend (strace)"

# a binlog write that fails says why; RLIMIT_FSIZE stands in for store=rbd's
# extent (3000 kB: past the 2 MB redo files, below 4000 commits of binlog)
efbig() {	# efbig NAME ARGS...: 4000 commits, no flush waits, file size limit 3000 kB
	local n=$1; shift
	mkdir -p "$TMP/$n"
	(trap '' XFSZ; ulimit -f 3000; exec "$FIO" --output=/dev/null --name=$n --ioengine="external:$E" --calibration=none \
		--directory="$TMP/$n" --rw=write --flavor=mysql --innodb_log_file_size=2m --log_bin=1 \
		--sync_binlog=0 --innodb_flush_log_at_trx_commit=0 --txn_profile=oltp_read_write \
		--table_size=1000 --number_ios=4000 "$@") >"$TMP/$n.out" 2>&1
}
efbig efbig && { cat "$TMP/efbig.out"; fail "efbig: 4.4 MB of binlog under a 3000 kB file size limit did not fail"; }
grep -qx "txn: log: pwrite(binlog.000001) failed: File too large" "$TMP/efbig.out" ||
	{ cat "$TMP/efbig.out"; fail "efbig: no 'txn: log: pwrite(binlog.000001) failed: File too large' line"; }
ok "efbig: $(grep "binlog.000001" "$TMP/efbig.out")"
efbig efbig-wrap --max_binlog_size=2m || { cat "$TMP/efbig-wrap.out"; fail "efbig-wrap: max_binlog_size=2m under a 3000 kB limit failed"; }
grep -q "commits=4000 .*binlog_rotations=[1-9]" "$TMP/efbig-wrap.out" || { cat "$TMP/efbig-wrap.out"; fail "efbig-wrap: not 4000 commits"; }
ok "efbig-wrap: max_binlog_size=2m: 4000 commits, binlog files of $(stat -c %s "$TMP"/efbig-wrap/binlog.0* | tr '\n' ' ')bytes"
