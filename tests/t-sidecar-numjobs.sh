#!/bin/bash
# Description: numjobs=3: every job (fio's clones too) has its own lsn_file, write_trace, lat_json and table_json sidecar
# In full: numjobs=3: every job (fio's clones too) has its own lsn_file, write_trace, lat_json and
# table_json sidecar; logverify checks each job's log after SIGKILL
. "$(dirname "$0")/lib.sh"
D=$TMP/d
mkdir -p "$D"
# A redolog job of 3 clones, killed once each job acknowledged commits and its
# write trace (stdio-buffered: SIGKILL loses the unwritten buffer) has reached the file.
"$FIO" --name=nj --ioengine="external:$B/redolog.so" --directory="$D" --numjobs=3 \
	--flavor=mysql --innodb_log_file_size=4m --bs=4k --iodepth=2 --rw=write --size=1g \
	--time_based --runtime=60 --lsn_file="$TMP/lsn" --write_trace="$TMP/trace" \
	--lat_json="$TMP/lat.json" >"$TMP/nj.out" 2>&1 &
trace_written() { [ -s "$TMP/trace.${1##*.}" ]; }
kill_when_acked --also trace_written $! nj 100000 300 "$TMP/lsn.1" "$TMP/lsn.2" "$TMP/lsn.3"
ls -l "$TMP" | grep -E 'lsn|trace' >"$TMP/ls"
cat "$TMP/ls"
[ ! -e "$TMP/lsn" ] || fail "a job wrote the unsuffixed sidecar $TMP/lsn (clones share it)"
for j in 1 2 3; do
	[ -s "$TMP/lsn.$j" ] || fail "job $j: no lsn_file.$j (its acknowledged LSN is recorded nowhere)"
	a=$(lsn_acked "$TMP/lsn.$j")
	[ "$a" -gt 0 ] || fail "job $j: lsn_file.$j shows nothing acknowledged"
	# the job's own log: the prefix in the sidecar names this job only
	pfx=$(dd if="$TMP/lsn.$j" bs=1 skip=40 count=32 2>/dev/null | tr -d '\0')
	[ "$pfx" = "job$j-" ] || fail "job $j: lsn_file.$j is for log prefix '$pfx', not job$j-"
	# the trace names only this job's files
	[ -s "$TMP/trace.$j" ] || fail "job $j: no write_trace.$j"
	other=$(grep -v "job$j-" "$TMP/trace.$j" | grep -c 'job[0-9]*-')
	[ "$other" = 0 ] || fail "job $j: write_trace.$j has $other lines of other jobs' files"
	"$B/logverify" --dir="$D" "$TMP/lsn.$j" >"$TMP/lv.$j" 2>&1 || { cat "$TMP/lv.$j"; fail "job $j: logverify after SIGKILL"; }
	ok "job $j: prefix $pfx, $a bytes acknowledged, $(cat "$TMP/lv.$j")"
done
# A clean end: every job writes its own lat_json (the store calls it made).
run_fio nj2 --name=nj2 --ioengine="external:$B/redolog.so" --directory="$D" --numjobs=3 \
	--flavor=mysql --innodb_log_file_size=4m --bs=4k --iodepth=2 --rw=write --size=1m \
	--log_prefix=c- --lat_json="$TMP/lat.json" --group_reporting=0 || { cat "$TMP/nj2.err"; fail "numjobs=3 run"; }
[ ! -e "$TMP/lat.json" ] || fail "a job wrote the unsuffixed lat_json (clones share it)"
tot=0
for j in 1 2 3; do
	[ -s "$TMP/lat.json.$j" ] || fail "job $j: no lat_json.$j"
	w=$(json "$TMP/lat.json.$j" "d['calls']['write']['count']")
	[ "$w" -gt 0 ] || fail "job $j: lat_json.$j shows no writes"
	tot=$((tot + w))
done
# the three files together hold the three jobs' writes: more than any one job made
one=$(json "$TMP/lat.json.1" "d['calls']['write']['count']")
[ "$tot" -gt "$one" ] || fail "lat_json.N are copies of one job"
ok "lat_json.1..3: $tot store writes in all"
# metastorm's table_json goes through the same path
run_fio ms --name=ms --ioengine="external:$B/metastorm.so" --directory="$D" --numjobs=3 \
	--number_ios=20 --table_json="$TMP/tab.json" || { cat "$TMP/ms.err"; fail "metastorm numjobs=3"; }
[ ! -e "$TMP/tab.json" ] || fail "metastorm: a job wrote the unsuffixed table_json"
for j in 1 2 3; do [ -s "$TMP/tab.json.$j" ] || fail "metastorm job $j: no table_json.$j"; done
ok "metastorm table_json.1..3"
