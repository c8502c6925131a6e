#!/bin/bash
# Description: tools/cluster up accepts a running cluster whose osd_op_complaint_time differs and applies the time asked
# In full: tools/cluster up on a running cluster whose osd_op_complaint_time differs (make demo / make
# results leave it at 2 s): the cluster is accepted and the OSD runs with the time asked (osd.0's
# admin socket), in both orders; another profile is still refused
. "$(dirname "$0")/lib.sh"
own_cluster_only "tests tools/cluster's own cluster"
need_cluster
CL=$REPO/tools/cluster
DIR=$(dirname "$CEPH_CONF")
at_exit '"$CL" up >/dev/null 2>&1'	# leave it as the other tests expect it
# what the running OSD uses, from its admin socket (not through tools/cluster)
osd_value() { timeout 30 ceph daemon "$DIR/run/ceph-osd.0.asok" config get "$1" | py json - "'%g' % float(d['$1'])"; }
osd_val() { [ -S "$DIR/run/ceph-osd.0.asok" ] || fail "no admin socket of osd.0 in $DIR/run"; osd_value "$@"; }
up_ok() { # WHAT ENV... : tools/cluster up must succeed
	local what=$1; shift
	env "$@" "$CL" up >"$TMP/up.log" 2>&1 || { cat "$TMP/up.log"; fail "$what: tools/cluster up refused the running cluster"; }
}
up_ok "plain up"
up_ok "up with DBFIO_OSD_COMPLAINT_TIME=2 after a plain up" DBFIO_OSD_COMPLAINT_TIME=2
[ "$(osd_val osd_op_complaint_time)" = 2 ] ||
	fail "complaint time 2 asked, osd.0 runs with $(osd_val osd_op_complaint_time)"
[ "$(osd_val osd_op_history_slow_op_threshold)" = 2 ] ||
	fail "slow-op history threshold: osd.0 runs with $(osd_val osd_op_history_slow_op_threshold), not 2"
grep -q '^osd_op_complaint_time = 2$' "$CEPH_CONF" || fail "ceph.conf does not keep 2 s for an OSD restart"
"$CL" status | grep -q 'osd_op_complaint_time 2$' || fail "status: $("$CL" status | grep profile)"
ok "up with the variable after a plain up: accepted, osd.0 complains at 2 s"
up_ok "plain up after DBFIO_OSD_COMPLAINT_TIME=2" -u DBFIO_OSD_COMPLAINT_TIME
v=$(osd_val osd_op_complaint_time)
[ "$v" = 30 ] || fail "a plain up (Ceph default 30 s) left osd.0 at $v"
[ "$(osd_val osd_op_history_slow_op_threshold)" = 10 ] || fail "slow-op threshold not back to 10"
! grep -q '^osd_op_complaint_time' "$CEPH_CONF" || fail "ceph.conf still sets osd_op_complaint_time"
ok "plain up after the variable: accepted, osd.0 back at 30 s"
if env DBFIO_OSD_COUNT=2 "$CL" up >"$TMP/up2.log" 2>&1; then fail "up with 2 OSDs accepted a 1-OSD cluster"; fi
grep -q "already up with another profile" "$TMP/up2.log" || fail "another profile: $(cat "$TMP/up2.log")"
ok "another profile (2 OSDs) is still refused"
