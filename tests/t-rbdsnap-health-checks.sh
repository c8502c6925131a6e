#!/bin/bash
# Description: rbdsnap: the health checks the cluster raised, named in the report (oracle: ceph health detail)
# Timeout: 180
# In full: rbdsnap: each health poll keeps the names of the checks raised, an event is kept when they
# change even at one health level, and the report lists every check seen. The test raises two checks
# itself while a job runs - OSDMAP_FLAGS (`ceph osd set noscrub`) and then, at the same HEALTH_WARN,
# OSD_FLAGS (`ceph osd add-noout`) - and clears both; the oracle is `ceph health detail --format json`
# read by the ceph CLI after each change: the engine's health events must hold the same check names
# in the same order, and its report must list them.
. "$(dirname "$0")/lib.sh"
own_cluster_only "sets cluster flags (ceph osd set noscrub, add-noout)"
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-health
rbd_image "$IMG" 64M

checks() { timeout 30 ceph health detail --format json |
	python3 -c 'import json, sys; print(",".join(json.load(sys.stdin).get("checks", {})))'; }
clear_flags() { ceph osd unset noscrub >/dev/null 2>&1; ceph osd rm-noout osd.0 >/dev/null 2>&1; }
at_exit clear_flags
clear_flags
base=$(checks) || fail "ceph health detail failed"
[ -z "$base" ] || skip "the cluster already raises health checks ($base): the test needs a healthy one"

run_fio hc --name=hc --ioengine="external:$B/rbdsnap.so" --clientname=admin --pool=rbd --rbdname="$IMG" \
	--invalidate=0 --rw=randwrite --bs=4k --iodepth=4 --rate_iops=20 --time_based --runtime=11 \
	--snap_count=0 --health_interval=500ms --snap_json="$TMP/hc.snap.json" &
FIO=$!
seen=()
sleep 2
ceph osd set noscrub >/dev/null 2>&1 || fail "ceph osd set noscrub failed"
sleep 2
seen+=("$(checks)")
ceph osd add-noout osd.0 >/dev/null 2>&1 || fail "ceph osd add-noout osd.0 failed"
sleep 2
seen+=("$(checks)")
clear_flags
sleep 2
seen+=("$(checks)")
wait $FIO || { cat "$TMP/hc.err"; fail "fio exited non-zero"; }
cat "$TMP/hc.err"
ok "ceph health detail's checks after each change: ${seen[*]/#/[}"
[ "${seen[0]}" = OSDMAP_FLAGS ] && [ "${seen[1]}" = OSDMAP_FLAGS,OSD_FLAGS ] && [ -z "${seen[2]}" ] ||
	fail "the cluster raised '${seen[0]}', '${seen[1]}', '${seen[2]}': not the checks this test sets"

S=$TMP/hc.snap.json
ev=$(json "$S" "' '.join('[' + e['checks'] + ']' for e in d['events'] if e['op'] == 'health')")
ok "the engine's health events: $ev"
# in order, what the CLI listed after each change (a poll may also catch the state between the
# two unsets, or the first flag before its first poll); each event a change from the one before
/usr/bin/python3 - "$S" "${seen[@]}" <<'PY' || fail "the engine's health events hold '$ev', not the checks ceph health detail listed in order, one event a change"
import json, sys
ev = [(e["checks"], e["health"]) for e in json.load(open(sys.argv[1]))["events"] if e["op"] == "health"]
want, i = sys.argv[2:], 0
for c, h in ev:
    if i < len(want) and c == want[i]:
        i += 1
changes = all(a != b for a, b in zip(ev, ev[1:]))
levels = all((h == "HEALTH_OK") == (c == "") for c, h in ev)
sys.exit(0 if i == len(want) and changes and levels else 1)
PY
ok "an event for each change of the checks, OSDMAP_FLAGS,OSD_FLAGS at the same level (HEALTH_WARN) as OSDMAP_FLAGS"
cs=$(json "$S" "d['health']['checks_seen']")
[ "$cs" = OSDMAP_FLAGS,OSD_FLAGS ] || fail "checks_seen: '$cs'"
grep -q "^  health checks raised: OSDMAP_FLAGS,OSD_FLAGS " "$TMP/hc.err" || fail "the report does not list the checks"
ok "checks_seen and the report's line: $cs"
