#!/bin/bash
# Description: redolog group commit on posix: at iodepth 16 the flushes (sync.lat_ns.N) are far fewer than the commits
# Timeout: 120
# In full: redolog group commit on posix: at iodepth 16 the flushes (sync.lat_ns.N) are far fewer than
# the commits; iodepth 1 flushes once per commit
. "$(dirname "$0")/lib.sh"
E=$B/redolog.so
for fl in mysql postgres; do
	for qd in 1 16; do
		n=$fl-qd$qd
		mkdir -p "$TMP/$n"
		run_fio "$n" --name="$n" --ioengine="external:$E" --directory="$TMP/$n" --rw=write --flavor=$fl \
			--bs=512 --number_ios=2000 --iodepth=$qd --innodb_log_file_size=4m --wal_segment_size=1m \
			--lat_json="$TMP/$n.lat.json" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
		commits=$(json "$TMP/$n.json" "d['jobs'][0]['write']['total_ios']")
		flushes=$(json "$TMP/$n.json" "d['jobs'][0]['sync']['lat_ns']['N']")
		store=$(json "$TMP/$n.lat.json" "d['calls']['fsync']['count'] + d['calls']['fdatasync']['count']")
		[ "$commits" = 2000 ] || fail "$n: $commits commits, expected 2000"
		# the store also saw the zero-fill fsyncs of log creation (one per file + meta)
		[ "$store" -ge "$flushes" ] || fail "$n: store saw $store flushes, fio $flushes"
		if [ $qd = 1 ]; then
			[ "$flushes" = "$commits" ] || fail "$n: $flushes flushes for $commits commits at iodepth 1"
		else
			[ $((flushes * 4)) -lt "$commits" ] || fail "$n: $flushes flushes for $commits commits at iodepth 16"
		fi
		ok "$n: $commits commits, $flushes flushes (store: $store syncs), commit clat p50 $(json "$TMP/$n.json" "d['jobs'][0]['write']['clat_ns']['percentile']['50.000000']") ns, $(json "$TMP/$n.json" "round(d['jobs'][0]['write']['iops'])") commits/s"
	done
done
