#!/bin/bash
# Description: redolog and pgpage sync latency samples are the engine's real flushes after ramp_time (strace counts them)
# In full: redolog and pgpage sync latency samples are the engine's real flushes after ramp_time
# (strace counts them), never fio's own fsync= no-ops
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed"
D=$TMP/d
# traced NAME CALL ARGS...: fio under strace; prints the time of each flush
# of files in $D: a run of CALLs with no write between them (a commit group
# whose records straddle two WAL segments flushes both: one flush, one sample)
traced() {
	local name=$1 call=$2; shift 2
	rm -rf "$D"; mkdir -p "$D"
	strace -f -y -ttt -qq -e trace="$call,pwrite64,pwritev" -o "$TMP/$name.st" \
		"$FIO" --output-format=json --output="$TMP/$name.json" --name="$name" --directory="$D" "$@" \
		2>"$TMP/$name.err" || { cat "$TMP/$name.err"; fail "$name: fio failed"; }
	grep -E "^[0-9]+ +[0-9.]+ [a-z0-9]+\([0-9]+<$D/[^>]*>" "$TMP/$name.st" | grep -v dbfio-owned |
		awk -v c="$call" -v each="${EACH:-0}" \
			'$3 ~ "^" c "\\(" { if (each || !prev) print $2; prev = 1; next } { prev = 0 }' >"$TMP/$name.t"
}
samples() {	# fails (in the caller) when fio's JSON does not parse
	json "$TMP/$1.json" "d['jobs'][0]['sync']['lat_ns']['N']" 2>/dev/null ||
		{ echo "$1: fio's JSON does not parse: $(grep -m1 '^fio:' "$TMP/$1.json")"; return 1; }
}
RL=(--ioengine="external:$B/redolog.so" --flavor=postgres --wal_segment_size=1m --wal_segments=4
    --wal_buffers=1m --bs=8k --rw=write --size=1g)

# 1. fsync=4 in the job: fio's own syncs must not become samples
traced fs fdatasync "${RL[@]}" --number_ios=400 --fsync=4
n=$(samples fs) || fail "$n"; c=$(wc -l <"$TMP/fs.t")
[ "$n" = "$c" ] || fail "fsync=4: fio shows $n sync samples, strace counted $c flushes (runs of fdatasync) of the log"
grep -q "fsync=4 ignored" "$TMP/fs.err" || fail "fsync=4: no line saying it is ignored"
ok "fsync=4: $n sync samples = $c flushes (strace)"

# 2. ramp_time=1: only flushes after the ramp are samples. The ramp ends 1 s
# after the job's first commit (the first fdatasync, within a millisecond of
# fio's epoch); flushes within 0.15 s of that boundary may go either way.
traced ramp fdatasync "${RL[@]}" --time_based --runtime=2 --ramp_time=1
n=$(samples ramp) || fail "$n"
py ramp-samples "$TMP/ramp.t" "$n" || fail "ramp_time=1: sync samples are not the flushes after the ramp"
ok "ramp_time=1: sync samples = the flushes after the ramp"

# 3. pgpage's checkpointer fsyncs: each one is a sample (fsync=8 ignored)
EACH=1 traced pg fsync --ioengine="external:$B/pgpage.so" --relations=2 --relation_size=4m \
	--segment_size=1m --bs=8k --rw=randwrite --number_ios=2000 --checkpoint_pages=200 \
	--checkpoint_timeout=0 --fsync=8
n=$(samples pg) || fail "$n"; c=$(wc -l <"$TMP/pg.t")
[ "$c" -gt 0 ] || fail "pgpage: strace saw no checkpoint fsync"
[ "$n" = "$c" ] || fail "pgpage: fio shows $n sync samples, strace counted $c fsyncs of the segments"
ok "pgpage fsync=8: $n sync samples = $c checkpoint fsyncs (strace)"
