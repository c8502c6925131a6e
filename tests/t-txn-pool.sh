#!/bin/bash
# Description: txn buffer pool: uniform reads (read_only, 2 connections, prewarmed) hit B/D within 2 points
# Timeout: 200
# In full: txn buffer pool: uniform reads (read_only, 2 connections, prewarmed) hit B/D within 2
# points, misses = the reads strace sees; dirty pages leave by eviction and page cleaner writes
# (strace pwrite64 count; InnoDB's doublewrite first) and by pgpage's checkpointer (its fsyncs)
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v strace >/dev/null || fail "strace is not installed (tools/deps installs it)"
run() {	# run NAME TRACE ARGS...
	local n=$1 tr=$2; shift 2
	mkdir -p "$TMP/$n"
	strace -f -qq -y -e trace=$tr -o "$TMP/$n.strace" \
		"$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" --ioengine="external:$E" --calibration=none \
		--directory="$TMP/$n" --rw=write --flavor=mysql --innodb_log_file_size=2m "$@" \
		2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
	[ "$(json "$TMP/$n.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/$n.err"; fail "$n: fio error"; }
	grep "txn: database" "$TMP/$n.err" >"$TMP/$n.sum" || fail "$n: no database summary"
}
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" "$TMP/$2.sum"; }

# Uniform: 10 point selects and 4 100-row ranges a transaction over sbtest1 only.
# B = 8M / 16k = 512 frames, D = the table file's pages; steady state (prewarmed):
# any replacement policy hits B/D under uniform independent access.
run uni pread64 --txn_profile=read_only --table_size=100000 --innodb_buffer_pool_size=8m \
	--txn_prewarm=1 --number_ios=1500 --numjobs=2 --group_reporting
D=$(( $(stat -c %s "$TMP/uni/16384") / 16384 ))
acc=$(( $(field hits uni) + $(field misses uni) ))
reads=$(grep -c "^[0-9]* *pread64(.*/uni/16384>" "$TMP/uni.strace")
misses=$((reads - 512))	# the prewarm read the first 512 pages
model=$(field hit_ratio uni)
echo "B/D = $(py calc "round(512 / $D, 4)"), from strace $(py calc "round(1 - $misses / $acc, 4)"), model says $model"
py check "abs(1 - $misses / $acc - 512 / $D) <= 0.02 and abs($model - (1 - $misses / $acc)) <= 0.002" ||
	fail "uni: D=$D accesses=$acc strace misses=$misses"
ok "uni: D=$D pages, $acc accesses, $misses misses (strace): hit ratio $(py calc "round(1 - $misses / $acc, 4)") vs B/D $(py calc "round(512 / $D, 4)")"

# Writes, small pool, no checkpoint: every dirty page leaves by a write of InnoDB's page cleaner
# (a batch) or, when a miss finds no clean victim, of the connection itself (an eviction write).
run evict pwrite64,fsync --txn_profile=oltp_read_write --table_size=100000 \
	--innodb_buffer_pool_size=4m --checkpoint_timeout=0 --number_ios=400
ew=$(field evict_writes evict); cp=$(field cleaner_pages evict); cb=$(field cleaner_batches evict)
# 16 kB pwrite64 on the table files (the load writes 1 MB chunks and a remainder)
pw=$(grep "^[0-9]* *pwrite64(.*/evict/1638[45]>" "$TMP/evict.strace" | grep -c ", 16384, ")
[ $((ew + cp)) -gt 100 ] || fail "evict: only $ew eviction writes and $cp page cleaner writes"
[ "$pw" = $((ew + cp)) ] || fail "evict: strace saw $pw page writes, the model $ew eviction + $cp page cleaner writes"
# InnoDB: each eviction (one page) and each batch goes to the doublewrite buffer first, synced (mysql: fsync)
dw=$(grep -c "^[0-9]* *pwrite64(.*/evict/#ib_16384_0.dblwr>" "$TMP/evict.strace")
dwp=$(sed -n 's/^[0-9]* *pwrite64(.*\/evict\/#ib_16384_0.dblwr>, [^,]*, \([0-9]*\), .*/\1/p' "$TMP/evict.strace" |
	awk '{ n += $1 / 16384 } END { print n + 0 }')
dws=$(grep -c "^[0-9]* *fsync(.*/evict/#ib_16384_0.dblwr>" "$TMP/evict.strace")
[ "$dw" = $((ew + cb)) ] && [ "$dws" = $((ew + cb)) ] && [ "$dwp" = $((ew + cp)) ] ||
	fail "evict: $dw doublewrite writes of $dwp pages, $dws syncs for $ew evictions and $cb batches of $cp pages (strace)"
ok "evict: $ew eviction + $cp page cleaner writes = $pw page writes, each after a doublewrite write + fsync (strace: $dw writes of $dwp pages, $dws fsyncs)"
run nodw pwrite64,fsync --txn_profile=oltp_read_write --table_size=100000 \
	--innodb_buffer_pool_size=4m --checkpoint_timeout=0 --number_ios=100 --innodb_doublewrite=0
[ $(($(field evict_writes nodw) + $(field cleaner_pages nodw))) -gt 0 ] || fail "nodw: no page writes"
grep -q "dblwr" "$TMP/nodw.strace" && fail "nodw: innodb_doublewrite=0 still wrote the doublewrite file"
ok "nodw: innodb_doublewrite=0: $(field evict_writes nodw) eviction + $(field cleaner_pages nodw) page cleaner writes, no doublewrite"

# A checkpoint a second: pgpage's checkpointer writes the dirty pages and fsyncs the files.
run ckpt pwrite64,fsync --txn_profile=oltp_read_write --table_size=100000 \
	--innodb_buffer_pool_size=64m --checkpoint_timeout=1 --time_based --runtime=3 --rtt=1ms
cw=$(field ckpt_written ckpt); cf=$(field ckpt_fsyncs ckpt); n=$(field checkpoints ckpt)
fs=$(grep -c "^[0-9]* *fsync(.*/ckpt/1638[45]>" "$TMP/ckpt.strace")
[ "$n" -ge 1 ] && [ "$cw" -gt 0 ] || fail "ckpt: $n checkpoints wrote $cw pages"
[ "$fs" -ge "$cf" ] || fail "ckpt: strace saw $fs table fsyncs, the checkpointer says $cf"
[ "$(field evict_writes ckpt)" = 0 ] || fail "ckpt: eviction writes with a pool larger than the tables"
ok "ckpt: $n checkpoints, $cw pages written, $cf fsyncs ($fs table fsyncs in strace, load included)"
