#!/bin/bash
# Description: txn cpu_working_set_shared: MariaDB's connections share one set, PostgreSQL's own one each (peak RSS)
# Tier: quick
# Timeout: 200
# In full: a threaded server's connections (MariaDB, MySQL) work over one memory, a process per
# connection (PostgreSQL) each over its own: with cpu_working_set=32m and 8 connections, fio's peak
# resident set (the kernel's wait4 ru_maxrss, not the engine's count) holds one 32 MB set for
# flavor=mariadb and eight for flavor=postgres; private / shared override the flavor's choice, and
# two jobs of one database that disagree on the shared set are refused in one line.
. "$(dirname "$0")/lib.sh"
WS=32	# MB
N=8
# rss NAME ARGS...: $NAME = fio's peak resident set in MB, 8 connections, read-only for 1 s (all at once)
rss() {
	local n=$1 out; shift
	mkdir -p "$TMP/$n"
	out=$(py rusage-csw "$FIO" --output="$TMP/$n.out" --name="$n" --ioengine="external:$B/txn.so" \
		--calibration=none --directory="$TMP/$n" --rw=write --txn_profile=read_only --table_size=1000 \
		--numjobs=$N --time_based --runtime=1 --cpu_working_set=${WS}m "$@" 2>"$TMP/$n.err") ||
		{ cat "$TMP/$n.err"; fail "$n: fio failed"; }
	printf -v "$n" '%s' "$(py calc "round(${out##* } / 1024)")"
	echo "$n ($*): peak RSS ${!n} MB"
}
for f in mariadb postgres; do
	rss "${f}_auto" --flavor=$f
	rss "${f}_private" --flavor=$f --cpu_working_set_shared=private
	rss "${f}_shared" --flavor=$f --cpu_working_set_shared=shared
	p=${f}_private s=${f}_shared
	# private holds N - 1 sets more than shared: at least N - 2 of them
	py check "${!p} - ${!s} >= ($N - 2) * $WS" ||
		fail "flavor=$f: private ${!p} MB, shared ${!s} MB: not about $((N - 1)) working sets of $WS MB apart"
done
py check "abs($mariadb_auto - $mariadb_shared) < $WS" ||
	fail "flavor=mariadb, not given: ${mariadb_auto} MB, as shared (${mariadb_shared} MB) wanted: MariaDB's connections are threads"
py check "abs($postgres_auto - $postgres_private) < $WS" ||
	fail "flavor=postgres, not given: ${postgres_auto} MB, as private (${postgres_private} MB) wanted: PostgreSQL's backends are processes"
ok "peak RSS, 8 connections over ${WS} MB: mariadb ${mariadb_auto} MB (shared ${mariadb_shared}, private ${mariadb_private}), postgres ${postgres_auto} MB (shared ${postgres_shared}, private ${postgres_private})"
# one database, two jobs that disagree on the set: refused, naming the options
mkdir -p "$TMP/two"
out=$("$FIO" --ioengine="external:$B/txn.so" --calibration=none --directory="$TMP/two" --rw=write \
	--txn_profile=read_only --table_size=1000 --number_ios=5 --flavor=mariadb --cpu_working_set=1m \
	--name=a --name=b --cpu_working_set_shared=private 2>&1) && fail "two jobs of one database, shared and private: accepted"
printf '%s\n' "$out" | grep -q "cpu_working_set_shared" ||
	fail "shared and private in one database: no line naming cpu_working_set_shared: $out"
ok "one database, one job shared and one private: refused ($(printf '%s\n' "$out" | grep -m1 cpu_working_set_shared))"
