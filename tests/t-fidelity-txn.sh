#!/bin/bash
# Description: fidelity's txn rows: verdicts on hand-computed figures
# Timeout: 300
# In full: fidelity's txn rows: verdicts on hand-computed figures (absolute tps on local within 25%; a
# ratio within 15% or the real database's round-to-round spread where wider), then a tiny real
# sysbench oltp_read_write (MariaDB) vs txn-sysbench.fio run whose row carries both figures and a
# verdict that agrees with them
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "lab/fidelity needs root (lab/dbtrace)"

# 1. the table from figures made up here; every expected cell computed by hand
py fidelity-table-fixture >"$TMP/table.md" || fail "the table could not be made from hand-made runs"
cat "$TMP/table.md"
row() { grep "^| $1 | $2 |" "$TMP/table.md" | awk -F'|' '{ gsub(/ /, ""); print $8 "|" $9 "|" $10 "|" $11 }'; }
# A local: 1200/1000 = +20% absolute, within 25%; real local 1000 both rounds: spread 0%
[ "$(row A local)" = "+20%(absolute)|0%|25%|yes" ] || fail "A local: $(row A local)"
# A cephfs: real ratios 0.38, 0.62 (median 0.5, spread 24%); dbfio 480/1200 = 0.4;
# gap 0.4/0.5 - 1 = -20%: beyond 15%, within the 24% spread
[ "$(row A cephfs)" = "-20%|24%|24%|yes(withinthespread)" ] || fail "A cephfs: $(row A cephfs)"
# B local: +30% absolute: no. B cephfs: real 0.475, 0.525 (spread 5%), dbfio 0.4: gap -20%, tolerance 15%: no
[ "$(row B local)" = "+30%(absolute)|0%|25%|**no**" ] || fail "B local: $(row B local)"
[ "$(row B cephfs)" = "-20%|5%|15%|**no**" ] || fail "B cephfs: $(row B cephfs)"
# C: one round, no spread: dbfio 396/900 = 0.44 vs 0.5: gap -12%, within 15%
[ "$(row C cephfs)" = "-12%|—|15%|yes" ] || fail "C cephfs: $(row C cephfs)"
[ "$(grep -c '^MISS' "$TMP/table.md")" = 2 ] || fail "expected 2 misses (B local, B cephfs)"
ok "verdicts and spreads match the hand-computed ones"

# 2. a tiny real run: sysbench at 2 threads on MariaDB and the txn engine, local only
command -v mariadbd >/dev/null && command -v sysbench >/dev/null ||
	fail "MariaDB or sysbench missing (tools/deps --with fidelity installs them)"
[ -f "$B/txn.so" ] || fail "build/txn.so is missing (run make)"
mkdir -p "$TMP/local"
chmod 755 "$TMP" "$TMP/local"
# dbtrace's sysbench workload: refused on PostgreSQL, several counts only untraced
"$REPO/lab/dbtrace" --db postgres --dir "$TMP/local" --workload sysbench --no-trace >"$TMP/bad1" 2>&1 &&
	fail "sysbench on postgres accepted"
grep -q "^dbtrace: the sysbench workload is MariaDB only$" "$TMP/bad1" || fail "sysbench on postgres: $(cat "$TMP/bad1")"
"$REPO/lab/dbtrace" --db mariadb --dir "$TMP/local" --workload sysbench --clients 1,4 >"$TMP/bad2" 2>&1 &&
	fail "several --clients traced accepted"
grep -q "several --clients need --no-trace" "$TMP/bad2" || fail "several --clients traced: $(cat "$TMP/bad2")"
# two rounds under strace (execve only): the real side (lab/dbtrace) runs first in
# round 1, dbfio's (fio) first in round 2
command -v strace >/dev/null || fail "strace missing"
mkdir "$TMP/exec"
strace -ff -ttt -qq --seccomp-bpf -e trace=execve -e signal=none -o "$TMP/exec/x" \
	"$REPO/lab/fidelity" ratios --targets "local=$TMP/local" --rounds 2 --seconds 2 --dbs mariadb \
	--pgbench-clients '' --sysbench-clients 2 --table-size 5000 --no-ddl --md "$TMP/r.md" >"$TMP/r.out" 2>&1 ||
	{ cat "$TMP/r.out"; fail "lab/fidelity ratios failed"; }
order=$(cat "$TMP"/exec/x.* | grep ' = 0$' | sort -n | grep -o 'execve("[^"]*/\(lab/dbtrace\|fio\)"' |
	sed 's/.*\///; s/"$//' | tr '\n' ' ')
[ "$order" = "dbtrace fio fio dbtrace " ] || fail "runs in the order '$order', not real-dbfio then dbfio-real"
ok "round 1 ran the real database first, round 2 the txn engine first"
cat "$TMP/r.md"
line=$(grep '^| sysbench oltp_read_write tps, 2 threads (txn) | local |' "$TMP/r.md") ||
	{ cat "$TMP/r.out"; fail "no sysbench row"; }
[ "$(grep -c '^| ' "$TMP/r.md")" = 2 ] || fail "not the header and one row: $(cat "$TMP/r.md")"
# the verdict agrees with the two figures: |dbfio / real - 1| <= 25%
echo "$line" | awk -F'|' '{
	r = $4 + 0; p = $5 + 0; v = $11; gsub(/ /, "", v)
	if (r <= 0 || p <= 0) { print "no figures: " $0; exit 1 }
	want = (p / r - 1 <= 0.25 && 1 - p / r <= 0.25) ? "yes" : "**no**"
	if (v != want) { print "verdict " v ", figures say " want; exit 1 }
	printf "real %.0f tps, txn %.0f tps: %s\n", r, p, v }' >"$TMP/check" || fail "$(cat "$TMP/check")"
[ -z "$(ls -A "$TMP/local")" ] || fail "the target is not empty afterwards: $(ls -A "$TMP/local")"
ok "sysbench row: $(cat "$TMP/check")"
