#!/bin/bash
# Description: txn's per-database summary (stderr, summary_json) agrees with fio's JSON: transactions, tps, latency, group commit
# Tier: quick
# In full: two databases (3 and 2 connections, a reporting group each) run at once on store=posix;
# each database's summary is printed once, by its last connection, and written to its summary_json;
# its transactions equal fio's total ios, its tps fio's IOPS, its latency average fio's clat mean,
# its p95 and p99 lie between fio's clat percentiles one point lower and their own (fio's sample of
# an io holds txn's, and a preemption between their stamps lengthens only fio's), its commits per
# flush fio's ios over the fdatasync calls
# strace saw in that database's directory, its connections the jobs';
# with ramp_time, the transactions of the ramp are left out as fio leaves them out; a shipped
# profile is named with the machine and date of its header.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed (tools/deps installs it)"
mkdir -p "$TMP/a" "$TMP/b"
# row_locks=0 and a slow flush: commits queue behind each flush and group
strace -f -qq -y -e trace=fdatasync -o "$TMP/st" "$FIO_BIN" --output-format=json \
	--output="$TMP/out.json" --group_reporting=1 --percentile_list=94:95:98:99 --time_based --runtime=3 \
	--ioengine="external:$B/txn.so" --calibration=none --rw=write --flavor=postgres --scale=1 \
	--shared_buffers=16m --wal_segment_size=1m --rtt=50us --row_locks=0 --debug_flush_delay=2ms \
	--name=a --directory="$TMP/a" --numjobs=3 --summary_json="$TMP/a.json" \
	--name=b --new_group --directory="$TMP/b" --numjobs=2 --summary_json="$TMP/b.json" \
	2>"$TMP/err" || { cat "$TMP/err"; fail "fio failed"; }
crash_check txn 0 "$TMP/err"
grep -A11 "^txn: summary of" "$TMP/err"
[ ! -e "$TMP/a.json.1" ] && [ ! -e "$TMP/b.json.4" ] || fail "summary_json got a job's .N suffix: it is the database's"
py txn-summary "$TMP/out.json" "$TMP/err" "$TMP/st" "$TMP/a:0:3:$TMP/a.json" "$TMP/b:1:2:$TMP/b.json" ||
	fail "the summary disagrees with fio's JSON or strace"
ok "two databases: one summary each, agreeing with fio's JSON and strace"

# a shipped profile: the summary names it and the machine and date of its header
run_fio ramp --group_reporting=1 --percentile_list=94:95:98:99 --time_based --runtime=2 --ramp_time=1 --ioengine="external:$B/txn.so" \
	--calibration=postgres15 --rw=write --flavor=postgres --scale=1 --shared_buffers=16m --wal_segment_size=1m \
	--rtt=50us --name=r --directory="$TMP/a" --numjobs=2 --summary_json="$TMP/r.json" ||
	{ cat "$TMP/ramp.err"; fail "ramp: fio failed"; }
py txn-summary "$TMP/ramp.json" "$TMP/ramp.err" - "$TMP/a:0:2:$TMP/r.json" ||
	fail "ramp_time=1: the summary disagrees with fio's JSON"
ok "ramp_time=1: the summary leaves out the ramp's transactions, as fio does"
host=$(sed -n '2{s/^; *//;s/, calibrated by:$//;p}' "$REPO/jobs/txn-profiles/postgres15.fio")
[ -n "$host" ] || fail "jobs/txn-profiles/postgres15.fio: no second header line"
grep "^calibration: postgres15 " "$TMP/ramp.err" | grep -qF "$host" ||
	fail "the summary's calibration line does not name postgres15 and its header's '$host'"
json "$TMP/r.json" 'd["calibration"]' | grep -qF "$host" || fail "summary_json: no '$host' in calibration"
ok "calibration=postgres15: the summary names the profile and '$host'"
