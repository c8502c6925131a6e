#!/bin/bash
# Description: redolog's longest file prefix (log_prefix of 24 characters + "job1000-", the 1000th job of a run: 32 characters)
# Timeout: 180
# In full: redolog's longest file prefix (log_prefix of 24 characters + "job1000-", the 1000th job of
# a run: 32 characters) survives the lsn_file sidecar: logverify finds the meta file and walks the log
# (it found none when the sidecar kept 31 characters)
. "$(dirname "$0")/lib.sh"
E=$B/redolog.so
LV=$B/logverify
[ -f "$E" ] && [ -x "$LV" ] || fail "build/redolog.so or build/logverify missing (run make)"
P=abcdefghijklmnopqrstuvwx	# 24 characters, log_prefix's maximum
D=$TMP/d
mkdir -p "$D"
# 999 threads of fio's null engine (one 4 KiB I/O each) take thread numbers
# 1..999; the redolog job's two clones are 1000 and 1001
cat >"$TMP/long.fio" <<J
[global]
thread
[filler]
ioengine=null
size=4k
bs=4k
numjobs=999
[rl]
stonewall
ioengine=external:$E
directory=$D
numjobs=2
log_prefix=$P
flavor=mysql
innodb_log_file_size=1m
rw=write
bs=512
number_ios=200
lsn_file=$TMP/rl.lsn
J
"$FIO" --output-format=json --output="$TMP/long.json" "$TMP/long.fio" >"$TMP/long.out" 2>&1 ||
	{ tail -20 "$TMP/long.out"; fail "fio failed"; }
[ -f "$D/${P}job1000-redolog-mysql.meta" ] || fail "no meta file ${P}job1000-redolog-mysql.meta in $D: $(ls "$D" | head)"
[ -s "$TMP/rl.lsn.1000" ] || fail "no sidecar rl.lsn.1000: $(ls "$TMP" | grep rl.lsn)"
"$LV" --store=posix --dir="$D" "$TMP/rl.lsn.1000" >"$TMP/lv.out" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$TMP/lv.out"; fail "logverify on the 1000th job's sidecar (prefix ${P}job1000-, 32 characters): exit $rc"; }
ok "prefix ${P}job1000- (32 characters): $(cat "$TMP/lv.out")"
