#!/bin/bash
# Description: fidelity's txn rows: verdicts on hand-computed figures (the 15/25 % rule), a tiny real run's row
# Timeout: 480
# In full: fidelity's txn rows: verdicts on hand-computed figures (a row within at |gap| <= 15 %, or 25 %
# where the real round-to-round spread exceeds 15 %, never wider; absolute tps on local under the same
# rule; in-sample rows not counted), then a tiny real sysbench oltp_read_write (MariaDB) vs
# txn-sysbench.fio run whose row carries both figures and a verdict that agrees with them, and a tiny
# pgbench row whose real tps agrees with the END; statements pgbench sent (strace of its sendto)
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "lab/fidelity needs root (lab/dbtrace)"

# 1. the table from figures made up here; every expected cell computed by hand
py fidelity-table-fixture >"$TMP/table.md" || fail "the table could not be made from hand-made runs"
cat "$TMP/table.md"
row() { grep "^| $1 | $2 |" "$TMP/table.md" | awk -F'|' '{ gsub(/ /, ""); print $8 "|" $9 "|" $10 "|" $11 "|" $13 }'; }
# A local: 1200/1000 = +20% absolute; real local 1000 both rounds: spread 0%, tolerance 15%: no
[ "$(row A local)" = "+20%(absolute)|0%|15%|**no**|out" ] || fail "A local: $(row A local)"
# A cephfs: real ratios 0.38, 0.62 (median 0.5, spread 24% > 15%); dbfio 480/1200 = 0.4;
# gap 0.4/0.5 - 1 = -20%: beyond 15%, within 25%
[ "$(row A cephfs)" = "-20%|24%|25%|yes(spread>15%)|out" ] || fail "A cephfs: $(row A cephfs)"
# B local: +30% absolute: no. B cephfs: real 0.475, 0.525 (spread 5%), dbfio 0.4: gap -20%, tolerance 15%: no
[ "$(row B local)" = "+30%(absolute)|0%|15%|**no**|out" ] || fail "B local: $(row B local)"
[ "$(row B cephfs)" = "-20%|5%|15%|**no**|out" ] || fail "B cephfs: $(row B cephfs)"
# C (in sample): one round, no spread: -10% absolute; dbfio 396/900 = 0.44 vs 0.5: gap -12%, within 15%
[ "$(row C local)" = "-10%(absolute)|—|15%|yes|**in**" ] || fail "C local: $(row C local)"
[ "$(row C cephfs)" = "-12%|—|15%|yes|**in**" ] || fail "C cephfs: $(row C cephfs)"
# D cephfs: real 0.3, 0.7 (median 0.5, spread 40%), dbfio 0.65: gap +30%: beyond 25% (the spread admits
# nothing more)
[ "$(row D cephfs)" = "+30%|40%|25%|**no**|out" ] || fail "D cephfs: $(row D cephfs)"
[ "$(grep -c '^MISS' "$TMP/table.md")" = 4 ] || fail "expected 4 misses (A local, B local, B cephfs, D cephfs)"
# out of sample: A, B, D on both targets; within: A cephfs, D local
[ "$(grep '^SHARE' "$TMP/table.md")" = "SHARE 2 6" ] || fail "share: $(grep '^SHARE' "$TMP/table.md")"
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
# the verdict agrees with the two figures: |dbfio / real - 1| <= 15%, or 25% where the spread
# column (two rounds) exceeds 15%
echo "$line" | awk -F'|' '{
	r = $4 + 0; p = $5 + 0; v = $11; gsub(/ /, "", v); sp = $9; gsub(/[ %]/, "", sp)
	if (r <= 0 || p <= 0) { print "no figures: " $0; exit 1 }
	g = p / r - 1; if (g < 0) g = -g; tol = (sp != "—" && sp + 0 > 15) ? 0.25 : 0.15
	want = g <= 0.15 ? "yes" : g <= tol ? "yes(spread>15%)" : "**no**"
	if (v != want) { print "verdict " v ", figures say " want; exit 1 }
	printf "real %.0f tps, txn %.0f tps: %s\n", r, p, v }' >"$TMP/check" || fail "$(cat "$TMP/check")"
[ -z "$(ls -A "$TMP/local")" ] || fail "the target is not empty afterwards: $(ls -A "$TMP/local")"
ok "sysbench row: $(cat "$TMP/check")"

# 3. the real figure of a row against a count the page does not make: every pgbench transaction
# ends with one "END;" the client sends (its builtin TPC-B script; pgbench -i sends none);
# strace counts them, and the row's tps x -T must agree (10 %: pgbench leaves its connection
# time out of tps)
secs=4
strace -f -qq --seccomp-bpf -e trace=sendto -e signal=none -s 24 -o "$TMP/send" \
	"$REPO/lab/fidelity" ratios --targets "local=$TMP/local" --rounds 1 --seconds $secs --dbs postgres \
	--pgbench-clients 2 --sysbench-clients '' --no-ddl --md "$TMP/p.md" >"$TMP/p.out" 2>&1 ||
	{ cat "$TMP/p.out"; fail "lab/fidelity ratios (pgbench) failed"; }
cat "$TMP/p.md"
ends=$(grep sendto "$TMP"/send | grep -cF '"Q\0\0\0\tEND;\0"')
tps=$(grep '^| pgbench tps, 2 clients (txn) | local |' "$TMP/p.md" | awk -F'|' '{ print $4 + 0 }')
[ "$ends" -gt 0 ] || fail "strace saw no END; sent: $(grep -m3 'END' "$TMP/send")"
awk -v e="$ends" -v t="$tps" -v s=$secs 'BEGIN { d = t * s / e - 1; if (d < 0) d = -d
	printf "row %.1f tps x %d s = %.0f transactions, strace %d END;\n", t, s, t * s, e; exit !(d <= 0.10) }' \
	>"$TMP/ends" || fail "the row's real tps disagrees with pgbench's END; count: $(cat "$TMP/ends")"
ok "pgbench row: $(cat "$TMP/ends")"
