#!/bin/bash
# Description: tools/snapregress: passes a healthy rbdsnap run, fails a doctored one (exit 1), exits 2 on garbage
# Timeout: 150
. "$(dirname "$0")/lib.sh"
SR=$REPO/tools/snapregress
"$SR" --help | grep -q -- "--max-iops-drop" || fail "--help lists no thresholds"

# exit 2: unusable input, with one line
echo 'not json {' >"$TMP/garbage.json"
echo '{"engine": "fio", "jobs": []}' >"$TMP/other.json"
for f in "$TMP/garbage.json" "$TMP/other.json" "$TMP/missing.json"; do
	"$SR" "$f" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc = 2 ] || fail "$(basename "$f"): exit $rc, want 2"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "$(basename "$f"): $(wc -l <"$TMP/err") error lines"
done
ok "garbage, a foreign JSON and a missing file: exit 2 ($(cat "$TMP/err"))"

need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-snapregress
rbd_image "$IMG" 256M
rbd_nocache_conf
# one snapshot held 4 s, then removed: baseline, snap1, after. Whether this
# real run is judged healthy depends on the host's latency (slow I/Os are
# latencies over a threshold): those two checks are timing assertions; the
# doctored runs and the exit codes below are not
timing_test
CEPH_CONF=$TMP/ceph.conf run_fio run --name=run --ioengine="external:$B/rbdsnap.so" --clientname=admin \
	--pool=rbd --rbdname="$IMG" --invalidate=0 --rw=randwrite --bs=4k --iodepth=16 --time_based \
	--runtime=11 --snap_start_delay=3 --snap_count=1 --snap_hold=4 --snap_after=2 --snap_json="$TMP/run.snap.json" \
	|| { cat "$TMP/run.err"; fail "fio failed"; }
S=$TMP/run.snap.json
json "$S" "[p['name'] for p in d['phases']]" | grep -q "'after'" || fail "no after phase: $(json "$S" "[p['name'] for p in d['phases']]")"

# thresholds for a one-OSD dev cluster shared with other work (defaults are for real clusters);
# the create's own phase is not what this run judges: with the cache off the writes wait for the
# create, 0.4-0.6 s on the machines of 2026-11, 1.0 s on the one of 2026-12-01 evening (IOPS -99%,
# p99 1 s: "creating snap1" was judged from 1.0 s on); baseline 3 s, snap1 4 s, after 2-3 s are
# still judged
T=(--max-iops-drop 85 --max-p99-growth 40 --min-seconds 1.9)
"$SR" "${T[@]}" "$S" >"$TMP/pass.out" 2>&1
rc=$?
cat "$TMP/pass.out"
case $rc in
0) ok "healthy run passes" ;;
1) timing_fail "healthy run: judged a regression (exit 1)" ;;
*) fail "healthy run: exit $rc" ;;
esac

"$SR" --save-baseline "$TMP/stored.json" "$S" >/dev/null || fail "--save-baseline"
"$SR" "${T[@]}" --baseline "$TMP/stored.json" "$S" >"$TMP/self.out" 2>&1
rc=$?
case $rc in
0) ok "a run against its own stored baseline passes" ;;
1) cat "$TMP/self.out"; timing_fail "a run against itself as stored baseline: judged a regression (exit 1)" ;;
*) cat "$TMP/self.out"; fail "a run against itself as stored baseline: exit $rc" ;;
esac

# doctored: the snapshot phase loses 95% of its IOPS and gets slow I/Os
py rbdsnap-doctor "$S" "$TMP/doctored.json" snap1 'iops*0.05' 'p99_us*100' slow=42 || fail "cannot doctor $S"
"$SR" "${T[@]}" "$TMP/doctored.json" >"$TMP/fail.out" 2>&1
rc=$?
cat "$TMP/fail.out"
[ $rc = 1 ] || fail "doctored run: exit $rc, want 1"
grep -q "snap1.*REGRESSION" "$TMP/fail.out" || fail "the table does not mark snap1"
ok "doctored run: exit 1"

# a stored baseline that was much faster: this run's every phase regresses
py rbdsnap-doctor "$S" "$TMP/fast.json" all 'iops*20' || fail "cannot doctor $S"
"$SR" "${T[@]}" --baseline "$TMP/fast.json" "$S" >"$TMP/fast.out" 2>&1
[ $? = 1 ] || { cat "$TMP/fast.out"; fail "against a 20x faster stored baseline: not a regression"; }
grep -q "^  baseline .*REGRESSION" "$TMP/fast.out" || fail "the run's own baseline phase not judged against the stored one"
ok "stored baseline: slower run flagged, its baseline phase included"
