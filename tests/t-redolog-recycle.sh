#!/bin/bash
# Description: a recycled WAL segment's rename is made durable (directory fsync) before it is written; the marker stays small
# Tier: quick
. "$(dirname "$0")/lib.sh"
# PostgreSQL installs a recycled segment with durable_rename(): rename, then
# fsync of the directory, before the segment takes records. And the
# ownership marker gains a claim per recycle: the old name's claim must
# leave it (a 2,000,000-line marker once made a 5 s run 30x slower and a
# 64 MiB one refused the directory). Oracles: strace (the order of calls),
# wc -l and grep of the marker file.
command -v strace >/dev/null || skip "strace is not installed"
D=$TMP/wal
mkdir -p "$D"
PG="--ioengine=external:$B/redolog.so --rw=write --flavor=postgres --wal_segment_size=1m --wal_segments=2"
strace -f -y -qq -e trace=renameat,renameat2,rename,fsync,pwrite64,pwritev -o "$TMP/st" \
	"$FIO" --name=rc --directory="$D" $PG --bs=8k --number_ios=700 --output=/dev/null 2>"$TMP/rc.err" ||
	{ cat "$TMP/rc.err"; fail "the strace'd run failed"; }
res=$(py recycle-order "$TMP/st" "$(realpath "$D")") ||
	{ echo "$res"; fail "a recycled segment written before its rename was durable"; }
ok "$res"

# a long run: hundreds of recycles, the marker stays a few dozen lines
run_fio long --name=long --directory="$D" $PG --bs=64k --number_ios=4000 ||
	{ cat "$TMP/long.err"; fail "the long run failed"; }
recycled=$(grep -o 'recycled=[0-9]*' "$TMP/long.err" | cut -d= -f2)
lines=$(wc -l <"$D/.dbfio-owned")
[ "${recycled:-0}" -ge 200 ] || fail "only ${recycled:-0} recycles"
[ "$lines" -le 140 ] || fail "the marker has $lines lines after $recycled recycles"
for f in "$D"/0000*; do
	grep -qx "$(basename "$f")" "$D/.dbfio-owned" || fail "$(basename "$f") exists but is not claimed in the marker"
done
ok "$recycled recycles: the marker has $lines lines, every segment on disk still claimed"

# an old, long marker (an earlier version's runs) is compacted at start;
# claims of names that exist stay (a foreign file is never un-claimed...
# nor is a claimed file of dbfio's)
M=$TMP/old
mkdir -p "$M"
echo data >"$M/exists-claimed"
{
	echo "dbfio owner marker 1: the names below were created by dbfio's engines"
	seq -f '0000000100000000%08g' 100 20099
	echo exists-claimed
	echo "16999.*"
} >"$M/.dbfio-owned"
run_fio old --name=old --directory="$M" $PG --bs=8k --number_ios=300 || { cat "$TMP/old.err"; fail "the run on an old marker failed"; }
lines=$(wc -l <"$M/.dbfio-owned")
[ "$lines" -le 20 ] || fail "an old marker of 20,003 lines has $lines after a run"
grep -qx exists-claimed "$M/.dbfio-owned" || fail "the claim of an existing file was dropped"
grep -qx '16999\.\*' "$M/.dbfio-owned" || fail "a relation claim was dropped"
ok "an old 20,003-line marker compacted to $lines lines; claims of existing files kept"
exit 0
