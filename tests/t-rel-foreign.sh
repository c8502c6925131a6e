#!/bin/bash
# Description: never touch what is not ours: foreign and prefix-like files survive normal, failed and SIGKILLed runs
# Timeout: 180
# In full: never touch what is not ours: foreign and prefix-like files beside
# storeio/redolog/pgpage/metastorm survive normal, failed and SIGKILLed runs; the next run starts
# cleanly (logverify: no acknowledged commit lost)
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-fault.sh"
KILLS=0

# plant DIR NAME...: foreign files, each with its own content; sums in DIR.sums (kept outside DIR)
plant() {
	local d=$1 n; shift
	mkdir -p "$d"
	for n in "$@"; do echo "foreign $n $RANDOM" >"$d/$n"; done
	(cd "$d" && sha256sum "$@") >"$d.sums"
}
intact() {	# intact DIR WHEN
	(cd "$1" && sha256sum --quiet -c "$1.sums") >"$TMP/sums.out" 2>&1 ||
		{ cat "$TMP/sums.out"; fail "$2: a foreign file in $1 changed or vanished"; }
}
# killrun NAME SECONDS ARGS...: start fio, SIGKILL it after SECONDS, wait
killrun() {
	local name=$1 t=$2; shift 2
	"$FIO" --name="$name" "$@" >"$TMP/$name.out" 2>&1 &
	local pid=$!
	sleep "$t"
	kill -0 $pid 2>/dev/null || { cat "$TMP/$name.out"; fail "$name: fio ended before the kill"; }
	kill -KILL $pid
	fio_wait $pid "$name" KILL "$TMP/$name.out"
	KILLS=$((KILLS + 1))
}
good() {	# good NAME ARGS...: must succeed
	local name=$1; shift
	run_fio "$name" --name="$name" "$@" || { cat "$TMP/$name.err"; fail "$name: fio failed"; }
	grep -qi "AddressSanitizer\|runtime error" "$TMP/$name.err" && { cat "$TMP/$name.err"; fail "$name: sanitizer report"; }
	return 0
}

# storeio: fio's files are named <job>.<n>.<m>
D=$TMP/storeio
plant "$D" foreign.dat st.0 st.0.0.orig st.0.1x st.1.0.bak
S=(--ioengine="external:$B/storeio.so" --directory="$D" --rw=randwrite --bs=4k --size=8m)
good st "${S[@]}" --unlink=1; intact "$D" "storeio normal run"
refuse st "queue_depth" "${S[@]}" --store=uring --iodepth=100000; intact "$D" "storeio failed run"
killrun st 1 "${S[@]}" --time_based --runtime=30; intact "$D" "storeio killed run"
good st "${S[@]}" --unlink=1; intact "$D" "storeio run after the kill"
ok "storeio: foreign files intact after normal, failed, killed runs; next run clean"

# redolog: ib_logfile0..N-1 and redolog-mysql.meta are its own
D=$TMP/redolog
plant "$D" foreign.dat ib_logfile2 ib_logfile0.bak ib_logfile ib_logfile00 redolog-mysql.meta.old
R=(--ioengine="external:$B/redolog.so" --directory="$D" --rw=write --bs=4k --iodepth=4 --flavor=mysql
	--innodb_log_file_size=4m --innodb_log_files_in_group=2 --lsn_file="$TMP/rl.lsn")
good rl "${R[@]}" --size=2m; intact "$D" "redolog normal run"
refuse rl "innodb_flush_method=bogus" "${R[@]}" --size=2m --innodb_flush_method=bogus; intact "$D" "redolog failed run"
rm -f "$TMP/rl.lsn"
killrun rl 2 "${R[@]}" --size=1g --time_based --runtime=30
intact "$D" "redolog killed run"
[ -s "$TMP/rl.lsn" ] || fail "redolog: no lsn_file after 2 s"
"$B/logverify" --dir="$D" "$TMP/rl.lsn" >"$TMP/lv.out" 2>&1 || { cat "$TMP/lv.out"; fail "redolog: logverify after SIGKILL"; }
ok "redolog SIGKILL: $(tail -1 "$TMP/lv.out")"
good rl "${R[@]}" --size=2m; intact "$D" "redolog run after the kill"
ok "redolog: foreign files intact; after SIGKILL no acknowledged commit lost, next run clean"

# pgpage: relation 16384 (one relation) -> 16384, 16384.1, ...
D=$TMP/pgpage
plant "$D" foreign.dat 16384_fsm 16384_vm 163840 16385 16384.bak 16384.x
P=(--ioengine="external:$B/pgpage.so" --directory="$D" --bs=8k --block_size=8k --relations=1
	--relation_size=4m --segment_size=1m --rw=randwrite --size=4m --checkpoint_timeout=1)
good pg "${P[@]}" --unlink=1; intact "$D" "pgpage normal run"
refuse pg "extend_ratio=101" "${P[@]}" --extend_ratio=101; intact "$D" "pgpage failed run"
killrun pg 2 "${P[@]}" --time_based --runtime=30; intact "$D" "pgpage killed run"
good pg "${P[@]}" --unlink=1; intact "$D" "pgpage run after the kill"
ok "pgpage: foreign files intact after normal, failed, killed runs; next run clean"

# metastorm: everything under dbfio_ms_<job>/; any foreign dbfio_ms_* stops it (t-metastorm-local)
D=$TMP/metastorm
plant "$D" foreign.dat dbfio_ms dbfio-ms_1 dbfio_ms1 db ib_redo binlog.000001 wal
M=(--ioengine="external:$B/metastorm.so" --directory="$D" --flavor=mysql --tables=8)
good ms "${M[@]}" --number_ios=50; intact "$D" "metastorm normal run"
refuse ms "ddl_mix=create:x" "${M[@]}" --number_ios=5 --ddl_mix=create:x; intact "$D" "metastorm failed run"
killrun ms 2 "${M[@]}" --time_based --runtime=30; intact "$D" "metastorm killed run"
# by design the leftovers of a killed run stop the next one ...
refuse ms "dbfio_ms_1 exists" "${M[@]}" --number_ios=5; intact "$D" "metastorm refused run"
# ... and the documented recovery (docs/metastorm.md: remove them by hand) works
rm -rf "${D:?}/dbfio_ms_1"
good ms "${M[@]}" --number_ios=50; intact "$D" "metastorm run after the recovery"
ls -A "$D" | grep -q '^dbfio_ms_' && fail "metastorm left dbfio_ms_*: $(ls -A "$D")"
ok "metastorm: foreign files intact; killed-run leftovers refused, removed by hand, next run clean"
echo "runs killed: $KILLS, refused: $REFUSED"
