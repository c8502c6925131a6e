#!/bin/bash
# Description: redolog on every backend (posix, uring, cephfs, rbd) against the project's cluster
# Timeout: 400
# In full: redolog on every backend (posix, uring, cephfs, rbd) against the project's cluster, each
# flavor once and the MySQL 8.0.30 layout (refused on rbd), logverify after each run
. "$(dirname "$0")/lib.sh"
need_cluster
E=$B/redolog.so
IMG=redolog-test-be-$$
ROOT=/redolog-test-$$
rbd_cleanup "$IMG"
cephfs_cleanup "$ROOT"
mkdir -p "$TMP/dir"
run() {	# run BACKEND FLAVOR [ARGS...]
	local be=$1 fl=$2 n=$1-$2${3:+-redo8030}
	shift 2
	run_fio "$n" --name="$n" --ioengine="external:$E" --store=$be --directory="$TMP/dir" \
		--store_root=$ROOT --rbdname=$IMG --rbd_size=256m --flavor=$fl --innodb_log_file_size=2m \
		--wal_segment_size=1m --wal_segments=3 --bsrange=200-4k --size=6m --iodepth=8 --rw=write \
		--lsn_file="$TMP/$n.lsn" "$@" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
	[ "$(json "$TMP/$n.json" "d['jobs'][0]['error']")" = 0 ] || fail "$n: fio reported an error"
	timeout 120 "$B/logverify" --store=$be --dir="$TMP/dir" --store-root=$ROOT --rbdname=$IMG \
		"$TMP/$n.lsn" >"$TMP/$n.lv" 2>&1 || { cat "$TMP/$n.lv"; fail "$n: logverify failed"; }
	ok "$n: $(json "$TMP/$n.json" "round(d['jobs'][0]['write']['iops'])") commits/s, $(json "$TMP/$n.json" "d['jobs'][0]['sync']['lat_ns']['N']") flushes; $(cut -d: -f2- "$TMP/$n.lv")"
}
for be in posix uring cephfs rbd; do
	case $be in
	uring) have_backend LIBURING || { echo "no uring backend: skipped"; continue; } ;;
	cephfs) have_backend LIBCEPHFS || fail "cephfs backend not built" ;;
	rbd) have_backend RBD || fail "rbd backend not built" ;;
	esac
	for fl in mysql mariadb postgres; do
		run $be $fl
	done
	# MySQL 8.0.30+ layout: 32 x 256 KiB #innodb_redo/#ib_redoN; 10 MiB recycles consumed files (> 32 renames)
	if [ $be = rbd ]; then
		"$FIO" --name=r8 --ioengine="external:$E" --store=rbd --rbdname=$IMG --rbd_size=256m \
			--rw=write --size=1m --innodb_redo_log_capacity=8m >"$TMP/rbd8.out" 2>&1 &&
			fail "store=rbd accepted innodb_redo_log_capacity"
		grep -q "^redolog: store=rbd cannot do" "$TMP/rbd8.out" || { cat "$TMP/rbd8.out"; fail "rbd: no refusal line"; }
		ok "rbd: innodb_redo_log_capacity refused ($(grep '^redolog:' "$TMP/rbd8.out"))"
	else
		run $be mysql --innodb_redo_log_capacity=8m --size=10m
		rec=$(grep -o "recycled=[0-9]*" "$TMP/$be-mysql-redo8030.err" | cut -d= -f2)
		((${rec:-0} > 32)) || fail "$be: 8.0.30 layout: $rec renames, consumed files not recycled"
	fi
done
