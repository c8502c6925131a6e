#!/bin/bash
# Description: rbdsnap snap_every on a job that cannot complete that many I/Os (number_ios, size/bs) is refused at setup in one line
# Timeout: 180
# In full: rbdsnap snap_every on a job that cannot complete that many I/Os (number_ios, size/bs) is
# refused at setup in one line; a schedule whose first snapshot comes after the job's end warns in one
# stderr line and the phase table and snap_json say no snapshot was taken (rbd snap ls: none); a
# schedule that fires does not warn
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-noshot
rbd_image "$IMG" 64M
RS=(--ioengine="external:$B/rbdsnap.so" --clientname=admin --pool=rbd --rbdname="$IMG" --invalidate=0 --rw=randwrite --bs=4k)
# the snapshots rbd itself lists on the image (the test takes none of its own)
snaps() { rbd snap ls "rbd/$IMG" --format json | py json - "len(d)"; }
# refused NAME WHAT ARGS...: fio fails at setup with one line naming snap_every and WHAT
refused() {
	local name=$1 what=$2; shift 2
	run_fio "$name" --name="$name" "${RS[@]}" "$@" && { cat "$TMP/$name.err"; fail "$name: a job that cannot take a snapshot ran"; }
	[ "$(grep -c '^rbdsnap: snap_every=' "$TMP/$name.err")" = 1 ] || { cat "$TMP/$name.err"; fail "$name: not one refusal line"; }
	grep -q "^rbdsnap: snap_every=200: the job completes at most $what" "$TMP/$name.err" ||
		{ cat "$TMP/$name.err"; fail "$name: the line does not say snap_every=200 and '$what'"; }
	ok "$name: $(grep '^rbdsnap: snap_every=' "$TMP/$name.err")"
}
refused nios "100 I/Os (number_ios)" --number_ios=100 --snap_every=200
refused size "128 I/Os (size / bs)" --size=512k --snap_every=200
[ "$(snaps)" = 0 ] || fail "a refused job left snapshots"

# a first snapshot 30 s after the start of a 2 s job: it runs, says so once, takes none
run_fio late --name=late "${RS[@]}" --time_based --runtime=2 --snap_interval=30 --snap_json="$TMP/late.snap.json" ||
	{ cat "$TMP/late.err"; fail "late: fio failed"; }
[ "$(grep -c '^rbdsnap: late: no snapshot was taken' "$TMP/late.err")" = 1 ] || { cat "$TMP/late.err"; fail "late: no one-line warning"; }
grep -q '^  no snapshot was taken' "$TMP/late.err" || { cat "$TMP/late.err"; fail "late: the phase table does not say so"; }
grep -q 'no snapshot was taken' "$TMP/late.json" && fail "late: the warning went into fio's JSON output"
[ "$(json "$TMP/late.snap.json" "d['snapshots_taken']")" = 0 ] || fail "late: snap_json does not say 0 snapshots"
[ "$(json "$TMP/late.json" "d['jobs'][0]['sync']['lat_ns']['N']")" = 0 ] || fail "late: fio booked snapshot calls"
ok "late: $(grep '^rbdsnap: late: no snapshot' "$TMP/late.err")"

# control: a paced job of 600 I/Os with snap_every=200 takes snapshots (kept: rbd snap ls counts them) and does not warn
run_fio fires --name=fires "${RS[@]}" --number_ios=600 --rate_iops=200 --snap_every=200 --snap_remove_at_end=0 \
	--snap_json="$TMP/fires.snap.json" || { cat "$TMP/fires.err"; fail "fires: fio failed"; }
grep -q 'no snapshot was taken' "$TMP/fires.err" && { cat "$TMP/fires.err"; fail "fires: warned although it took snapshots"; }
t=$(json "$TMP/fires.snap.json" "d['snapshots_taken']")
k=$(snaps)
rbd snap purge "rbd/$IMG" >/dev/null 2>&1
((k >= 1)) || fail "fires: rbd snap ls shows no snapshot"
[ "$t" = "$k" ] || fail "fires: snap_json says $t snapshots taken, rbd snap ls shows $k"
ok "fires: rbd snap ls: $k snapshots (snap_json: $t), no warning"
exit 0
