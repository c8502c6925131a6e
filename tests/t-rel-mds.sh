#!/bin/bash
# Description: the MDS killed and restarted during a metastorm run on store=cephfs (libcephfs): the run ends within runtime + grace
# Timeout: 300
# In full: the MDS killed and restarted during a metastorm run on store=cephfs (libcephfs): the run
# ends within runtime + grace, no crash, its files cleaned up
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-fault.sh"
need_own_cluster
have_backend LIBCEPHFS || skip "cephfs backend not built"
wait_healthy 120
ROOT=/metastorm-test-rel-mds
RUNTIME=30 GRACE=60	# grace: MDS stop (<= 10 s) + replay/reconnect/rejoin + the client's reconnect
at_exit '[ -z "$(daemon_pid mds a)" ] && daemon_start mds a'
cephfs_cleanup "$ROOT"

s0=$SECONDS t0=$(now_ms)
"$FIO" --name=ms --ioengine="external:$B/metastorm.so" --store=cephfs --store_root=$ROOT \
	--flavor=mysql --tables=8 --time_based --runtime=$RUNTIME --table_json="$TMP/ms.tbl.json" \
	--write_lat_log="$TMP/ms" \
	--output-format=json --output="$TMP/ms.json" 2>"$TMP/ms.err" &
pid=$!
sleep 4
# SIGKILL: a crash, then journal replay; SIGTERM can hang here for > 30 s with
# a client attached, and the run then ends before the MDS is back
daemon_stop mds a KILL
down=$SECONDS
ok "mds.a stopped at $((down - s0)) s"
sleep 2
up=$(($(now_ms) - t0))
daemon_start mds a
ok "mds.a restarted after $((SECONDS - down)) s down"
fio_wait $pid ms "" "$TMP/ms.err"
rc=$?
took=$((SECONDS - s0))
cat "$TMP/ms.err"
[ $took -le $((RUNTIME + GRACE)) ] || fail "fio took $took s (bound $RUNTIME + $GRACE s)"
[ -s "$TMP/ms.json" ] || fail "no JSON output (exit $rc)"
ops=$(json "$TMP/ms.json" "d['jobs'][0]['read']['total_ios']")
max=$(json "$TMP/ms.json" "d['jobs'][0]['read']['clat_ns']['max'] // 1000000")
ok "metastorm exit $rc in $took s (bound $((RUNTIME + GRACE)) s): $ops DDL, slowest $max ms (the restart)"
[ "$rc" = 0 ] || fail "metastorm failed across an MDS restart (exit $rc)"
# the work: DDL completed again once the MDS was back (fio books a DDL
# statement as a read), and every statement the engine counted is in fio's total
io_seconds "$TMP/ms_clat.1.log" 0 >"$TMP/ms.rates"
resumed metastorm "$TMP/ms.rates" "$up"
[ "$(json "$TMP/ms.tbl.json" "sum(p['ops'] for n, p in d['phases'].items() if n in ('create', 'drop', 'open', 'rename'))")" = "$ops" ] ||
	fail "metastorm: its table counts other statements than fio's $ops"
wait_healthy 180
# its directory is gone: a new run in the same root starts (it would refuse leftovers)
run_fio again --name=again --ioengine="external:$B/metastorm.so" --store=cephfs --store_root=$ROOT \
	--number_ios=20 || { cat "$TMP/again.err"; fail "a run after the restart refused or failed"; }
ok "after the restart: cluster healthy, a new run starts cleanly (no leftovers)"
