#!/bin/bash
# Description: seed 000's records recipe writes its pages with io_submit (InnoDB's native AIO), as strace shows
# Tier: quick
# The page flush of jobs/seed000-records.fio runs on the store seed000.py's
# page_store() picks for a mounted fs (InnoDB's innodb_use_native_aio): under
# strace every dirtied 16 kB page (7 + 63 + 625) is an io_submit of a 16 kB
# write, and no page is a pwrite64. The oracle is strace, not dbfio's counters.
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no repo"
command -v strace >/dev/null || skip "no strace"
have_backend LIBAIO || skip "the aio backend is not built"
ps=$(python3 -c "import sys; sys.path.insert(0, 'lab/experiment.d'); import seed000; print(seed000.page_store('posix'))") ||
	fail "seed000.page_store() failed"
mkdir -p "$TMP/d" "$TMP/run" && cd "$TMP/run" || fail "no scratch directory"
DBFIO_LIB=$B STORE=posix PAGE_STORE=$ps DIR=$TMP/d ROOT=/dbfio-seed000 FLAVOR=mariadb TRX_COMMIT=0 \
	strace -f -qq -e trace=io_submit,pwrite64 -o "$TMP/st" "$FIO_BIN" --output-format=json \
	--output="$TMP/rec.json" "$REPO/jobs/seed000-records.fio" 2>"$TMP/rec.err"
rc=$?
crash_check records $rc "$TMP/rec.err"
[ $rc -eq 0 ] || { tail -5 "$TMP/rec.err"; fail "seed000-records.fio with PAGE_STORE=$ps: fio exit $rc"; }
aio=$(grep -c 'io_submit(.*IOCB_CMD_PWRITE.*aio_nbytes=16384' "$TMP/st")
pw=$(grep -c 'pwrite64(.*, 16384, ' "$TMP/st")
written=$(awk '/reason=shutdown/ { for (i = 1; i <= NF; i++) if ($i ~ /^written=/) { sub("written=", "", $i); n += $i } } END { print n + 0 }' ckpt-1k.log ckpt-10k.log ckpt-100k.log)
[ "$written" -eq 695 ] || fail "the shutdown checkpoints wrote $written pages, not 7 + 63 + 625"
[ "$aio" -ge "$written" ] || fail "PAGE_STORE=$ps: $aio io_submit of a 16 kB write for $written pages ($pw pwrite64 of 16 kB)"
[ "$pw" -eq 0 ] || fail "PAGE_STORE=$ps: $pw pages written with pwrite64, not io_submit"
ok "PAGE_STORE=$ps: $aio io_submit of 16 kB for $written pages written, no pwrite64 of 16 kB"
