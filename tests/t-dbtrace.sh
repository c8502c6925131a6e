#!/bin/bash
# Description: lab/dbtrace: real PostgreSQL pgbench, MariaDB DDL and both databases' INSERTs traced by file role
# Timeout: 240
# In full: lab/dbtrace: real PostgreSQL pgbench, MariaDB DDL and both databases' INSERTs traced by
# file role, everything cleaned up
. "$(dirname "$0")/lib.sh"
DBTRACE=$REPO/lab/dbtrace
[ "$(id -u)" = 0 ] || skip "lab/dbtrace needs root"

# need_db BINARY: install the fidelity packages when BINARY is missing.
# Returns 1 when they cannot be installed (a failure in CI).
need_db() {
	[ -x "$1" ] || command -v "$1" >/dev/null && return 0
	"$REPO/tools/deps" --with fidelity >"$TMP/deps.log" 2>&1 && { [ -x "$1" ] || command -v "$1" >/dev/null; } && return 0
	cat "$TMP/deps.log"
	[ "${CI:-}" = true ] && fail "cannot install $1 (tools/deps --with fidelity)"
	return 1
}

# left_behind DIR: processes still running inside DIR (servers chdir to their data directory)
left_behind() {
	local p
	for p in /proc/[0-9]*; do
		case "$(readlink "$p/cwd" 2>/dev/null)" in "$1"/*) echo "${p#/proc/} $(tr '\0' ' ' <"$p/cmdline")" ;; esac
	done
}

# after_run NAME DIR MODE: the target is as it was: empty, same mode, nobody inside
after_run() {
	[ -z "$(ls -A "$2")" ] || fail "$1: $2 not left empty: $(ls -A "$2")"
	[ "$(stat -c %a "$2")" = "$3" ] || fail "$1: mode of $2 changed from $3 to $(stat -c %a "$2")"
	local left
	left=$(left_behind "$2")
	[ -z "$left" ] || fail "$1: processes left running: $left"
}

# refusals come with a one-line reason
out=$("$DBTRACE" --db postgres --dir "$TMP/nonexistent" --workload ddl 2>&1) && fail "a missing target was accepted"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "more than one line for a missing target: $out"
ok "missing target refused: $out"
"$DBTRACE" --help | grep -q -- "--workload" || fail "--help does not describe --workload"

# PostgreSQL: pgbench, 2 clients, 5 s
need_db /usr/lib/postgresql/15/bin/postgres || skip "postgresql-15 cannot be installed"
chmod 711 "$TMP"	# user postgres must be able to reach the targets below
mkdir -p "$TMP/shut/in"
chmod 700 "$TMP/shut"	# user postgres cannot reach shut/in; dbtrace opens up only TARGET_DIR itself
out=$("$DBTRACE" --db postgres --dir "$TMP/shut/in" --workload ddl 2>&1) && fail "an unreachable target was accepted"
case $out in "dbtrace: user postgres cannot search $TMP/shut (mode 700)"*) ;; *) fail "unreachable target: $out" ;; esac
after_run "postgres (refused)" "$TMP/shut/in" "$(stat -c %a "$TMP/shut/in")"
ok "unreachable target refused: $out"
mkdir -p "$TMP/pg"
chmod 700 "$TMP/pg"
"$DBTRACE" --db postgres --dir "$TMP/pg" --workload pgbench --clients 2 --seconds 5 --scale 2 \
	--json "$TMP/pg.json" --md "$TMP/pg.md" >"$TMP/pg.out" 2>&1 || { cat "$TMP/pg.out"; fail "dbtrace postgres pgbench failed"; }
after_run postgres "$TMP/pg" 700
T="d['traced']['phases']['transaction']['roles']"
tps=$(json "$TMP/pg.json" "d['untraced']['tps']") || fail "pg.json does not parse"
py check "$tps > 0" || fail "tps is $tps"
wal_sync=$(json "$TMP/pg.json" "${T}['wal']['syncs_per_op']")
wal_w=$(json "$TMP/pg.json" "${T}['wal']['writes']['per_op']")
wal_b=$(json "$TMP/pg.json" "${T}['wal']['writes']['mean_bytes']")
probes=$(json "$TMP/pg.json" "${T}['data']['calls'].get('lseek_end', {}).get('per_op', 0)")
data_w=$(json "$TMP/pg.json" "${T}.get('data', {}).get('writes', {}).get('per_op', 0)")
py check "$wal_sync > 0 and $wal_w > 0" ||
	fail "no WAL writes or syncs per transaction (writes $wal_w, syncs $wal_sync)"
grep -q '^| wal | fdatasync' "$TMP/pg.md" || fail "the Markdown table has no WAL fdatasync row"
ok "postgres pgbench: $tps tps; per transaction: WAL $wal_w writes (mean $wal_b B), $wal_sync syncs; data writes $data_w; size probes $probes"

# ... and interrupted half-way: one line, and still nothing left behind
mkdir -p "$TMP/pgint"
mode=$(stat -c %a "$TMP/pgint")
"$DBTRACE" --db postgres --dir "$TMP/pgint" --workload pgbench --clients 2 --seconds 60 --scale 2 \
	>"$TMP/pgint.out" 2>"$TMP/pgint.err" &
pid=$!
for _ in $(seq 100); do [ -n "$(left_behind "$TMP/pgint")" ] && break; sleep 0.1; done
sleep 3
kill -TERM $pid
wait $pid && fail "dbtrace exited 0 after SIGTERM"
grep -q "^dbtrace: interrupted by SIGTERM$" "$TMP/pgint.err" || fail "no one-line reason after SIGTERM: $(cat "$TMP/pgint.err")"
after_run "postgres (interrupted)" "$TMP/pgint" "$mode"
ok "postgres interrupted: $(cat "$TMP/pgint.err"), cleaned up"

# insert_run DB ROLE: 40 autocommit INSERTs timed by the database's own client
# (pgbench -f / sysbench): 40 latencies, and strace saw one log sync each.
# --dir is relative (from $TMP): mariadb-install-db runs from another directory
insert_run() {
	mkdir -p "$TMP/ins-$1"
	(cd "$TMP" && "$DBTRACE" --db "$1" --dir "ins-$1" --workload insert --rows 40 \
		--json "$TMP/ins-$1.json") >"$TMP/ins-$1.out" 2>&1 || { cat "$TMP/ins-$1.out"; fail "dbtrace $1 insert failed"; }
	after_run "$1 insert" "$TMP/ins-$1" "$(stat -c %a "$TMP/ins-$1")"
	local n syncs mean
	n=$(json "$TMP/ins-$1.json" "d['untraced']['insert']['n']") || fail "ins-$1.json does not parse"
	[ "$n" = 40 ] || fail "$1 insert: $n latencies for 40 INSERTs"
	syncs=$(json "$TMP/ins-$1.json" "d['traced']['phases']['insert']['roles']['$2']['syncs_per_op']")
	py check "0.9 <= $syncs <= 1.1" || fail "$1 insert: $syncs $2 syncs per INSERT (strace), not one a commit"
	mean=$(json "$TMP/ins-$1.json" "'%.3f' % d['untraced']['insert']['mean_ms']")
	py check "0 < $mean < 1000" || fail "$1 insert: mean latency $mean ms"
	ok "$1 insert: 40 INSERTs, mean $mean ms; $syncs $2 syncs each (strace)"
}
insert_run postgres wal

# MariaDB: 5 x CREATE TABLE / DROP TABLE
need_db mariadbd || skip "mariadb cannot be installed (postgres part passed)"
mkdir -p "$TMP/my"
mode=$(stat -c %a "$TMP/my")
"$DBTRACE" --db mariadb --dir "$TMP/my" --workload ddl --tables 5 \
	--json "$TMP/my.json" >"$TMP/my.out" 2>&1 || { cat "$TMP/my.out"; fail "dbtrace mariadb ddl failed"; }
after_run mariadb "$TMP/my" "$mode"
C="d['traced']['phases']['create_table']['roles']"
D="d['traced']['phases']['drop_table']['roles']"
ibd=$(json "$TMP/my.json" "${C}['data']['calls'].get('openat_creat', {}).get('count', 0)") || fail "my.json does not parse"
[ "$ibd" = 5 ] || fail "5 CREATE TABLE created $ibd .ibd files"
syncs=$(json "$TMP/my.json" "sum(r['syncs_per_op'] for r in $C.values())")
py check "$syncs >= 1" || fail "CREATE TABLE synced $syncs times"
unl=$(json "$TMP/my.json" "${D}['data']['calls'].get('unlink', {}).get('count', 0)")
[ "$unl" = 5 ] || fail "5 DROP TABLE unlinked $unl .ibd files"
lat=$(json "$TMP/my.json" "'%.2f ms / %.2f ms' % (d['untraced']['create_table']['mean_ms'], d['untraced']['drop_table']['mean_ms'])")
ok "mariadb ddl: CREATE / DROP TABLE $lat; per CREATE $syncs syncs, one .ibd created, one unlinked per DROP"
insert_run mariadb redo
