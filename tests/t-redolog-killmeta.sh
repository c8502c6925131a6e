#!/bin/bash
# Description: redolog SIGKILLed (strace) at its meta file's writes: set-up or close, logverify reads the log
# Timeout: 120
# In full: redolog SIGKILLed by strace at the write of its meta file: at set-up on a fresh directory
# (logverify: nothing acknowledged, exit 0), at set-up over an earlier run's log (the old meta kept
# whole) and at close (redo8030 rewrites last_file; every acknowledged record verifies)
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed"
[ "${SANITIZE:-0}" = 1 ] && FIO_BIN=$FIO	# under SANITIZE=1 fio needs the ASan runtime first

# killed NAME DIR N ARGS...: a redolog run on DIR, SIGKILLed by strace at the
# Nth pwrite64 to its meta file (strace -P: that file only, by its path)
killed() {
	local name=$1 dir=$2 n=$3 rc; shift 3
	strace -f -qq -o "$TMP/$name.strace" -P "$dir/redolog-mysql.meta" -e trace=pwrite64 \
		-e inject=pwrite64:signal=SIGKILL:when="$n" \
		"$FIO_BIN" --name="$name" --ioengine="external:$B/redolog.so" --store=posix \
		--directory="$dir" --flavor=mysql --bs=4k --iodepth=4 --rw=write --size=1g \
		--time_based --runtime=1 --lsn_file="$TMP/$name.lsn" "$@" >"$TMP/$name.out" 2>&1
	rc=$?
	grep -q "killed by SIGKILL" "$TMP/$name.strace" ||
		{ cat "$TMP/$name.out" "$TMP/$name.strace"; fail "$name: strace did not kill fio at meta write $n (exit $rc)"; }
	[ "$(grep -c 'pwrite64(' "$TMP/$name.strace")" = "$n" ] || fail "$name: not killed at meta write $n: $(cat "$TMP/$name.strace")"
}
# verify NAME DIR WANT: logverify of NAME's sidecar exits 0 and prints WANT
verify() {
	local rc
	"$B/logverify" --store=posix --dir="$2" "$TMP/$1.lsn" >"$TMP/$1.lv" 2>&1
	rc=$?
	[ $rc = 0 ] || { cat "$TMP/$1.lv"; fail "$1: logverify exit $rc after the kill"; }
	grep -q "$3" "$TMP/$1.lv" || fail "$1: logverify says '$(cat "$TMP/$1.lv")', not '$3'"
	ok "$1: $(cat "$TMP/$1.lv")"
}

# 1. fresh directory, killed at the meta's first write (set-up): nothing was
#    acknowledged, the meta is empty or missing; a next run starts and verifies
D=$(realpath -m "$TMP/fresh"); mkdir -p "$D"
killed setup "$D" 1 --innodb_log_file_size=1m
[ "$(lsn_acked "$TMP/setup.lsn")" = 0 ] || fail "setup: commits acknowledged before the meta was written"
verify setup "$D" "nothing to verify"
run_fio again --name=again --ioengine="external:$B/redolog.so" --store=posix --directory="$D" --flavor=mysql \
	--innodb_log_file_size=1m --bs=4k --rw=write --size=1g --time_based --runtime=1 \
	--lsn_file="$TMP/again.lsn" || { cat "$TMP/again.err"; fail "no run after a kill at set-up"; }
verify again "$D" "records intact"

# 2. the same directory (the meta of run "again" in it), the next run killed
#    at its meta write: the old text stays whole
killed reuse "$D" 1 --innodb_log_file_size=1m
grep -qx "flavor=mysql" "$D/redolog-mysql.meta" && grep -qx "nfiles=2" "$D/redolog-mysql.meta" ||
	fail "reuse: the meta lost its text at a killed rewrite: '$(head -c 200 "$D/redolog-mysql.meta")'"
ok "reuse: the earlier meta survives a kill at its rewrite"
verify reuse "$D" "nothing to verify"

# 3. redo8030: killed at the rewrite of last_file at close, after a second of
#    acknowledged commits: every one of them verifies
D=$(realpath -m "$TMP/r8030"); mkdir -p "$D"
killed close "$D" 2 --innodb_redo_log_capacity=8m
[ "$(lsn_acked "$TMP/close.lsn")" -gt 0 ] || fail "close: nothing acknowledged before the kill at close"
verify close "$D" "records intact"
