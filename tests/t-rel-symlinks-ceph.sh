#!/bin/bash
# Description: on CephFS through libcephfs no engine follows a symlink at its lock, a log file or #innodb_redo: the targets unchanged
# Timeout: 300
. "$(dirname "$0")/lib.sh"
# The same rule as t-rel-symlinks on the cephfs backend: names resolve
# beneath store_root and through no link. The links and the victims are
# made, and the victims read back, with the python3-cephfs bindings (not
# dbfio's code): the oracle is the victims' md5 and listing before and after.
need_cluster
have_backend LIBCEPHFS || skip "cephfs backend not built"
ROOT=/dbfio-test-links-$$
cephfs_cleanup "$ROOT"
cfs() { /usr/bin/python3 "$PY_LIB" cephfs-do "$@"; }	# one call through python3-cephfs
V=$ROOT/victim
cfs mkdirs "$V/dir" && cfs write "$V/file" && cfs write "$V/dir/keep" || fail "making the victims through python3-cephfs"
cfs sums "$V" >"$TMP/before" || fail "reading the victims"
[ "$(wc -l <"$TMP/before")" = 3 ] || { cat "$TMP/before"; fail "the victims are not 3 entries"; }
check_victim() {
	cfs sums "$V" >"$TMP/after" || fail "$1: reading the victims"
	diff "$TMP/before" "$TMP/after" || fail "$1: a victim changed"
}
REDO="--ioengine=external:$B/redolog.so --store=cephfs --rw=write --bs=4k --number_ios=100 --innodb_log_file_size=1m"
refused() {	# refused CASE SUBDIR ARGS...
	local c=$1 sub=$2; shift 2
	run_fio "$c" --name="$c" "$@" --store_root="$ROOT/$sub" && { cat "$TMP/$c.err"; fail "$c: ran through a symlink"; }
	grep -q "symbolic link" "$TMP/$c.err" || { cat "$TMP/$c.err"; fail "$c: the refusal does not say it is a symbolic link"; }
	check_victim "$c"
	ok "cephfs $c: $(grep -m1 "symbolic link" "$TMP/$c.err")"
}
cfs mkdirs "$ROOT/lock" && cfs symlink "$V/file" "$ROOT/lock/.dbfio-lock" || fail "making the lock link"
refused lock lock $REDO
cfs mkdirs "$ROOT/log" && cfs symlink "$V/file" "$ROOT/log/ib_logfile0" || fail "making the log link"
refused log log $REDO
cfs mkdirs "$ROOT/r30" && cfs symlink "$V/dir" "$ROOT/r30/#innodb_redo" || fail "making the #innodb_redo link"
refused r30 r30 $REDO --innodb_redo_log_capacity=8m
exit 0
