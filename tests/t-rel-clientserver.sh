#!/bin/bash
# Description: fio client/server: two fio --server on 127.0.0.1 and one fio --client=...--client=... run a job of each engine on both
# Timeout: 240
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-fault.sh"
# below the ephemeral range (32768+ here), where a Ceph client's outgoing
# connection can hold a port that no listener shows; a port in any state is skipped
free_port() {
	local p=$((21000 + RANDOM % 8000))
	while ss -Htan "( sport = :$p )" | grep -q .; do p=$((p + 1)); done
	echo $p
}
S1=$TMP/srv1 S2=$TMP/srv2; mkdir -p "$S1" "$S2"
stop_servers() {
	local f p
	for f in "$TMP"/srv*.pid; do
		p=$(cat "$f" 2>/dev/null) && [ -n "$p" ] && tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "--server=" &&
			kill "$p" 2>/dev/null
	done
	for _ in $(seq 30); do pgrep -f -- "--daemonize=$TMP/srv" >/dev/null || break; sleep 0.1; done
}
at_exit stop_servers

# one job file per engine, no directory=: each server runs it in its own working
# directory ($S1, $S2); the engine path is absolute
jobs() {
	local e=$1; shift
	{ echo "[$e-cs]"; echo "ioengine=external:$B/$e.so"; printf '%s\n' "$@"; } >"$TMP/$e.fio"
}
jobs storeio rw=randwrite bs=4k size=4m iodepth=4 verify=crc32c unlink=1
jobs redolog rw=write bs=4k iodepth=4 size=2m flavor=postgres wal_segment_size=1m wal_segments=2 lsn_file=cs.lsn
jobs pgpage bs=8k block_size=8k relations=1 relation_size=1m segment_size=1m rw=randwrite size=1m unlink=1
jobs metastorm flavor=postgres number_ios=50 tables=4
ENG="storeio redolog pgpage metastorm"
# what each server's job must have done: "writes reads" in fio's JSON
declare -A WANT=([storeio]="1024 1024" [redolog]="512 0" [pgpage]="128 0" [metastorm]="0 50" [rbdsnap]="600 0")
if have_backend RBD; then
	need_cluster
	IMG=rbdsnap-test-rel-cs
	rbd_cleanup $IMG-1 $IMG-2
	for i in 1 2; do
		rbd rm -p rbd $IMG-$i >/dev/null 2>&1
		rbd create -p rbd --size 64M $IMG-$i || fail "rbd create"
	done
	# both clients on one image (each run removes only its own snapshots);
	# the servers inherit CEPH_CONF. Paced to 3 s: at full speed the job ends
	# before the snapshot thread takes its first snapshot (none were taken)
	jobs rbdsnap clientname=admin pool=rbd rbdname=$IMG-1 invalidate=0 \
		rw=randwrite bs=4k iodepth=4 number_ios=600 rate_iops=200 snap_every=200 snap_json=cs.snap.json
	ENG="$ENG rbdsnap"
fi
# start_server N: a fio server for $SN on a free port (another port if it does not listen in 10 s)
start_server() {
	local n=$1 dir=$TMP/srv$1 p try
	for try in 1 2 3; do
		p=$(free_port)
		[ "$p" = "${P1:-}" ] && continue
		(cd "$dir" && "$FIO" --server=ip:127.0.0.1,$p --daemonize="$TMP/srv$n.pid" >>"$TMP/srv$n.log" 2>&1) ||
			{ cat "$TMP/srv$n.log"; fail "fio --server :$p"; }
		for _ in $(seq 100); do ss -Hltn "( sport = :$p )" | grep -q . && break; sleep 0.1; done
		if ss -Hltn "( sport = :$p )" | grep -q .; then eval "P$n=$p"; return; fi
		echo "fio server $n does not listen on :$p (try $try): $(cat "$TMP/srv$n.log")"
		kill "$(cat "$TMP/srv$n.pid" 2>/dev/null)" 2>/dev/null; sleep 0.5
	done
	fail "the fio server $n does not listen"
}
P1= P2=
start_server 1
start_server 2
ok "fio servers on 127.0.0.1:$P1 and :$P2"
for e in $ENG; do
	s=$SECONDS
	"$FIO" --client=127.0.0.1,$P1 --client=127.0.0.1,$P2 --output-format=json \
		--output="$TMP/$e.json" "$TMP/$e.fio" >"$TMP/$e.out" 2>&1 || { cat "$TMP/$e.out" "$TMP/$e.json"; fail "$e: fio --client failed"; }
	# per server: one job, no error, exactly the I/O the job file asks for
	py client-jobs "$TMP/$e.json" ${WANT[$e]} >"$TMP/$e.res" || { cat "$TMP/$e.res" "$TMP/$e.out"; fail "$e: results"; }
	case $e in
	redolog)	# each server wrote its own WAL in its own directory: every commit intact
		for d in "$S1" "$S2"; do
			"$B/logverify" --dir="$d" "$d/cs.lsn" >"$TMP/lv.out" 2>&1 || { cat "$TMP/lv.out"; fail "redolog: logverify in $d"; }
			# 512 commits of 4 KiB acknowledged: the log ends at LSN 2 MiB (older segments recycled)
			grep -q "^logverify: ok: .* LSN [0-9]*\.\.2097152," "$TMP/lv.out" ||
				{ cat "$TMP/lv.out"; fail "redolog: the log in $d does not hold every commit up to LSN 2 MiB"; }
		done ;;
	rbdsnap)	# each server made snapshots (snap_every=200: up to 3, each ~1-3 s here) and removed them all
		rbd snap ls "rbd/$IMG-1" | grep -q ' dbfio-' && fail "rbdsnap left snapshots on $IMG-1"
		for d in "$S1" "$S2"; do
			[ "$(json "$d/cs.snap.json" "(lambda c, r: c if c == r and c >= 1 else -1)(*[sum(1 for e in d['events'] if e['op'] == o and e['ret'] == 0) for o in ('create', 'remove')])")" -ge 1 ] ||
				{ json "$d/cs.snap.json" "d['events']"; fail "rbdsnap: $d/cs.snap.json: no snapshot created, or not as many removed"; }
		done ;;
	esac
	# the engine's end-of-job table reached the client through fio's log: the
	# client writes each server's lines, "<host> ...", into --output before the JSON
	case $e in
	redolog) t="redolog: job redolog-cs: flavor=postgres" ;;
	metastorm) t="metastorm: DDL statements (job metastorm-cs," ;;
	rbdsnap) t="rbdsnap: rbdsnap-cs: rbd/$IMG-1, " ;;
	*) t= ;;
	esac
	[ -z "$t" ] || [ "$(grep -cF "> $t" "$TMP/$e.json")" = 2 ] ||
		{ grep "^<" "$TMP/$e.json"; fail "$e: the table of each server did not reach the client"; }
	ok "$e: on both servers, $(cat "$TMP/$e.res") in $((SECONDS - s)) s"
done
ls "$S1" "$S2" | grep -q "^storeio-cs" && fail "storeio left its files: $(ls "$S1")"
ls "$S1" "$S2" | grep -q "^dbfio_ms_" && fail "metastorm left its files: $(ls "$S1")"
stop_servers
ok "client/server: every engine on two servers"
