#!/bin/bash
# Description: pgpage example jobs run (2 s each); pgpage + redolog flavor=postgres as two jobs of one file (when build/redolog.so exists)
# Timeout: 120
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "cd $REPO"
export RUNTIME=2
for j in oltp innodb; do
	export DIR=$TMP/$j
	mkdir -p "$DIR"
	run_fio "$j" "jobs/pgpage-$j.fio" || { cat "$TMP/$j.err"; fail "jobs/pgpage-$j.fio failed"; }
	[ "$(json "$TMP/$j.json" "d['jobs'][0]['error']")" = 0 ] || fail "$j: fio error"
	ok "jobs/pgpage-$j.fio: $(json "$TMP/$j.json" "int(d['jobs'][0]['write']['iops'])") page writes/s, $(json "$TMP/$j.json" "int(d['jobs'][0]['read']['iops'])") page reads/s"
done
[ -f "$B/redolog.so" ] || skip "build/redolog.so not built: the pgpage + redolog pairing was not run (the other jobs passed)"
export DIR=$TMP/pair
mkdir -p "$DIR"
run_fio pair jobs/pgpage-with-redolog.fio || { cat "$TMP/pair.err"; fail "jobs/pgpage-with-redolog.fio failed"; }
python3 - "$TMP/pair.json" <<'PY' || fail "pairing: both jobs must run without error and do I/O"
import json, sys
jobs = {j["jobname"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
assert set(jobs) == {"pgdata", "pgwal"}, jobs.keys()
assert all(j["error"] == 0 for j in jobs.values())
assert jobs["pgdata"]["write"]["total_ios"] > 0 and jobs["pgwal"]["write"]["total_ios"] > 0
PY
ok "pgpage + redolog flavor=postgres ran together"
