#!/bin/bash
# Description: calibration=NAME|PATH applies a profile through fio's parser in job order, also on a fio --server; none refused
# Tier: quick
# Timeout: 120
# In full: calibration=NAME (shipped: embedded at build time from jobs/<engine>-profiles/NAME.fio)
# or calibration=PATH applies the profile's key=value lines through fio's own parser at the place
# of calibration= in the job: fio's --debug=parse trace shows exactly the file's lines, in order,
# right after it (txn and metastorm); an option after it overrides it and one before it is
# overridden (rtt: a lower bound on fio's clat, the sleep can only be longer); a fio --server
# with no profile file applies the shipped one (its --debug=parse trace); a txn job without
# calibration refuses in one line, locally and on the server; an unknown name, an unreadable
# file, a line that is no option of the engine and a bad value each give one line naming
# calibration=, the value and the cause.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || fail "no TMP"
TXN=$B/txn.so MS=$B/metastorm.so
# a 2-transaction txn job of 7 statements each (pgbench's tpcb) in $TMP/d-NAME; JOB lines follow
job() {
	local n=$1; shift
	mkdir -p "$TMP/d-$n"
	{ printf '[%s]\nioengine=external:%s\ndirectory=%s\nrw=write\nnumber_ios=2\nscale=1\nshared_buffers=16m\n' \
		"$n" "$TXN" "$TMP/d-$n"; printf '%s\n' "$@"; } >"$TMP/$n.fio"
}
# trace NAME: the options fio's parser handled after calibration=, as "name=value" lines
trace() {
	sed -n 's/^\(<[^>]*> \)\?parse *[0-9]* *handle_option=\([a-z_]*\), ptr=\(.*\)$/\2=\3/p' "$1" |
		sed -n '/^calibration=/,$p' | tail -n +2
}
# the profile's option lines, as fio's job-file parser would take them
lines() { grep -v '^[[:space:]]*[;#]' "$1" | sed 's/[[:space:]]*$//' | grep .; }

