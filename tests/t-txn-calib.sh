#!/bin/bash
# Description: lab/txncalib refuses a busy host; writes a profile whose CPU and latency match the real databases
# Timeout: 400
# In full: lab/txncalib refuses a busy host (a wake-up round trip over --max-wakeup-us) in one line,
# writing nothing; it runs real PostgreSQL 15 (pgbench) and MariaDB 10.11 (sysbench) briefly and
# writes a profile that a txn job includes: rtt, cpu_per_stmt, background_cpu (the server's tasks
# alive through the run, /proc: below a third of its CPU), txn_log_bytes from the database's own log
# counters (within hand-derived bounds), MariaDB's background_log_share from strace (10..70) and pages
# per statement in its header; --groups reads PostgreSQL's WAL flush count; fitted on the txn engine
# (--working-set 0, the spin: a working set's CPU moves with the caches other processes leave it,
# t-txn-workingset): one connection of the profile costs fio the CPU (wait4 rusage, the median of 3
# runs) a real transaction cost the server and client (/proc, getrusage) within 0.85..1.10, and its
# latency (the median of 3 runs) is within 0.85..1.15 of the real client's; the commit's commit_cpu
# and flush_wait make the model's durable commit (fio's clat, flushed on disk against unflushed on
# tmpfs) rise as the real one did in the header; bad arguments refused in one line
. "$(dirname "$0")/lib.sh"
timing_test
# Timing assertions (skipped on a busy host): background_cpu's share of the
# server's CPU, MariaDB's background_log_share, the model's CPU, latency and
# commit rise against the real ones. Hard checks: every refusal, every run
# and what the profile must hold (its lines, rtt, cpu_per_stmt, log bytes and
# pages a statement from the databases' own counters, the header), nothing left.
[ "$(id -u)" = 0 ] || skip "needs root (runs postgres as user postgres)"
[ -x /usr/lib/postgresql/15/bin/pgbench ] && command -v mariadbd >/dev/null && command -v sysbench >/dev/null ||
	fail "PostgreSQL 15, MariaDB or sysbench missing (tools/deps --with fidelity installs them)"
chmod 755 "$TMP"
WAL=$(mktemp -d /dev/shm/dbfio-test.XXXXXX)
at_exit 'rm -rf "$WAL"'
"$REPO/lab/txncalib" --db postgres --dir "$TMP" --seconds 0 >"$TMP/bad.out" 2>&1 && fail "--seconds 0 accepted"
grep -q "at least 1" "$TMP/bad.out" || { cat "$TMP/bad.out"; fail "--seconds 0: no reason given"; }
# a busy host (here: any, --max-wakeup-us 0) is refused before anything runs:
# one line, no profile, nothing left in --dir
"$REPO/lab/txncalib" --db mariadb --dir "$TMP" --max-wakeup-us 0 --seconds 1 --rows 1000 --no-model \
	--commit-rounds 1 --commit-seconds 1 --out "$TMP/busy.fio" >"$TMP/busy.out" 2>&1 &&
	fail "--max-wakeup-us 0 accepted"
[ "$(wc -l <"$TMP/busy.out")" = 1 ] && grep -q "host is busy now: a wake-up round trip .* took [0-9]* us" "$TMP/busy.out" ||
	{ cat "$TMP/busy.out"; fail "a busy host: not refused in one line naming the round trip"; }
