#!/bin/bash
# Description: pgpage checkpointer: each checkpoint fsyncs exactly the segments dirtied since the last one
# Timeout: 120
# In full: pgpage checkpointer: each checkpoint fsyncs exactly the segments dirtied since the last
# one; fsyncs recorded as fio sync latency; writeback hints issued
. "$(dirname "$0")/lib.sh"
ENG="external:$B/pgpage.so"
# 2 relations of 16 pages in segments of 4 pages: 8 segment files
GEOM=(--bs=8k --relations=2 --relation_size=128k --segment_size=32k --relfilenode=16384)

# 1. Sequential writes, a checkpoint every 8 dirtied pages: request k covers
# pages 8(k-1)..8k-1, i.e. segments 2(k-1) and 2k-1 (0 = 16384, 3 = 16384.3,
# 4 = 16385, ...). A checkpoint that started late merged requests (requests=N):
# it must fsync exactly the union of theirs.
mkdir -p "$TMP/seq"
run_fio seq --name=seq --ioengine="$ENG" --directory="$TMP/seq" "${GEOM[@]}" \
	--rw=write --rate_iops=200 --checkpoint_timeout=0 --checkpoint_pages=8 \
	--checkpoint_completion_target=0 --checkpoint_log="$TMP/seq.ckpt" \
	--lat_json="$TMP/seq.lat.json" || { cat "$TMP/seq.err"; fail "seq: fio failed"; }
cat "$TMP/seq.ckpt"
py pgpage-ckpt-files "$TMP/seq.ckpt" || fail "seq: a checkpoint fsynced other segments than those dirtied since the last"
ok "seq: 4 checkpoint requests, each fsynced exactly its 2 segments"
fs=$(json "$TMP/seq.lat.json.checkpointer" "d['calls']['fsync']['count']")
nsync=$(json "$TMP/seq.json" "d['jobs'][0]['sync']['lat_ns']['N']")
[ "$fs" = 8 ] || fail "seq: the checkpointer's store saw $fs fsyncs, expected 8"
[ "$nsync" = 8 ] || fail "seq: fio recorded $nsync sync latencies, expected 8"
[ "$(json "$TMP/seq.lat.json" "d['calls']['fsync']['count']")" = 0 ] || fail "seq: the job thread fsynced"
ok "seq: 8 fsyncs at the store, 8 sync latencies in fio's JSON"

# 2. Timed checkpoints while random writes touch only relation 1's segments 1
# and 2 (pages 20..43 of the address space): no checkpoint may fsync any other.
mkdir -p "$TMP/rand"
run_fio rand --name=rand --ioengine="$ENG" --directory="$TMP/rand" "${GEOM[@]}" \
	--rw=randwrite --offset=$((20 * 8192)) --size=$((8 * 8192)) --time_based --runtime=3 \
	--rate_iops=2000 --checkpoint_timeout=1 --checkpoint_flush_after=16k \
	--checkpoint_log="$TMP/rand.ckpt" --lat_json="$TMP/rand.lat.json" ||
	{ cat "$TMP/rand.err"; fail "rand: fio failed"; }
cat "$TMP/rand.ckpt"
n=$(grep -c '^checkpoint ' "$TMP/rand.ckpt")
[ "$n" -ge 2 ] || fail "rand: $n checkpoints in 3 s with checkpoint_timeout=1"
grep -v 'files=16385.1,16385.2 ' "$TMP/rand.ckpt" && fail "rand: a checkpoint fsynced other files than 16385.1,16385.2"
hints=$(json "$TMP/rand.lat.json.checkpointer" "d['calls']['sync_range']['count']")
[ "$hints" -gt 0 ] || fail "rand: no sync_file_range hints with checkpoint_flush_after=16k"
p99=$(json "$TMP/rand.json" "d['jobs'][0]['sync']['lat_ns']['percentile']['99.000000']")
ok "rand: $n timed checkpoints, all fsyncing exactly 16385.1,16385.2; $hints writeback hints; fsync p99 $p99 ns"

# 3. Checkpoints off: no checkpointer thread, no sync latencies
mkdir -p "$TMP/off"
run_fio off --name=off --ioengine="$ENG" --directory="$TMP/off" "${GEOM[@]}" \
	--rw=randwrite --checkpoint_timeout=0 --checkpoint_log="$TMP/off.ckpt" || fail "off: fio failed"
[ ! -s "$TMP/off.ckpt" ] || fail "off: a checkpoint ran with checkpoint_timeout=0"
[ "$(json "$TMP/off.json" "d['jobs'][0]['sync']['total_ios']")" = 0 ] || fail "off: sync latencies recorded"
ok "off: no checkpoints"
