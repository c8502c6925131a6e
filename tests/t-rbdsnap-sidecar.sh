#!/bin/bash
# Description: rbdsnap's snap_json is named as every dbfio sidecar: as given for each single job (a second [job] section too)
# Timeout: 120
# In full: rbdsnap's snap_json is named as every dbfio sidecar: as given for each single job (a second
# [job] section too), FILE.N for each job of numjobs>1 (ls as oracle)
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-sidecar
rbd_image "$IMG" 64M
mkdir -p "$TMP/s"
cat >"$TMP/side.fio" <<JOB
[global]
ioengine=external:$B/rbdsnap.so
clientname=admin
pool=rbd
rbdname=$IMG
invalidate=0
rw=randwrite
bs=4k
number_ios=200
[a]
snap_json=$TMP/s/a.json
[b]
snap_json=$TMP/s/b.json
[c]
numjobs=2
snap_json=$TMP/s/c.json
JOB
run_fio side "$TMP/side.fio" || { cat "$TMP/side.err"; fail "fio failed"; }
got=$(cd "$TMP/s" && ls | sort | tr '\n' ' ')
[ "$got" = "a.json b.json c.json.3 c.json.4 " ] || fail "sidecars [$got], want [a.json b.json c.json.3 c.json.4]"
for f in a b; do
	[ "$(json "$TMP/s/$f.json" "d['job']")" = $f ] || fail "$f.json is not job $f's report"
done
ok "sidecars: $got"
exit 0
