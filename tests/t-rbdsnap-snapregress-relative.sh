#!/bin/bash
# Description: tools/snapregress judges against the baseline's own behaviour (fixtures, hand-computed verdicts)
# In full: tools/snapregress judges against the baseline's own behaviour: slow I/Os and OSD slow ops
# per second relative to the reference, IOPS drop, p99 ratio, SLOW_OPS raised after the baseline
# (fixtures, hand-computed verdicts)
. "$(dirname "$0")/lib.sh"
SR=$REPO/tools/snapregress

# fixture NAME 'phase:secs:ios:p99_ms:slow:osd_slow ...' [SLOW_OPS_BEFORE SLOW_OPS_AFTER]
# (a sidecar as rbdsnap writes it; the first snapshot event at t=10)
fixture() {
	py rbdsnap-fixture "$TMP/$1.json" "$2" "${3:-0}" "${4:-0}"
}
# expect RC NAME [snapregress args] : exit status and, for 1, which phase is named
expect() {
	local want=$1 name=$2; shift 2
	"$SR" "$@" "$TMP/$name.json" >"$TMP/$name.out" 2>&1
	rc=$?
	[ $rc = "$want" ] || { cat "$TMP/$name.out"; fail "$name: exit $rc, want $want"; }
	ok "$name: exit $rc ($(tail -1 "$TMP/$name.out" | cut -c1-110))"
}

# a baseline that already has 62 slow I/Os in 20 s (3.1/s): 60 in 20 s with a snapshot is no worse
fixture noisy-same "baseline:20:20000:30:62:0 snap1:20:19000:31:60:0"
expect 0 noisy-same
# ... but 5x its rate is (default --max-slow-ratio 2: 15.5/s > 6.2/s)
fixture noisy-worse "baseline:20:20000:30:62:0 snap1:20:19000:31:310:0"
expect 1 noisy-worse
grep -q "snap1 .*REGRESSION: 15.50 slow I/Os/s vs 3.10" "$TMP/noisy-worse.out" || fail "noisy-worse: wrong reason"
# and a ratio of 6 lets it pass
expect 0 noisy-worse --max-slow-ratio 6
# a clean baseline: one slow I/O in 10 s (0.1/s) is within 2 x the floor (0.1/s) ...
fixture clean-one "baseline:10:10000:5:0:0 snap1:10:9500:6:1:0"
expect 0 clean-one
# ... three (0.3/s) are not; a floor of 0.2/s lets them pass
fixture clean-three "baseline:10:10000:5:0:0 snap1:10:9500:6:3:0"
expect 1 clean-three
expect 0 clean-three --slow-floor 0.2
# IOPS: -60% fails at the default 50%, passes at 70%
fixture drop "baseline:10:10000:5:0:0 snap3:10:4000:6:0:0"
expect 1 drop
grep -q "IOPS -60%" "$TMP/drop.out" || fail "drop: no 'IOPS -60%'"
expect 0 drop --max-iops-drop 70
# p99: 5 ms -> 25 ms is 5x (default 4x); not judged below --min-ios I/Os
fixture p99 "baseline:10:10000:5:0:0 snap1:10:9000:25:0:0"
expect 1 p99
grep -q "p99 5.0x" "$TMP/p99.out" || fail "p99: no 'p99 5.0x'"
expect 0 p99 --min-ios 10000
# a collapsed phase (20 I/Os in 10 s) fails on its IOPS although it has few I/Os
fixture stall "baseline:10:10000:5:0:0 creating_snap1:10:20:9000:20:0"
expect 1 stall
grep -q "creating_snap1 .*IOPS -100%" "$TMP/stall.out" || fail "stall: the stalled phase is not named"
# a phase shorter than --min-seconds is shown, not judged
fixture short "baseline:10:10000:5:0:0 snap1:0.5:10:900:5:0"
expect 0 short
grep -q "too short" "$TMP/short.out" || fail "short: not marked too short"
# the OSDs' own slow-op records, relative too: 2/s in the baseline, 3/s later passes, 10/s fails
fixture osd-ok "baseline:10:10000:5:0:20 snap1:10:9500:6:0:30"
expect 0 osd-ok
fixture osd-bad "baseline:10:10000:5:0:20 snap1:10:9500:6:0:100"
expect 1 osd-bad
grep -q "10.00 OSD slow ops/s vs 2.00" "$TMP/osd-bad.out" || fail "osd-bad: wrong reason"
# SLOW_OPS: raised only after the baseline fails; present during it already passes
fixture slowops-new "baseline:10:10000:5:0:0 snap1:20:19000:6:0:0" 0 7
expect 1 slowops-new
grep -q "cluster reported 7 SLOW_OPS (reference: 0)" "$TMP/slowops-new.out" || fail "slowops-new: wrong reason"
fixture slowops-old "baseline:10:10000:5:0:0 snap1:20:19000:6:0:0" 7 7
expect 0 slowops-old
expect 0 slowops-new --max-slow-ops 7
# a stored baseline: its rates are the reference, this run's baseline phase is judged too
fixture stored "baseline:10:10000:5:40:0"
fixture run "baseline:10:10000:5:30:0 snap1:10:9000:5:70:0"
expect 0 run --baseline "$TMP/stored.json"
fixture run2 "baseline:10:10000:5:100:0 snap1:10:9000:5:30:0"
expect 1 run2 --baseline "$TMP/stored.json"
grep -q "^  baseline .*REGRESSION: 10.00 slow I/Os/s vs 4.00" "$TMP/run2.out" || fail "run2: the run's baseline is not judged"
# short phases: one slow I/O in a 2 s create (0.5/s) after a clean baseline is not a regression
# (--min-slow 2); two are (1.0/s > 2 x 0.1/s)
fixture short-one "baseline:10:10000:5:0:0 creating_snap1:2:40:900:1:0 snap1:10:9500:6:0:0"
expect 0 short-one --max-iops-drop 100 --max-p99-growth 1000
fixture short-two "baseline:10:10000:5:0:0 creating_snap1:2:40:900:2:0 snap1:10:9500:6:0:0"
expect 1 short-two --max-iops-drop 100 --max-p99-growth 1000
grep -q "creating_snap1 .*REGRESSION: 1.00 slow I/Os/s vs 0.00" "$TMP/short-two.out" || fail "short-two: wrong reason"
# a stored run: each phase against the stored run's phase of the same name - a create that
# stalls as much as the stored one did passes, one that stalls more fails
fixture stored2 "baseline:10:10000:5:0:0 creating_snap1:2:40:900:5:0 snap1:10:9000:6:0:0"
fixture same2 "baseline:10:10000:5:0:0 creating_snap1:2:38:950:5:0 snap1:10:9100:6:0:0"
expect 0 same2 --baseline "$TMP/stored2.json"
fixture worse2 "baseline:10:10000:5:0:0 creating_snap1:2:10:950:25:0 snap1:10:9100:6:0:0"
expect 1 worse2 --baseline "$TMP/stored2.json"
grep -q "^  creating_snap1 .*REGRESSION: IOPS -75%, 12.50 slow I/Os/s vs 2.50" "$TMP/worse2.out" ||
	{ cat "$TMP/worse2.out"; fail "worse2: the create is not judged against the stored create"; }
