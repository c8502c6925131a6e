#!/bin/bash
# Description: tools/sweep --repeats 3: repeats interleaved, the table and plots give the median and min-max of fio's JSONs
# Tier: quick
# In full: tools/sweep --repeats 3 over two points of a storeio job on a temporary directory leaves
# three fio JSONs a point; read by Python (not sweep's code), fio's timestamps show every point's
# repeat i before any repeat i+1, summary.csv holds the median, min and max of each point's clat
# mean, summary.md the spread, each plot an error bar a point; --repeats 0 is refused in one line.
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/data"
cat >"$TMP/r.fio" <<EOF
# r.fio - sweep --repeats test: a small storeio write job on \$TMP.
# var: DIR=$TMP/data  directory for the file
[global]
ioengine=external:\${DBFIO_LIB}/storeio.so
directory=\${DIR}
size=256k
[w]
rw=write
bs=\${BS}
fsync=4
EOF
S=$REPO/tools/sweep
DBFIO_BUILD=$B FIO=$FIO "$S" "$TMP/r.fio" BS=4k,16k --repeats 3 --out "$TMP/run" \
	--metrics write.iops,write.clat_ns.mean >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "sweep failed"; }
cat "$TMP/err"
py sweep-repeats "$TMP/run" 3 write.clat_ns.mean BS=4k BS=16k || fail "the summary is not the repeats' median and spread"
ok "3 repeats of 2 points, interleaved; median and min–max in summary.csv, summary.md and the plots"

DBFIO_BUILD=$B FIO=$FIO "$S" "$TMP/r.fio" BS=4k --repeats 0 --out "$TMP/run0" >/dev/null 2>"$TMP/err0"
rc=$?
[ $rc = 2 ] && [ "$(grep -c . "$TMP/err0")" = 1 ] && grep -q -- "--repeats 0" "$TMP/err0" ||
	{ cat "$TMP/err0"; fail "--repeats 0: exit $rc, not one line naming it (exit 2)"; }
[ ! -e "$TMP/run0" ] || fail "--repeats 0 made a run folder"
ok "--repeats 0 refused: $(cat "$TMP/err0")"
