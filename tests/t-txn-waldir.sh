#!/bin/bash
# Description: txn waldir= puts the log in a directory of its own (initdb --waldir; seed 001's WAL image)
# Timeout: 120
# In full: txn waldir= puts the log in a directory of its own (initdb --waldir; seed 001's WAL image):
# strace sees every WAL write and fdatasync there and the tables' fsyncs in the job's directory;
# without waldir the log stays beside the tables; cephfs/rbd refuse it; two connections naming other
# waldirs are refused
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v strace >/dev/null || fail "strace is not installed (tools/deps installs it)"
# the oracle: the kernel's view of which file each write and sync went to (strace -y)
run() {	# run NAME ARGS...: 2 connections of tpcb under strace, 150 transactions each
	local n=$1; shift
	mkdir -p "$TMP/$n/data" "$TMP/$n/wal"
	strace -f -qq -y -e trace=pwrite64,fdatasync,fsync -o "$TMP/$n.strace" \
		"$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" --ioengine="external:$E" --calibration=none \
		--directory="$TMP/$n/data" --rw=write --numjobs=2 --group_reporting --number_ios=150 \
		--txn_profile=tpcb --scale=1 --shared_buffers=256k --checkpoint_timeout=1 --rtt=2ms "$@" \
		2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
	[ "$(json "$TMP/$n.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/$n.err"; fail "$n: fio error"; }
}
calls() { grep -cE "^[0-9]+ +$1\([0-9]+<$2" "$TMP/$3.strace"; }
wal='[0-9A-F]{24}>'

run sep --waldir="$TMP/sep/wal"
d=$TMP/sep/data w=$TMP/sep/wal
commits=$(json "$TMP/sep.json" "d['jobs'][0]['write']['total_ios']")
[ "$commits" = 300 ] || fail "sep: $commits transactions, expected 300"
ws=$(calls fdatasync "$w/$wal" sep)
ww=$(calls pwrite64 "$w/$wal" sep)
[ "$ws" -ge 150 ] && [ "$ws" -le 301 ] || fail "sep: $ws WAL fdatasync in $w for 300 commits (2 connections: 150..301)"
[ "$ww" -ge "$ws" ] || fail "sep: $ww WAL writes in $w, fewer than its $ws fdatasync"
[ "$(calls '(pwrite64|fdatasync|fsync)' "$d/$wal" sep)" = 0 ] || fail "sep: WAL calls in the data directory $d"
[ -z "$(ls "$d" | grep -E '^[0-9A-F]{24}$')" ] || fail "sep: WAL segment files in $d: $(ls "$d")"
[ "$(ls "$w" | grep -cE '^[0-9A-F]{24}$')" -ge 2 ] || fail "sep: no WAL segments in $w: $(ls "$w")"
tf=$(calls fsync "$d/1638[4-7]>" sep)
tw=$(calls pwrite64 "$d/1638[4-7]>" sep)
[ "$tf" -ge 1 ] && [ "$tw" -ge 1 ] || fail "sep: the tables in $d saw $tw writes and $tf fsync (a 256 kB pool evicts, checkpoints every second)"
[ "$(calls '(pwrite64|fdatasync|fsync)' "$w/1638[4-7]>" sep)" = 0 ] || fail "sep: table calls in the WAL directory"
ok "waldir: $ww WAL writes + $ws fdatasync in wal/ for $commits commits, $tw table writes + $tf fsync in data/ (strace)"

run same
d=$TMP/same/data
ws=$(calls fdatasync "$d/$wal" same)
[ "$ws" -ge 150 ] || fail "same: $ws WAL fdatasync in the job's directory without waldir"
[ -z "$(ls "$TMP/same/wal")" ] || fail "same: files in a directory nobody named"
ok "no waldir: the WAL ($ws fdatasync) beside the tables"

for st in cephfs rbd; do
	"$FIO" --name=bad --ioengine="external:$E" --calibration=none --directory="$TMP" --rw=write --number_ios=1 \
		--store=$st --waldir="$TMP/sep/wal" >"$TMP/bad-$st.out" 2>&1 && fail "store=$st accepted waldir="
	grep -q "^txn: waldir=$TMP/sep/wal: only store=posix, uring or aio have directories (store=$st)" "$TMP/bad-$st.out" ||
		{ cat "$TMP/bad-$st.out"; fail "store=$st: no one-line refusal of waldir="; }
done
ok "store=cephfs and rbd refuse waldir= in one line"

mkdir -p "$TMP/two/a" "$TMP/two/b" "$TMP/two/data"
# long enough (>= 100 x 7 x 2 ms) that the first job is still open when the second
# one's init runs (fio inits each job in its thread, after it is released)
"$FIO" --ioengine="external:$E" --calibration=none --directory="$TMP/two/data" --rw=write --number_ios=100 --rtt=2ms --scale=1 \
	--name=one --waldir="$TMP/two/a" --name=two --waldir="$TMP/two/b" >"$TMP/two.out" 2>&1
grep -q "^txn: database posix:$TMP/two/data is already open by another job with another waldir: .* give this job its own directory$" "$TMP/two.out" ||
	{ cat "$TMP/two.out"; fail "two connections of one database with other waldirs were not refused"; }
ok "one database, two waldirs: refused"
