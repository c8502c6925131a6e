#!/bin/bash
# Description: one run per store: a second fio on the same directory, CephFS root or image is refused naming the holder
# Timeout: 300
# In full: one run per store: a second fio on the same directory (posix), CephFS root (cephfs) or
# image (rbd) is refused with one line naming the holder, the first's data verifies; numjobs share the
# lock; after SIGKILL the next run starts
. "$(dirname "$0")/lib.sh"
IMG=store-test-lock-$$ ROOT=/store-test-lock-$$
rbd_cleanup "$IMG" "$IMG-x" "$IMG-2"
cephfs_cleanup "$ROOT"

# second NAME ARGS...: a second run while the first holds the store; it must
# exit non-zero at setup with one line naming the holder's pid (and more)
second() {
	local name=$1 pid=$2 what=$3; shift 3
	"$FIO" --name="$name" "$@" >"$TMP/$name.out" 2>&1 && { cat "$TMP/$name.out"; fail "$name: a second run on $what was accepted"; }
	local line
	line=$(grep -E "is in use by .*pid $pid on host $(hostname)" "$TMP/$name.out")
	[ "$(printf '%s\n' "$line" | grep -c .)" = 1 ] || { cat "$TMP/$name.out"; fail "$name: no one-line refusal naming pid $pid"; }
	printf '%s\n' "$line" | grep -qF "$what" || fail "$name: the refusal does not say what is locked ($what): $line"
	ok "$name refused: $line"
}

# wait_for COND...: until the first run holds the store (10 s at most)
wait_for() { for _ in $(seq 100); do "$@" && return 0; sleep 0.1; done; fail "the first run never took the store"; }
# acked LSN_FILE: the run has acknowledged commits (its sidecar exists from set-up on)
acked() { [ "$(lsn_acked "$1")" -gt 0 ]; }

# ---- posix: two redolog runs in one directory (both ended rc 0 with LOSS before) ----
mkdir -p "$TMP/d"
R=(--ioengine="external:$B/redolog.so" --store=posix --directory="$TMP/d" --flavor=mysql
	--innodb_log_file_size=2m --bs=4k --iodepth=4 --rw=write --size=1g --time_based)
"$FIO" --name=p1 "${R[@]}" --runtime=4 --lsn_file="$TMP/p1.lsn" >"$TMP/p1.out" 2>&1 &
p1=$!
wait_for acked "$TMP/p1.lsn"	# commits acknowledged: the run is under way
second p2 $p1 "$TMP/d" "${R[@]}" --runtime=2 --lsn_file="$TMP/p2.lsn"
wait $p1 || { cat "$TMP/p1.out"; fail "the first posix run failed"; }
"$B/logverify" --store=posix --dir="$TMP/d" "$TMP/p1.lsn" >"$TMP/p1.lv" 2>&1 || { cat "$TMP/p1.lv"; fail "the first run's log does not verify"; }
ok "posix: the first run's log verifies: $(cat "$TMP/p1.lv")"
[ ! -e "$TMP/d/.dbfio-lock" ] || fail "posix: the lock file outlived the run"

# numjobs=2 in one process share the directory's lock
run_fio nj --name=nj --ioengine="external:$B/storeio.so" --directory="$TMP/d" --size=1m \
	--bs=4k --rw=write --numjobs=2 || { cat "$TMP/nj.err"; fail "numjobs=2 on one directory refused"; }
ok "posix: numjobs=2 in one process share the lock"

# SIGKILL: the kernel drops the lock with the process; the next run starts at once
"$FIO" --name=k "${R[@]}" --runtime=30 --lsn_file="$TMP/k.lsn" >"$TMP/k.out" 2>&1 &
k=$!
wait_for acked "$TMP/k.lsn"
kill -KILL $k; wait $k 2>/dev/null
grep -q "pid=$k," "$TMP/d/.dbfio-lock" || fail "posix: the killed run's lock file does not name it"
"$B/logverify" --store=posix --dir="$TMP/d" "$TMP/k.lsn" >"$TMP/k.lv" 2>&1 || { cat "$TMP/k.lv"; fail "logverify after SIGKILL"; }
run_fio k2 --name=k2 "${R[@]}" --runtime=1 || { cat "$TMP/k2.err"; fail "posix: no run after SIGKILL"; }
ok "posix: after SIGKILL, logverify and the next run start at once"