[ ! -e "$TMP/busy.fio" ] && [ -z "$(ls "$TMP" | grep txncalib)" ] || fail "a busy host: a profile or directory left"
ok "$(cat "$TMP/busy.out")"
for db in postgres mariadb; do
	rows=$([ $db = mariadb ] && echo 100000 || echo 2000)
	"$REPO/lab/txncalib" --db $db --dir "$TMP" --seconds 3 --scale 1 --rows $rows --working-set 0 \
		--commit-rounds 1 --commit-seconds 3 --max-wakeup-us 1e6 $([ $db = postgres ] && echo --groups 2) --out "$TMP/$db.fio" >"$TMP/$db.out" 2>&1 ||
		{ cat "$TMP/$db.out"; fail "$db: txncalib failed"; }
	grep "^txncalib: the txn engine" "$TMP/$db.out"
	if [ $db = postgres ]; then
		grep -q "pgbench -c 2 .* commits per flush" "$TMP/$db.out" || { cat "$TMP/$db.out"; fail "--groups 2: no line"; }
		ok "$(grep 'commits per flush' "$TMP/$db.out")"
	fi
	rtt=$(sed -n 's/^rtt=\([0-9]*\)us$/\1/p' "$TMP/$db.fio")
	cpu=$(sed -n 's/^cpu_per_stmt=\([0-9]*\)us$/\1/p' "$TMP/$db.fio")
	# (cpu_per_stmt may be 0: where the engine's own calls cost a slow hour's
	# machine what the real transaction did, 0.83 ms against 0.77 here, the fit
	# rightly leaves nothing to burn; the CPU check below still holds it)
	[ -n "$rtt" ] && [ -n "$cpu" ] || { cat "$TMP/$db.fio"; fail "$db: no rtt/cpu_per_stmt in the profile"; }
	# the server's background (its tasks alive through the run, not the
	# connection's): some, and far less than the server's CPU (1-3 % here)
	bgc=$(sed -n 's/^background_cpu=\([0-9]*\)us$/\1/p' "$TMP/$db.fio")
	scpu=$(sed -n 's/^; server CPU \([0-9.]*\) ms a transaction .*/\1/p' "$TMP/$db.fio")
	[ -n "$bgc" ] && [ -n "$scpu" ] ||
		{ cat "$TMP/$db.fio"; fail "$db: no background_cpu= or server CPU line in the profile"; }
	timing_check "$bgc / 1000 <= $scpu / 3" \
		"$db: background_cpu=${bgc}us: not below a third of the server's ${scpu} ms"
	ok "$db: background_cpu=${bgc}us of the server's ${scpu} ms ($(grep -o 'on its background [a-z]*' "$TMP/$db.fio"))"
	grep -qx "cpu_working_set=0" "$TMP/$db.fio" || { cat "$TMP/$db.fio"; fail "$db: --working-set 0 not written as cpu_working_set=0"; }
	# log bytes a transaction, hand-derived bounds: tpcb logs 4 row changes, an index
	# entry and a commit record (PostgreSQL: ~50-150 bytes each, no full-page images);
	# oltp_read_write changes 4 rows in 2 indexes with their undo (InnoDB: 0.5-8 kB)
	lb=$(sed -n 's/^txn_log_bytes=\([0-9]*\)$/\1/p' "$TMP/$db.fio")
	if [ $db = postgres ]; then lo=200 hi=2000; else lo=500 hi=8000; fi
	[ -n "$lb" ] && [ "$lb" -ge $lo ] && [ "$lb" -le $hi ] ||
		{ cat "$TMP/$db.fio"; fail "$db: txn_log_bytes=$lb, not within $lo..$hi"; }
	# the background's share of the redo (MariaDB): the once-a-second writes'
	# share of the log's new bytes under strace, 0.37..0.47 here (docs/txn.md);
	# none at all or most of it would be a misread trace. (A 2000-row table
	# makes no such writes: MariaDB's calibration uses sysbench's 100000.)
	if [ $db = mariadb ]; then
		ps=$(sed -n 's/^background_log_share=\([0-9]*\)$/\1/p' "$TMP/$db.fio")
		[ -n "$ps" ] || { cat "$TMP/$db.out"; fail "$db: no background_log_share= in the profile"; }
		# (how much of the redo the once-a-second writes carry moves with how
		# many commits the host let run between them: a timing assertion)
		timing_check "10 <= $ps <= 70" "$db: background_log_share=$ps, not within 10..70"
		grep -q "^;   [0-9]* writes of >= 32768 new bytes (.* s apart) carry " "$TMP/$db.fio" ||
			{ cat "$TMP/$db.fio"; fail "$db: no line on the background's share in the header"; }
		ok "$db: background_log_share=$ps ($(grep -o '[0-9]* writes of >= 32768 new bytes ([0-9.]* s apart)' "$TMP/$db.fio"))"
	fi
	# pages a statement: the database counts inner B-tree pages too, so more than
	# the one leaf per row the engine touches, and far fewer than a table scan
	pps=$(sed -n 's/^; measured: pages_per_stmt=\([0-9.]*\) .*/\1/p' "$TMP/$db.fio")
	awk -v p="$pps" 'BEGIN { exit !(p > 1 && p < 50) }' ||
		{ cat "$TMP/$db.fio"; fail "$db: pages_per_stmt=$pps, not within 1..50"; }
	grep -q "^;   lab/txncalib .*--out $TMP/$db.fio" "$TMP/$db.fio" || fail "$db: the command is not in the header"
	# how the VM's idle vCPUs waited, as the kernel says (sysfs read here, not by dbfio.host)
	hp=/sys/module/haltpoll/parameters/guest_halt_poll_ns
	if [ -r $hp ]; then want="guest_halt_poll_ns=$(cat $hp) "; else want="no cpuidle-haltpoll"; fi
	grep -q "^; $want" "$TMP/$db.fio" || { cat "$TMP/$db.fio"; fail "$db: the header does not say '$want'"; }
	ls "$TMP" | grep -q '^txncalib-' && fail "$db: data directory left behind"
	# the profile is a txn calibration= file
	mkdir -p "$TMP/d-$db"
	printf '[t]\nioengine=external:%s\ncalibration=%s\ndirectory=%s\nrw=write\nnumber_ios=5\nflavor=%s\ntxn_profile=%s\n' \
		"$B/txn.so" "$TMP/$db.fio" "$TMP/d-$db" "$db" "$([ $db = postgres ] && echo tpcb || echo oltp_read_write)" \
		>"$TMP/$db-job.fio"
	run_fio $db-job "$TMP/$db-job.fio" || { cat "$TMP/$db-job.err"; fail "$db: fio refused the profile"; }
	grep -q "cpu_burned_ms=" "$TMP/$db-job.err" || fail "$db: no connection line"
	# this machine's CPU figure, and the job takes it as its profile's
	ref=$(sed -n 's/^cpu_ref=//p' "$TMP/$db.fio")
	[ -n "$ref" ] && [ "$ref" -gt 0 ] || { cat "$TMP/$db.fio"; fail "$db: no cpu_ref= in the profile"; }
	grep -q "^txn: cpu: host cpu_ref=[0-9]*ns, profile cpu_ref=${ref}ns: factor " "$TMP/$db-job.err" ||
		fail "$db: the job did not take the profile's cpu_ref=$ref: $(grep '^txn: cpu' "$TMP/$db-job.err")"
	ok "$db: rtt=${rtt}us cpu_per_stmt=${cpu}us txn_log_bytes=$lb pages_per_stmt=$pps, the job naming it as calibration= ran"
	# the profile is fitted on the txn engine: one connection of it costs the
	# machine the CPU a real transaction did. The oracle: the
	# server's (/proc) and pgbench's/sysbench's (getrusage) CPU in the header,
	# against fio's whole CPU here (wait4 rusage), log on tmpfs, tables cached
	real=$(sed -n 's/^; server CPU \([0-9.]*\) ms a transaction .*client CPU \([0-9.]*\) ms$/\1 \2/p' "$TMP/$db.fio" |
		awk '{ print $1 + $2 }')
	[ -n "$real" ] || { cat "$TMP/$db.fio"; fail "$db: no server/client CPU line in the header"; }
	grep -q "^;    then fitted on the txn engine" "$TMP/$db.fio" || fail "$db: no lines on the fit on the txn engine"
	mkdir -p "$TMP/m-$db" "$WAL/$db"
	m=("$FIO" --name=m --ioengine="external:$B/txn.so" --calibration=none --directory="$TMP/m-$db" --waldir="$WAL/$db" --rw=write
		--time_based --flavor=$db --txn_prewarm=1
		$(sed -n 's/^\(rtt\|cpu_per_stmt\|client_cpu_per_stmt\|cpu_after_reply\|txn_log_bytes\|background_log_share\|background_cpu\|cpu_working_set\)=/--&/p' "$TMP/$db.fio"))
	if [ $db = postgres ]; then m+=(--txn_profile=tpcb --scale=1)
	else m+=(--txn_profile=oltp_read_write --table_size=$rows --innodb_flush_log_at_trx_commit=0); fi
	"${m[@]}" --runtime=1 >"$TMP/m-$db.load" 2>&1 || { cat "$TMP/m-$db.load"; fail "$db: the load run failed"; }
	# three runs, their median: one short run on a busy machine moved by
	# 0.80..1.12 of the fit (CI and after it, 2026-12-03), more than the fit
	# itself is off; the median of three is what is checked, each run shown
	for r in 1 2 3; do
		fcpu=$(py rusage "${m[@]}" --runtime=4 --output-format=json --output="$TMP/m-$db-$r.json" 2>"$TMP/m-$db.err") ||
			{ cat "$TMP/m-$db.err"; fail "$db: the measured run $r failed"; }
		n=$(json "$TMP/m-$db-$r.json" "d['jobs'][0]['write']['total_ios']")
		l=$(json "$TMP/m-$db-$r.json" "d['jobs'][0]['write']['clat_ns']['mean'] / 1e6")
		echo "$db: run $r: fio CPU $fcpu s for $n transactions, latency $l ms; the real server + client: $real ms a transaction"
		echo "$fcpu $n $l" >>"$TMP/m-$db.runs"
	done
	# (fitted with the spin, 0.96..0.98 here: with cpu_working_set=4m the
	# model's CPU a transaction moved with the caches other processes left
	# it, 0.80..1.33 of the fit's own last run in CI, more than a fit can be
	# checked against; not fitted, the first run is 1.18..1.43. The real
	# CPU was measured minutes before these runs: in a CI run the whole
	# machine was 10 % slower by then (the fit's runs 0.344 ms, these three
	# 0.364-0.369, latency alike), so up to 1.10: the fit left uncorrected
	# (mutant txncalib-overhead-kept) is 1.12..1.43)
	read -r r1 r2 r3 < <(awk -v r="$real" '{ print $1 * 1000 / $2 / r }' "$TMP/m-$db.runs" | sort -g | tr '\n' ' ')
	echo "fio/real CPU a transaction: $r1 $r2 $r3, median $r2"
	timing_check "0.85 < $r2 < 1.10" \
		"$db: a modelled transaction's CPU is not within 0.85..1.10 of the real one's (the median of 3 runs; not fitted on the engine: 1.12-1.43)"
	ok "$db: a modelled transaction costs the CPU the real one did (fio's rusage, the median of 3 runs)"
	# and lasts what the real one lasted (commit as cheap as in the real run):
	# the oracle is the client's latency in the header (pgbench's "latency
	# average", sysbench's avg)
	rlat=$(sed -n 's/^; .*: [0-9]* transactions, latency \([0-9.]*\) ms, .*/\1/p' "$TMP/$db.fio")
	[ -n "$rlat" ] || { cat "$TMP/$db.fio"; fail "$db: no real latency in the header"; }
	read -r lat1 lat2 lat3 < <(awk '{ print $3 }' "$TMP/m-$db.runs" | sort -g | tr '\n' ' ')
	echo "model/real latency: $lat2 (median of $lat1 $lat2 $lat3) / $rlat ms = $(py calc "round($lat2 / $rlat, 2)")"
	timing_check "0.85 < $lat2 / $rlat < 1.15" \
		"$db: one modelled connection's latency is not within 0.85..1.15 of the real one's (the median of 3 runs)"
	ok "$db: one modelled connection lasts what the real transaction lasted (fio's clat against the client's)"
	# the commit: with the profile's commit_cpu and flush_wait, the model's
	# commit (flushed in a local directory against unflushed on tmpfs, fio's
	# clat) rises by what the real one rose in the header (the client's
	# latency, durable against asynchronous), or by its own log calls' cost
	# where the real rise was less than that (then both are 0), within 20 % +
	# 0.1 ms (the model's rise in 3 s runs moves by 0.1 ms from run to run here)
	grep -q "^commit_cpu=[0-9]*us$" "$TMP/$db.fio" && grep -q "^flush_wait=[0-9]*us$" "$TMP/$db.fio" ||
		{ cat "$TMP/$db.fio"; fail "$db: no commit_cpu= / flush_wait= in the profile"; }
	read -r rrise mrise < <(sed -n 's/^;   medians of the rises: real \([-+0-9.]*\) ms latency, .*; model \([-+0-9.]*\), .*/\1 \2/p' "$TMP/$db.fio")
	[ -n "$mrise" ] || { cat "$TMP/$db.fio"; fail "$db: no line on the commit's rises in the header"; }
	mkdir -p "$TMP/w-$db"
	"${m[@]}" --runtime=3 --output-format=json --output="$TMP/c0-$db.json" >"$TMP/c0-$db.err" 2>&1 ||
		{ cat "$TMP/c0-$db.err"; fail "$db: the unflushed run failed"; }
	"${m[@]}" --runtime=3 --waldir="$TMP/w-$db" --innodb_flush_log_at_trx_commit=1 \
		$(sed -n 's/^\(commit_cpu\|flush_wait\)=/--&/p' "$TMP/$db.fio") \
		--output-format=json --output="$TMP/c1-$db.json" >"$TMP/c1-$db.err" 2>&1 ||
		{ cat "$TMP/c1-$db.err"; fail "$db: the flushed run failed"; }
	l0=$(json "$TMP/c0-$db.json" "d['jobs'][0]['write']['clat_ns']['mean'] / 1e6")
	l1=$(json "$TMP/c1-$db.json" "d['jobs'][0]['write']['clat_ns']['mean'] / 1e6")
	e=$(py calc "max($rrise, $mrise)") x=$(py calc "round($l1 - $l0, 3)")
	echo "the commit: model $x ms ($l0 -> $l1), expected $e (real $rrise, the calls alone $mrise)"
	timing_check "$e * 0.8 - 0.1 < $x < $e * 1.2 + 0.1" \
		"$db: with commit_cpu and flush_wait the model's commit does not cost what the real one did"
	ok "$db: $(grep -E '^(commit_cpu|flush_wait)=' "$TMP/$db.fio" | tr '\n' ' ')make the model's commit cost the real one's"
done
