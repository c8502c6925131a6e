#!/bin/bash
# Description: curated experiments: every jobs/seed00N-*.fio parses, names its seed and documents its variables
# Timeout: 180
# In full: curated experiments: every jobs/seed00N-*.fio parses, names its seed and documents its
# variables; seed 002 short end to end
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no repo"
seeds="000_c7dd31c7683102f1.txt 001_bf2b4400e01b8439.txt 002_336a0d952161dbe4.txt 003_60e70602d5e8033c.txt"
n=0
for j in jobs/seed00[0-3]-*.fio; do
	[ -e "$j" ] || fail "no jobs/seed00N-*.fio"
	n=$((n + 1))
	# the leading comment block: source, figure/table, prerequisites, variables
	head=$(awk '/^[[:space:]]*$/ {next} /^[#;]/ {print; next} {exit}' "$j")
	src=$(grep -o '\.\./shared/seeds/[0-9a-f_]*\.txt' <<<"$head" | head -1)
	[ -n "$src" ] || fail "$j: no ../shared/seeds/<file> in its comment block"
	case " $seeds " in *" ${src##*/} "*) ;; *) fail "$j: unknown seed $src" ;; esac
	[ "seed${src:16:3}" = "${j:5:7}" ] || fail "$j names $src"
	[ ! -d "$REPO/../shared/seeds" ] || [ -f "$REPO/$src" ] || fail "$j: $src does not exist"
	grep -qi 'prerequisites' <<<"$head" || fail "$j: no Prerequisites in its comment block"
	# every ${VAR} documented as "# var: NAME=DEFAULT  text"; set them for fio
	envs=()
	for v in $(grep -o '\${[A-Za-z_][A-Za-z0-9_]*}' "$j" | tr -d '${}' | sort -u); do
		[ "$v" = SWEEP_POINT_DIR ] && { envs+=("SWEEP_POINT_DIR=$TMP"); continue; }
		[ "$v" = DBFIO_LIB ] && { envs+=("DBFIO_LIB=$B"); continue; }
		line=$(grep -E "^[#;] var: $v=[^ ]*[[:space:]]+[^ ]" <<<"$head") ||
			fail "$j: \${$v} has no '# var: $v=DEFAULT  text' line"
		d=$(sed -E "s/^[#;] var: $v=([^ ]*).*/\1/" <<<"$line")
		envs+=("$v=$d")
	done
	# fio --parse-only with the defaults (engines loaded from build/; one not built: not parsed)
	miss=$(grep -oE '(build|\$\{DBFIO_LIB\})/[a-z]*\.so' "$j" | sed "s,^\${DBFIO_LIB},$B," | sort -u | while read -r so; do [ -f "$so" ] || echo "$so"; done)
	[ -z "$miss" ] || { echo "note: $j not parsed: $miss not built"; continue; }
	env "${envs[@]}" "$FIO" --parse-only "$j" >"$TMP/parse.out" 2>&1 ||
		{ cat "$TMP/parse.out"; fail "$j: fio --parse-only failed"; }
	grep -qiE 'bad option|failed parsing|dropped' "$TMP/parse.out" && { cat "$TMP/parse.out"; fail "$j: fio complains"; }
done
[ "$n" -ge 4 ] || fail "only $n seed job files"
for s in 000 001 002 003; do ls jobs/seed$s-*.fio >/dev/null 2>&1 || fail "no job file for seed $s"; done
ok "$n job files parse, name their seed, document every variable"

# seed 002, short, local only (no GlusterFS, no Ceph): sweep, page, index, strip
export DBFIO_GLUSTER_DIR=$TMP/no-gluster DBFIO_EXP_LOCAL=$TMP/local
unset CEPH_CONF GLUSTER_MNT
out=$TMP/out
"$REPO/lab/experiment" --short --repeats 2 --only seed002 --strip --out "$out" >"$TMP/exp.out" 2>"$TMP/exp.err" ||
	{ cat "$TMP/exp.err"; fail "lab/experiment --short --only seed002 failed"; }
page=$out/seed002-mysql-glusterfs.md
[ -f "$page" ] || fail "no page $page"
grep -qE '^\| data on local ext4 \| [0-9]+\.[0-9]+ \([0-9.]+–[0-9.]+\) \| [0-9]+\.[0-9]+ \(.*\| 0\.20 \| 28\.00 \|' "$page" ||
	{ cat "$page"; fail "no measured schema/export row (median, min-max) beside the seed's numbers"; }
grep -q '^## The seed.s claims' "$page" || fail "the page does not open with the claims"
grep -qE '^\| `schema-90x` \|.*\| not attempted: no measurement of gluster/schema' "$page" || fail "claim schema-90x not 'not attempted' without GlusterFS"
grep -qE '^\| `single-process-mode` \|.*\| not attempted: option gone' "$page" || fail "a gone option is not said so"
# the seed's run folder is packed (one line a file); unpacked, it is the folders the sweeps wrote
[ -f "$out/runs/seed002.jsonl" ] && [ ! -e "$out/runs/seed002" ] || fail "the run folder is not packed into runs/seed002.jsonl"
"$REPO/lab/runpack" unpack "$out/runs/seed002.jsonl" "$out/runs/seed002" 2>/dev/null || fail "runs/seed002.jsonl does not unpack"
[ "$(find "$out/runs/seed002/local/export" -name point.json | wc -l)" = 2 ] || fail "not 2 repeats of the export"
# results/ names no machine's paths: the checkout's own is written relative to it (DBFIO_LIB=build)
! grep -qF "$REPO/" "$out/runs/seed002.jsonl" || fail "the pack names the checkout's path $REPO/"
grep -qF 'DBFIO_LIB=build ' "$out/runs/seed002.jsonl" || fail "the pack's commands do not name build/ relative to the checkout"
grep -q 'tools/sweep jobs/seed002-schema.fio' "$page" || fail "the page does not give the exact command"
grep -q 'drop_caches' "$page" || fail "the page does not say the page cache was dropped"
grep -q '## What differs and why' "$page" || fail "no 'what differs' section"
grep -q 'no GlusterFS volume' "$page" || fail "the page does not say GlusterFS was missing"
grep -q 'seed002-mysql-glusterfs.md' "$out/README.md" || fail "README.md does not index the page"
grep -q 'Printing schema' "$TMP/exp.out" || fail "the table was not printed"
grep -qE '^  export-5.9x +not attempted' "$TMP/exp.out" || fail "the short claim list was not printed"
p=$(find "$out/runs" -name point.json | head -1)
[ -n "$p" ] || fail "no run folder point.json"
py stripped "$p" || fail "point.json not stripped"
mkdir "$TMP/strip"
py strip-idempotent "$TMP/strip" || fail "--strip is not idempotent on fio.err (a second strip lost the count)"
[ ! -e "$TMP/local/seed002" ] || fail "local scratch files left in $TMP/local/seed002"
rm -rf "$out/runs/seed002"
"$REPO/lab/experiment" --replay --out "$out" --only seed002 >"$TMP/replay.out" 2>&1 ||
	{ cat "$TMP/replay.out"; fail "the page is not what its packed runs give (lab/experiment --replay)"; }
ok "seed 002 short: page, index, stripped JSON ($(du -sk "$out" | cut -f1) kB)"
