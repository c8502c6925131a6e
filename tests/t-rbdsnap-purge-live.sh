#!/bin/bash
# Description: rbdsnap snap_purge_stale=1 removes only snapshots of runs whose holder is gone, never look-alikes
# Timeout: 300
# In full: rbdsnap snap_purge_stale=1 removes only snapshots of runs whose holder is gone, in the
# exact run-id format: with a live run (another fio writing, its snapshots held) and a SIGKILLed one
# on the image, a third run's purge leaves the live run's snapshots, removes the dead run's, and
# leaves look-alikes (<prefix>zzzzzzzz-1, <prefix>0123456-1, the dead run's id with a leading zero or
# another prefix); oracle rbd snap ls
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-purgelive-$$
rbd_image "$IMG" 256M --image-feature layering
snaps() { rbd snap ls "rbd/$IMG" | awk 'NR>1{print $2}' | sort | tr '\n' ' '; }
# run NAME ARGS...: an rbdsnap fio in the background writing the image; its pid in $pid
run() {
	"$FIO" --name="$1" --ioengine="external:$B/rbdsnap.so" --clientname=admin --pool=rbd \
		--rbdname="$IMG" --invalidate=0 --rw=randwrite --bs=4k --iodepth=4 --time_based \
		--health_interval=0 --output-format=json --output="$TMP/$1.json" "${@:2}" 2>"$TMP/$1.err" &
	pid=$!
}
# runid NAME: the run id the engine printed ("..., run 1a2b3c4d")
runid() { sed -n 's/^rbdsnap: .*, run \([0-9a-f]\{8\}\)$/\1/p' "$TMP/$1.err" | head -1; }
# wait_snaps ID N: until N snapshots dbfio-ID-* exist (30 s at most)
wait_snaps() {
	for _ in $(seq 60); do
		[ "$(rbd snap ls "rbd/$IMG" | grep -c " dbfio-$1-[0-9]* ")" -ge "$2" ] && return 0
		sleep 0.5
	done
	return 1
}

# a run killed with its snapshots on the image
run dead --runtime=120 --snap_interval=1
dpid=$pid
for _ in $(seq 20); do D=$(runid dead); [ -n "$D" ] && break; sleep 0.5; done
[ -n "$D" ] || { kill -KILL $dpid; cat "$TMP/dead.err"; fail "the dead run printed no run id"; }
wait_snaps "$D" 2 || { kill -KILL $dpid; cat "$TMP/dead.err"; fail "the dead run made no snapshots"; }
kill -KILL $dpid
fio_wait $dpid dead KILL "$TMP/dead.err"
rbd_drop_watchers "$IMG"
# look-alikes: not the run-id format, or another prefix (made before the live run: with no
# holder of the image's lock none waits on a request through the holder: 3 s each in CI)
for s in dbfio-zzzzzzzz-1 dbfio-0123456-1 "dbfio-$D-01" "other-$D-1" "dbfio-$D-1x"; do
	rbd snap create "rbd/$IMG@$s" >/dev/null 2>&1 || fail "rbd snap create $s"
done
# a live run: two snapshots, held until it ends
run live --runtime=180 --snap_interval=1 --snap_count=2
lpid=$pid
at_exit "kill -KILL $lpid"
for _ in $(seq 20); do L=$(runid live); [ -n "$L" ] && break; sleep 0.5; done
[ -n "$L" ] || { cat "$TMP/live.err"; fail "the live run printed no run id"; }
wait_snaps "$L" 2 || { cat "$TMP/live.err"; fail "the live run made no snapshots"; }
before=$(snaps)
dead_snaps=$(rbd snap ls "rbd/$IMG" | awk -v d="dbfio-$D-" 'NR>1 && index($2, d) == 1 && $2 ~ /-[1-9][0-9]*$/ {print $2}')
live_snaps=$(rbd snap ls "rbd/$IMG" | awk -v l="dbfio-$L-" 'NR>1 && index($2, l) == 1 {print $2}')
echo "before the purge: $before"

run purge --runtime=1 --snap_purge_stale=1
fio_wait $pid purge "" "$TMP/purge.err" || { cat "$TMP/purge.err"; fail "the purging run failed"; }
cat "$TMP/purge.err"
after=$(snaps)
echo "after the purge: $after"
kill -0 $lpid 2>/dev/null || { cat "$TMP/live.err"; fail "the live run ended before the purge was checked"; }
for s in $live_snaps; do
	case " $after" in *" $s "*) ;; *) fail "the live run's snapshot $s was purged" ;; esac
done
ok "the live run's snapshots survive: $(echo $live_snaps)"
for s in $dead_snaps; do
	case " $after" in *" $s "*) fail "the dead run's snapshot $s survived the purge" ;; esac
done
[ -n "$dead_snaps" ] || fail "no snapshot of the dead run to purge"
ok "the dead run's snapshots are removed: $(echo $dead_snaps)"
for s in dbfio-zzzzzzzz-1 dbfio-0123456-1 "dbfio-$D-01" "other-$D-1" "dbfio-$D-1x"; do
	case " $after" in *" $s "*) ;; *) fail "the look-alike $s was purged" ;; esac
done
ok "look-alikes survive"

# the live run ends normally: its snapshots go, the look-alikes stay
kill -TERM $lpid
fio_wait $lpid live TERM "$TMP/live.err"
left=$(rbd snap ls "rbd/$IMG" | grep -c " dbfio-$L-")
[ "$left" = 0 ] || fail "the live run left $left snapshot(s)"
rbd image-meta list "rbd/$IMG" | grep -q "dbfio.rbdsnap.run.$L" && fail "the live run left its holder record"
ok "the live run removed its own snapshots and its holder record at its end"
