#!/bin/bash
# Description: lab/experiment --rejudge: new verdicts from the packed runs, the page's run and measurements kept
# Tier: quick
# In full: lab/experiment --rejudge on a copy of results/ (seed 002 and 003): no fio, no cluster; each
# page keeps its run's date, measurement tables and commands byte for byte (compared with sed ranges
# of the original), gets the claim table with the repeats agreeing, says on its Source line and in one
# note (also after a second --rejudge) that it was re-judged from the packed runs of its run's date;
# results/README.md says so and its row counts what the page's "Verdicts:" line says; a seed without a pack is refused
. "$(dirname "$0")/lib.sh"
OUT=$TMP/results
mkdir -p "$OUT"
cp -r "$REPO"/results/. "$OUT"/
section() { sed -n "/^## $2/,/^## $3/p" "$1"; }
for s in seed002-mysql-glusterfs seed003-rbd-snapshots; do
	section "$OUT/$s.md" Measurements "Exact commands" >"$TMP/$s.meas"
	section "$OUT/$s.md" "Exact commands" "What differs" >"$TMP/$s.cmds"
	grep -o '^Source: .*, [0-9-]* [0-9:]*, [0-9]* s, ' "$OUT/$s.md" >"$TMP/$s.src"
done
for round in 1 2; do
	env -u CEPH_CONF -u GLUSTER_MNT "$REPO/lab/experiment" --rejudge --out "$OUT" --only seed002,seed003 \
		>"$TMP/rj.out" 2>"$TMP/rj.err" || { cat "$TMP/rj.err"; fail "--rejudge failed (round $round)"; }
done
for s in seed002-mysql-glusterfs seed003-rbd-snapshots; do
	P=$OUT/$s.md
	section "$P" Measurements "Exact commands" | cmp -s - "$TMP/$s.meas" || fail "$s: the measurements changed"
	section "$P" "Exact commands" "What differs" | cmp -s - "$TMP/$s.cmds" || fail "$s: the commands changed"
	src=$(cat "$TMP/$s.src")
	run=$(grep -o '[0-9]\{4\}-[0-9-]* [0-9:]*' "$TMP/$s.src")
	grep -qF "$src" "$P" || fail "$s: the Source line lost the run's date: $(grep '^Source' "$P")"
	grep '^Source: ' "$P" | grep -q "verdicts re-judged .* from this run's packed runs" ||
		fail "$s: the Source line does not say it was re-judged"
	[ "$(grep -c "^- verdicts re-judged by .lab/experiment --rejudge. on .* of the run of $run," "$P")" = 1 ] ||
		fail "$s: not one note naming the run of $run"
	# (then the real server's column, where a real database ran: seed 002)
	grep -qE '^\| claim \| the seed says \| .* \| verdict \| repeats agreeing \|( the real server here: [^|]* \|)?$' "$P" ||
		fail "$s: no claim table with the repeats agreeing"
	# the index row counts what the page says
	want=$(grep -o '^Verdicts: .*not attempted \*\*[0-9]*\*\*' "$P" | grep -o '\*\*[0-9]*\*\*' | tr -d '*' | paste -sd/ | sed 's|/| / |g')
	seed=${s%%-*}
	grep "^| \[$seed\]" "$OUT/README.md" | grep -qF "| $want |" ||
		fail "$seed: README.md's row does not count $want: $(grep "^| \[$seed\]" "$OUT/README.md")"
done
grep -q "^Verdicts re-judged by .lab/experiment --rejudge. on .* from the packed runs, without new measurements" \
	"$OUT/README.md" || fail "README.md does not say its verdicts were re-judged: $(sed -n 3p "$OUT/README.md")"
ok "re-judged seed 002 and 003 twice: measurements and commands unchanged, one note each, README counts match"
mv "$OUT/runs/seed002.jsonl" "$TMP/"
"$REPO/lab/experiment" --rejudge --out "$OUT" --only seed002 2>"$TMP/rj.err" && fail "--rejudge without a pack succeeded"
grep -q "^experiment: --rejudge: no page with its runs pack in $OUT" "$TMP/rj.err" || fail "no reason: $(cat "$TMP/rj.err")"
ok "a seed without its pack: $(cat "$TMP/rj.err")"
