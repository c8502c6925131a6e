#!/bin/bash
# Description: txn fails with the real errno in fio's JSON (ENOSPC, EISDIR), never a generic EIO
# In full: txn fails with the real errno in fio's JSON: ENOSPC when its log cannot be created on a
# full file system (was EIO), and ENOSPC, with the checkpointer's one line, when a checkpoint's page
# write fails (the job went on reporting tps); an unreadable ownership marker gives txn and pgpage
# EISDIR, as their line says (was EIO)
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-fault.sh"
ENOSPC=28
loopfs 40
# job_error NAME: "error total_ios" of the job in fio's JSON (text may precede it)
job_error() { py json-text "$TMP/$1.json" "'%d %d' % (d['jobs'][0]['error'], d['jobs'][0]['read']['total_ios'] + d['jobs'][0]['write']['total_ios'])"; }

# 1. postgres' WAL (5 x 16M) does not fit in 40M: its zero-fill fails with ENOSPC
run_fio full --name=full --ioengine="external:$B/txn.so" --calibration=none --directory="$LFS" --txn_prefill=0 \
	--runtime=2 --time_based && fail "full: fio succeeded on a full file system"
grep -q '^txn: .*No space left on device' "$TMP/full.err" || { cat "$TMP/full.err"; fail "full: no txn: line saying ENOSPC"; }
read -r err ios < <(job_error full)
[ "$err" = $ENOSPC ] || { cat "$TMP/full.err"; fail "full: fio's JSON error is $err, the line says ENOSPC ($ENOSPC)"; }
ok "log on a full file system: error $err, $(grep -m1 '^txn: .*No space' "$TMP/full.err")"

# 2. the checkpointer's page writes go into holes (txn_prefill=0) of a full
# file system; the log files were made by a first run, before it filled up
J=(--ioengine="external:$B/txn.so" --calibration=none --directory="$LFS" --flavor=mysql --innodb_log_file_size=1m
	--innodb_doublewrite=0 --txn_prefill=0 --txn_profile=oltp_read_write --time_based)
run_fio first --name=first "${J[@]}" --runtime=1 --checkpoint_timeout=0 || { cat "$TMP/first.err"; fail "first run failed"; }
dd if=/dev/zero of="$LFS/filler" bs=1M >/dev/null 2>&1
dd if=/dev/zero of="$LFS/filler2" bs=4k >/dev/null 2>&1
run_fio ckpt --name=ckpt "${J[@]}" --runtime=4 --checkpoint_timeout=1 && fail "ckpt: fio succeeded though its checkpoint failed"
grep -q '^txn: checkpointer: pwrite(.*No space left on device' "$TMP/ckpt.err" ||
	{ cat "$TMP/ckpt.err"; fail "ckpt: no 'txn: checkpointer: pwrite(...) failed: ...' line"; }
read -r err ios < <(job_error ckpt)
[ "$err" = $ENOSPC ] || { cat "$TMP/ckpt.err"; fail "ckpt: fio's JSON error is $err, expected ENOSPC ($ENOSPC)"; }
grep -q 'checkpoints=[1-9]' "$TMP/ckpt.err" || fail "ckpt: no checkpoint ran"
ok "checkpoint on a full file system: error $err after $ios transactions, $(grep -m1 '^txn: checkpointer' "$TMP/ckpt.err")"

# 3. the ownership marker is a directory: the line says EISDIR, so must the JSON
EISDIR=21
for e in txn pgpage; do
	mkdir -p "$TMP/m-$e/.dbfio-owned"
	run_fio "marker-$e" --name="marker-$e" --ioengine="external:$B/$e.so" $([ $e = txn ] && echo --calibration=none) --directory="$TMP/m-$e" \
		--rw=randwrite --bs=8k --size=1m --number_ios=4 && fail "marker-$e: fio succeeded"
	grep -q "^$e: .*Is a directory" "$TMP/marker-$e.err" || { cat "$TMP/marker-$e.err"; fail "marker-$e: no line saying EISDIR"; }
	read -r err ios < <(job_error "marker-$e")
	[ "$err" = $EISDIR ] || { cat "$TMP/marker-$e.err"; fail "marker-$e: fio's JSON error is $err, the line says EISDIR ($EISDIR)"; }
	ok "$e, marker a directory: error $err, $(grep -m1 "^$e: .*Is a directory" "$TMP/marker-$e.err")"
done
