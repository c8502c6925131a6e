#!/bin/bash
# Description: claim verdicts (lab/experiment.d/claims.py) on fixtures: reproduced, direction only, reversed
# In full: claim verdicts (lab/experiment.d/claims.py) on fixtures: reproduced, direction only,
# reversed (a page without its explanation for "reversed" is refused), not attempted, thresholds,
# pivots other than 1 (a reversed growth claim), the geometric middle of two repeats, a spread across
# the pivot; the four claim files load; seed 000's replicated-cluster claims on hand-made figures
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no repo"
cat >"$TMP/fix.json" <<'JSON'
{"seed": "fixture", "claims": [
 {"id": "same-2x", "words": "a is 4x b", "seed": {"a": 4, "b": 1}, "a": "x/a", "b": "x/b", "compare": {"kind": "factor"},
  "differs": [{"when": "direction only", "text": "a text for another verdict"}]},
 {"id": "dir-only", "words": "a is 4x b", "seed": {"a": 4, "b": 1}, "a": "y/a", "b": "y/b", "compare": {"kind": "factor"}},
 {"id": "reversed", "words": "a is 4x b", "seed": {"a": 4, "b": 1}, "a": "z/a", "b": "z/b", "compare": {"kind": "factor"},
  "differs": [{"when": "reversed", "text": "explained"}]},
 {"id": "below", "words": "a is half b", "seed": {"a": 1, "b": 2}, "a": "x/b", "b": "x/a", "compare": {"kind": "factor"}},
 {"id": "absent", "words": "no data", "seed": {"a": 1, "b": 2}, "a": "nothere/a", "b": "x/a", "compare": {"kind": "factor"}},
 {"id": "gone", "words": "option gone", "seed": {"text": "-"}, "not_attempted": "the option no longer exists"},
 {"id": "collapse", "words": "drops to nothing", "seed": {"a": 0, "b": 399}, "a": "t/low", "b": "t/base",
  "compare": {"kind": "threshold", "op": "le", "value": 0.1}},
 {"id": "collapse-partly", "words": "drops to nothing", "seed": {"a": 0, "b": 399}, "a": "t/mid", "b": "t/base",
  "compare": {"kind": "threshold", "op": "le", "value": 0.1}},
 {"id": "no-effect", "words": "no change", "seed": {"a": 1, "b": 1}, "a": "t/base", "b": "t/mid",
  "compare": {"kind": "threshold", "op": "within", "value": [0.8, 1.25]}, "differs": [{"when": ["reversed"], "text": "noise"}]},
 {"id": "count", "words": "slow requests appear", "seed": {"text": "some"}, "a": "t/slow",
  "compare": {"kind": "threshold", "op": "ge", "value": 1}},
 {"id": "growth-reversed", "words": "100x the records, 2.6x the time: far below linear", "seed": {"a": 12.06, "b": 4.69},
  "a": "g/100k", "b": "g/1k", "compare": {"kind": "factor", "pivot": [1, 100]},
  "differs": [{"when": "reversed", "text": "linear by construction"}, {"when": "direction only", "text": "not this one"}]},
 {"id": "growth-ok", "words": "far below linear", "seed": {"a": 12.06, "b": 4.69}, "a": "g2/100k", "b": "g2/1k",
  "compare": {"kind": "factor", "pivot": [1, 100]}},
 {"id": "conns-linear", "words": "4x the connections gain 1.5x", "seed": {"a": 866, "b": 591}, "a": "c/64", "b": "c/16",
  "compare": {"kind": "threshold", "op": "le", "value": 2.0, "pivot": 4}, "differs": [{"when": "reversed", "text": "linear"}]},
 {"id": "conns-between", "words": "4x the connections gain 1.5x", "seed": {"a": 866, "b": 591}, "a": "c/64b", "b": "c/16",
  "compare": {"kind": "threshold", "op": "le", "value": 2.0, "pivot": 4}},
 {"id": "magnitude", "words": "within an order of magnitude", "seed": {"a": 4000, "b": 866}, "a": "l/64", "b": "c/64",
  "compare": {"kind": "threshold", "op": "lt", "value": 10, "pivot": 10}, "differs": [{"when": "reversed", "text": "20x"}]},
 {"id": "orient-ab", "words": "a is 1.26x b", "seed": {"a": 1.26, "b": 1}, "a": "o/a", "b": "o/b", "compare": {"kind": "factor"}},
 {"id": "orient-ba", "words": "b is 1/1.26 of a", "seed": {"a": 1, "b": 1.26}, "a": "o/b", "b": "o/a", "compare": {"kind": "factor"}},
 {"id": "geo-ab", "words": "a is 4x b", "seed": {"a": 4, "b": 1}, "a": "q/a", "b": "q/b", "compare": {"kind": "factor"}},
 {"id": "geo-ba", "words": "b is a quarter of a", "seed": {"a": 1, "b": 4}, "a": "q/b", "b": "q/a", "compare": {"kind": "factor"}},
 {"id": "spread-crosses", "words": "a is 1.26x b", "seed": {"a": 1.26, "b": 1}, "a": "s/a", "b": "s/b",
  "compare": {"kind": "factor"}}
]}
JSON
py claims-fixture "$TMP/fix.json" || fail "verdicts on the fixture"
ok "fixture: reproduced 5, direction only 8, reversed 5, not attempted 2 (pivots, a/b and b/a alike, spread across the pivot); a reversed claim without an explanation for \"reversed\" is refused"

# The same refusal end to end: lab/experiment writes no page and exits 1.
py claims-experiment "$TMP" || fail "lab/experiment wrote a page for a reversed claim without explanation"
ok "lab/experiment refuses the page (exit 1) without the explanation, writes it with one"

for f in results/claims/seed00[0-3].json; do
	py claims-load "$f" 5 ||
		fail "$f does not load or has fewer than 5 claims"
done
ok "the four claim files load ($(cat results/claims/seed00[0-3].json | grep -c '"id"') claims)"

# seed 001's claim file against the keys lab/experiment.d/seed001.py records, on two
# hand-made curves: one that saturates as the seed's does (300 -> 870 tx/s, 2.9x) and one
# that grows with the connections (10 tx/s per connection: 16x from 4 to 64)
py claims-seed001-curves || fail "seed 001 claims on a saturating and a linear curve"
ok "seed 001 claims: a saturating curve reproduces the seed's, a linear one does not; seed 000's sysbench claims name oltp-txps"

# seed 000's replicated claims against the keys seed000.py records on the second cluster, on
# hand-made figures (3x slower there: reproduced; 2x faster: reversed, with its explanation)
py claims-seed000-replicated "$TMP" || fail "seed 000's replicated claims"
ok "seed 000 replicated claims: repl-cephfs / repl-ext4rbd keys, verdicts both ways, the replicated ÷ 1 OSD table"
