#!/bin/bash
# Description: tools/sweep: 2x2 matrix of a psync job, summary CSV/Markdown, SVG plots, re-run skips, --force, bad specs
. "$(dirname "$0")/lib.sh"
S=$REPO/tools/sweep
mkdir -p "$TMP/data"
cat >"$TMP/tiny.fio" <<EOF
# tiny.fio - sweep test: a small psync write job on \$TMP.
# var: DIR=$TMP/data  directory for the file
# \${SIZE} file size (default: 512k)
[global]
ioengine=psync
directory=\${DIR}
size=\${SIZE}
fsync=8
# a sidecar through SWEEP_POINT_DIR: fio's own write_bw_log
write_bw_log=\${SWEEP_POINT_DIR}/bw
# a sidecar by a relative name: fio runs in the point's directory
write_lat_log=rel
[w]
rw=\${RW}
bs=\${BS}
EOF
run=$TMP/run
sweep() { FIO=$FIO "$S" "$TMP/tiny.fio" BS=4k,16k RW=write,randwrite --out "$run" "$@"; }

sweep >"$TMP/out1" 2>"$TMP/err1" || { cat "$TMP/err1"; fail "first sweep failed"; }
n=$(find "$run" -name point.json | wc -l)
[ "$n" = 4 ] || fail "4 point.json expected, found $n"
for p in BS=4k_RW=write BS=4k_RW=randwrite BS=16k_RW=write BS=16k_RW=randwrite; do
	[ "$(json "$run/$p/point.json" "d['jobs'][0]['error']")" = 0 ] || fail "$p: fio error"
	ls "$run/$p"/bw*.log >/dev/null 2>&1 || fail "$p: no sidecar written through SWEEP_POINT_DIR"
	ls "$run/$p"/rel_*lat*.log >/dev/null 2>&1 || fail "$p: the relative sidecar is not in the point's directory"
	grep -q "^cwd: $run/$p\$" "$run/$p/point.txt" || fail "$p: fio did not run in the point's directory"
done
grep -q '^point 4/4 BS=16k RW=randwrite  eta ' "$TMP/err1" || { cat "$TMP/err1"; fail "no progress line with eta"; }
rows=$(py sweep-summary "$run/summary.csv")
[ "$rows" = "4 4" ] || fail "summary.csv: expected 4 ok rows with write.iops, got '$rows'"
grep -q '^| 16k | randwrite | ok | ' "$run/summary.md" || fail "summary.md has no row for BS=16k RW=randwrite"
ls "$run"/plot-*.svg >/dev/null 2>&1 || fail "no plot"
for f in "$run"/plot-*.svg; do
	py svg-lines "$f" 2 ||
		fail "$(basename "$f") is not an SVG with 2 lines"
done
ls "$REPO"/rel_*lat*.log >/dev/null 2>&1 && fail "a relative sidecar landed in the repository root"
ok "4 points, summary.csv 4 rows, $(ls "$run"/plot-*.svg | wc -l) SVG plots, relative sidecars in the point directories"

touch "$TMP/stamp"
sweep >/dev/null 2>"$TMP/err2" || { cat "$TMP/err2"; fail "re-run failed"; }
[ "$(grep -c 'kept (done before' "$TMP/err2")" = 4 ] || { cat "$TMP/err2"; fail "re-run did not skip all 4 points"; }
[ -z "$(find "$run" -name point.json -newer "$TMP/stamp")" ] || fail "re-run rewrote a point.json"
sweep --force >/dev/null 2>"$TMP/err3" || { cat "$TMP/err3"; fail "--force run failed"; }
[ "$(find "$run" -name point.json -newer "$TMP/stamp" | wc -l)" = 4 ] || fail "--force did not re-run all 4 points"
ok "re-run keeps 4 points, --force re-runs 4"

# A failing point is recorded, the others run, exit 1.
FIO=$FIO "$S" "$TMP/tiny.fio" BS=4k,nonsense RW=write --out "$TMP/run2" >/dev/null 2>"$TMP/err4"
[ $? = 1 ] || fail "a failed point should make sweep exit 1"
grep -q '^nonsense,write,failed: ' "$TMP/run2/summary.csv" || fail "failed point not recorded in summary.csv"
grep -q '^4k,write,ok,' "$TMP/run2/summary.csv" || fail "the good point did not run"
ok "failed point recorded: $(grep -m1 'failed:' "$TMP/err4" | sed 's/^ *//')"

# Bad specs: one line on stderr, exit 2, nothing run.
for bad in "BS" "BS=" "BS=4k,,8k" "1X=2" "BS=4k BS=8k"; do
	# shellcheck disable=SC2086
	"$S" "$TMP/tiny.fio" $bad RW=write --out "$TMP/bad" >"$TMP/o" 2>"$TMP/e"
	rc=$?
	[ $rc = 2 ] || fail "spec '$bad': exit $rc, expected 2"
	[ "$(wc -l <"$TMP/e")" = 1 ] || fail "spec '$bad': not a one-line error: $(cat "$TMP/e")"
done
[ -e "$TMP/bad" ] && fail "a bad spec created the run folder"
"$S" "$TMP/tiny.fio" BS=4k --out "$TMP/bad" 2>"$TMP/e"
[ $? = 2 ] && grep -q 'RW has no value' "$TMP/e" || fail "an unset job variable is not refused: $(cat "$TMP/e")"
ok "bad specs: $(head -c 80 "$TMP/e")"