# 1. the shipped profiles: exactly the file's lines, in order, through fio's parser (txn, metastorm)
for e in txn metastorm; do
	for p in "$REPO"/jobs/$e-profiles/*.fio; do
		name=$(basename "$p" .fio)
		"$FIO" --debug=parse --parse-only --name=t --ioengine="external:$B/$e.so" --calibration="$name" \
			--number_ios=1 >"$TMP/pt.out" 2>&1 || { tail "$TMP/pt.out"; fail "$e calibration=$name: fio refused it"; }
		diff <(lines "$p") <(trace "$TMP/pt.out" | head -n "$(lines "$p" | wc -l)") >"$TMP/diff" ||
			{ cat "$TMP/diff"; fail "$e calibration=$name: fio's parser did not take the lines of $p"; }
		ok "$e calibration=$name: fio's parser took the $(lines "$p" | wc -l) lines of jobs/$e-profiles/$name.fio"
	done
done

# 2. job order: an option after calibration= wins, one before it loses (rtt, 7 statements a transaction)
printf '; test profile\nrtt=60ms\n' >"$TMP/slow.fio"
job after "calibration=postgres15" "rtt=60ms"
job before "rtt=0" "calibration=$TMP/slow.fio"
job late "calibration=$TMP/slow.fio" "rtt=0"
for n in after before late; do
	run_fio $n "$TMP/$n.fio" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
	[ "$(json "$TMP/$n.json" "d['jobs'][0]['error']")" = 0 ] || fail "$n: fio error"
	eval "clat_$n=$(json "$TMP/$n.json" "int(d['jobs'][0]['write']['clat_ns']['min'] / 1e6)")"
done
# shellcheck disable=SC2154 # clat_*: set by the eval above
{ [ "$clat_after" -ge 360 ] && [ "$clat_before" -ge 360 ]; } ||
	fail "rtt=60ms after calibration=postgres15: min clat ${clat_after} ms; rtt=0 then a profile of rtt=60ms: ${clat_before} ms (at least 6 of its 7 statements x 60 ms = 360 ms wanted)"
# the profile after: its rtt is the one fio's parser left (its trace: the last rtt= handled)
"$FIO" --debug=parse --parse-only "$TMP/late.fio" >"$TMP/late.trace" 2>&1
[ "$(trace "$TMP/late.trace" | grep '^rtt=' | tail -1)" = rtt=0 ] || fail "late: rtt=0 after the profile is not the last rtt= fio's parser took"
# shellcheck disable=SC2154
ok "job order: rtt=60ms after calibration= (min clat $clat_after ms), a profile's rtt=60ms after rtt=0 ($clat_before ms) and rtt=0 after it (${clat_late} ms, fio's trace: rtt=0 last)"

# 3. no calibration: one line, nothing run; calibration=none runs
job nocal
"$FIO" --output-format=json --output="$TMP/nocal.json" "$TMP/nocal.fio" >"$TMP/nocal.out" 2>&1 && fail "nocal: fio succeeded"
grep -q '^txn: no calibration: set calibration=postgres15|mariadb1011, calibration=FILE written by lab/txncalib, or calibration=none' \
	"$TMP/nocal.out" || { cat "$TMP/nocal.out"; fail "nocal: no refusal line"; }
[ -z "$(ls -A "$TMP/d-nocal")" ] || fail "nocal: files made before the refusal: $(ls "$TMP/d-nocal")"
job none "calibration=none"
run_fio none "$TMP/none.fio" || { cat "$TMP/none.err"; fail "calibration=none: fio failed"; }
ok "no calibration: $(grep '^txn: no calibration' "$TMP/nocal.out" | cut -c1-60)...; calibration=none runs"

# 4. bad values: one line naming calibration=, the value and the cause
printf 'rtt=1ms\nno_such_option=1\n' >"$TMP/badkey.fio"
printf 'rtt=12uss\n' >"$TMP/badval.fio"
printf '[x]\nrtt=1ms\n' >"$TMP/section.fio"
bad() {	# bad ENGINE VALUE TEXT
	"$FIO" --name=b --ioengine="external:$B/$1.so" --directory="$TMP" --number_ios=1 --calibration="$2" \
		>"$TMP/bad.out" 2>&1 && fail "$1 calibration=$2: fio accepted it"
	grep -qF "$3" "$TMP/bad.out" || { cat "$TMP/bad.out"; fail "$1 calibration=$2: no line '$3'"; }
	ok "$1: $(grep -F "$3" "$TMP/bad.out")"
}
bad txn postgres1 "txn: calibration=postgres1: no txn profile of that name ships with dbfio (mariadb1011, postgres15;"
bad metastorm pg15 "metastorm: calibration=pg15: no metastorm profile of that name ships with dbfio (mariadb1011, postgres15;"
bad txn "$TMP/none/x.fio" "txn: calibration=$TMP/none/x.fio: cannot read the profile: No such file or directory"
bad txn "$TMP/badkey.fio" "txn: calibration=$TMP/badkey.fio, line 2 \"no_such_option=1\": not a txn option"
bad txn "$TMP/badval.fio" "txn: calibration=$TMP/badval.fio, line 1 \"rtt=12uss\": refused"
bad metastorm "$TMP/section.fio" "metastorm: calibration=$TMP/section.fio, line 1 \"[x]\": not a key=value line"

# 5. a fio --server with no profile file (its own empty working directory) applies the shipped
# profile; without calibration= its job refuses there
free_port() {
	local p=$((21000 + RANDOM % 8000))
	while ss -Htan "( sport = :$p )" | grep -q .; do p=$((p + 1)); done
	echo $p
}
mkdir -p "$TMP/srv"
P=$(free_port)
(cd "$TMP/srv" && "$FIO" --debug=parse --server=ip:127.0.0.1,$P --daemonize="$TMP/srv.pid" >"$TMP/srv.log" 2>&1) ||
	{ cat "$TMP/srv.log"; fail "fio --server"; }
stop_server() { local p; p=$(cat "$TMP/srv.pid" 2>/dev/null) && [ -n "$p" ] && kill "$p" 2>/dev/null; }
at_exit stop_server
for _ in $(seq 100); do ss -Hltn "( sport = :$P )" | grep -q . && break; sleep 0.1; done
# (the server's --debug=parse trace comes back in the client's output, lines "<host> parse ...";
# fio's JSON would hold it too, so the human output's issued count is the oracle)
job cs "calibration=postgres15" "client_cpu_per_stmt=0"
"$FIO" --client=127.0.0.1,$P "$TMP/cs.fio" >"$TMP/cs.out" 2>&1 ||
	{ cat "$TMP/cs.out" "$TMP/srv.log"; fail "fio --client failed"; }
grep -q 'issued rwts: total=0,2,0' "$TMP/cs.out" || { cat "$TMP/cs.out" "$TMP/srv.log"; fail "client/server: not 2 transactions"; }
diff <(lines "$REPO/jobs/txn-profiles/postgres15.fio"; echo client_cpu_per_stmt=0) \
	<(trace "$TMP/cs.out" | head -n "$(($(lines "$REPO/jobs/txn-profiles/postgres15.fio" | wc -l) + 1))") >"$TMP/diff" ||
	{ cat "$TMP/diff"; fail "the server's parser did not take postgres15's lines, then the override"; }
job csnone
"$FIO" --client=127.0.0.1,$P "$TMP/csnone.fio" >"$TMP/csnone.out" 2>&1
grep -q 'txn: no calibration' "$TMP/srv.log" "$TMP/csnone.out" || { cat "$TMP/srv.log" "$TMP/csnone.out"; fail "the server ran a txn job without calibration"; }
[ -z "$(ls -A "$TMP/d-csnone")" ] || fail "the server's uncalibrated job made files"
ok "fio --server (no profile file there): calibration=postgres15 applied by its parser, then the override; no calibration refused there"