need_cluster
# ---- rbd: two storeio runs on one image; the first writes and verifies. An
# image the store creates (layering only) gets an advisory lock; one with the
# exclusive-lock feature (rbd create's default) librbd's own lock ----
has_lock() { [ -n "$(rbd lock ls "rbd/$1" 2>/dev/null)" ]; }
rbd_case() {	# rbd_case IMAGE: the image exists or the store creates it
	local img=$1 r1 rk s
	S=(--ioengine="external:$B/storeio.so" --store=rbd --rbdname=$img --rbd_size=128m --bs=4k
		--iodepth=4 --size=16m --filename=data)
	"$FIO" --name=r1 "${S[@]}" --rw=randwrite --verify=crc32c --rate_iops=1500 \
		--output-format=json --output="$TMP/r1.json" 2>"$TMP/r1.err" &
	r1=$!
	wait_for has_lock "$img"
	second r2 $r1 "rbd/$img" "${S[@]}" --rw=randwrite --runtime=1
	grep -qE "in use by (client\.[0-9]* at )?(v[12]:)?127\.0\.0\.1:" "$TMP/r2.out" || fail "rbd: the refusal does not name the client"
	wait $r1 || { cat "$TMP/r1.err"; fail "the first rbd run failed"; }
	[ "$(json "$TMP/r1.json" "d['jobs'][0]['error']")" = 0 ] || fail "rbd: the first run reported an error"
	ok "rbd $img: the first run verified (verify=crc32c)"
	[ -z "$(rbd lock ls "rbd/$img")" ] || fail "rbd: the lock outlived the run: $(rbd lock ls "rbd/$img")"

	"$FIO" --name=rk "${S[@]}" --rw=randwrite --time_based --runtime=30 >"$TMP/rk.out" 2>&1 &
	rk=$!
	wait_for has_lock "$img"
	sleep 1
	kill -KILL $rk; wait $rk 2>/dev/null
	{ rbd lock ls "rbd/$img"; rbd image-meta list "rbd/$img"; } | grep -q "pid=$rk," ||
		fail "rbd: the killed run is not named as the holder"
	s=$(date +%s%N)
	run_fio rk2 --name=rk2 "${S[@]}" --rw=read --size=4m || { cat "$TMP/rk2.err"; fail "rbd: no run after SIGKILL"; }
	ok "rbd $img: after SIGKILL the next run broke the dead holder's lock and ran in $(( ($(date +%s%N) - s) / 1000000 )) ms"
}
# two engines in one fio: each .so has its own copy of the store layer. On
# cephfs (as on posix: t-pgpage-jobs) they share their process's lock; on rbd
# two engines of one fio on one store share it (one store layer per process)
two_engines() {	# two_engines STORE: pgpage + redolog in one job file on one store
	local opts="store=$1
store_root=$ROOT
rbdname=$IMG-2
rbd_size=256m"
	cat >"$TMP/two-$1.fio" <<EOF
[global]
thread=1
time_based=1
runtime=2
[pgdata]
ioengine=external:$B/pgpage.so
$opts
bs=8k
relations=2
relation_size=16m
rw=randwrite
[wal]
ioengine=external:$B/redolog.so
$opts
flavor=postgres
wal_segment_size=16m
bs=4k
rw=write
${2:-}
EOF
	"$FIO" "$TMP/two-$1.fio" >"$TMP/two-$1.out" 2>&1
}
if have_backend RBD; then
	# one store layer per process (libdbfio.so): the two engines share the
	# image's one extent table, as two jobs of one engine do; logverify
	# (its own reader of the image's table) finds redolog's log intact
	rbd create -p rbd --size 256M --image-feature layering "$IMG-2" || fail "rbd create $IMG-2"
	two_engines rbd "lsn_file=$TMP/two-rbd.lsn" || { cat "$TMP/two-rbd.out"; fail "rbd: two engines of one fio could not share an image"; }
	"$B/logverify" --store=rbd --rbdname="$IMG-2" "$TMP/two-rbd.lsn" >"$TMP/two-rbd.lv" 2>&1 ||
		{ cat "$TMP/two-rbd.lv"; fail "rbd: redolog's log beside pgpage's relations is not intact"; }
	ok "rbd: two engines of one fio share one image: $(cat "$TMP/two-rbd.lv")"
	for i in $(seq 20); do rbd rm -p rbd "$IMG-2" >/dev/null 2>&1 && break; sleep 3; done
fi
if have_backend LIBCEPHFS; then
	two_engines cephfs || { cat "$TMP/two-cephfs.out"; fail "cephfs: two engines of one fio could not share the directory"; }
	ok "cephfs: two engines of one fio share the directory's lock"
fi

if have_backend RBD; then
	rbd_case $IMG
	rbd create -p rbd --size 128M --image-feature layering,exclusive-lock "$IMG-x" || fail "rbd create $IMG-x"
	rbd_case $IMG-x
fi

# ---- cephfs: two storeio runs in one directory ----
if have_backend LIBCEPHFS; then
	C=(--ioengine="external:$B/storeio.so" --store=cephfs --store_root=$ROOT --bs=4k --iodepth=4
		--size=8m --filename=data)
	"$FIO" --name=c1 "${C[@]}" --rw=randwrite --verify=crc32c --rate_iops=500 --unlink=1 \
		--output-format=json --output="$TMP/c1.json" 2>"$TMP/c1.err" &
	c1=$!
	sleep 3	# mounted and locked (the refusal below names it, or the test fails)
	second c2 $c1 "$ROOT/.dbfio-lock" "${C[@]}" --rw=randwrite --runtime=1
	grep -q "in use by client\.[0-9]*, pid" "$TMP/c2.out" || fail "cephfs: the refusal does not name the client"
	wait $c1 || { cat "$TMP/c1.err"; fail "the first cephfs run failed"; }
	[ "$(json "$TMP/c1.json" "d['jobs'][0]['error']")" = 0 ] || fail "cephfs: the first run reported an error"
	ok "cephfs: the first run verified (verify=crc32c)"
fi
exit 0
