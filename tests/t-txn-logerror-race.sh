#!/bin/bash
# Description: txn's log error is recorded under the log's mutex: helgrind sees no race when the binlog write fails
# Timeout: 400
# In full: txn's log error is recorded under the log's mutex: helgrind sees no race on it when the
# binlog's pwrite fails with ENOSPC (2 connections, log_bin=1, a full loop file system); both jobs
# fail with ENOSPC in fio's JSON
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-fault.sh"
command -v valgrind >/dev/null || skip "no valgrind (helgrind is the oracle)"
loopfs 40
J=(--ioengine="external:$B/txn.so" --calibration=none --directory="$LFS" --flavor=mysql --innodb_log_file_size=1m
	--innodb_doublewrite=0 --txn_prefill=0 --txn_profile=oltp_read_write --checkpoint_timeout=0
	--thread --time_based --max_binlog_size=16m)
# the log files first, then the file system full: the binlog (made anew) cannot grow
run_fio first --name=first "${J[@]}" --runtime=1 || { cat "$TMP/first.err"; fail "first run failed"; }
dd if=/dev/zero of="$LFS/filler" bs=1M >/dev/null 2>&1
dd if=/dev/zero of="$LFS/filler2" bs=4k >/dev/null 2>&1
timeout 300 valgrind --tool=helgrind --log-file="$TMP/hg.txt" "$FIO_BIN" --name=hg "${J[@]}" --numjobs=2 \
	--log_bin=1 --runtime=3 --output-format=json --output="$TMP/hg.json" 2>"$TMP/hg.err"
grep -q "^txn: log: pwrite(binlog.000001) failed: No space left on device" "$TMP/hg.err" ||
	{ cat "$TMP/hg.err"; fail "no binlog ENOSPC line: the error path was not reached"; }
errs=$(py json-text "$TMP/hg.json" "' '.join(str(j['error']) for j in d['jobs'])")
[ "$errs" = "28 28" ] || { cat "$TMP/hg.err"; fail "jobs' errors '$errs', expected ENOSPC (28) for both"; }
grep -q "ERROR SUMMARY" "$TMP/hg.txt" || fail "helgrind did not finish (see $TMP/hg.txt)"
races=$(grep -A14 "Possible data race" "$TMP/hg.txt" | grep -c ": fail\(_call\)\? (txn_log.c")
[ "$races" = 0 ] || { grep -B2 -A20 "Possible data race" "$TMP/hg.txt" | grep -A20 -B8 "fail.*txn_log.c" | head -60
	fail "helgrind: $races race frame(s) in txn_log.c's fail(): the log's error written outside its mutex"; }
ok "binlog ENOSPC in 2 connections: errors $errs, helgrind finds no race on the log's error"
