#!/bin/bash
# Description: claim verdicts (tools/experiment.d/claims.py) on fixtures: reproduced, direction only, reversed (a page without its explanation is refused), not attempted, thresholds; the four claim files load
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no repo"
cat >"$TMP/fix.json" <<'JSON'
{"seed": "fixture", "claims": [
 {"id": "same-2x", "words": "a is 4x b", "seed": {"a": 4, "b": 1}, "a": "x/a", "b": "x/b", "compare": {"kind": "factor"}},
 {"id": "dir-only", "words": "a is 4x b", "seed": {"a": 4, "b": 1}, "a": "y/a", "b": "y/b", "compare": {"kind": "factor"}},
 {"id": "reversed", "words": "a is 4x b", "seed": {"a": 4, "b": 1}, "a": "z/a", "b": "z/b", "compare": {"kind": "factor"},
  "differs": "explained"},
 {"id": "below", "words": "a is half b", "seed": {"a": 1, "b": 2}, "a": "x/b", "b": "x/a", "compare": {"kind": "factor"}},
 {"id": "absent", "words": "no data", "seed": {"a": 1, "b": 2}, "a": "nothere/a", "b": "x/a", "compare": {"kind": "factor"}},
 {"id": "gone", "words": "option gone", "seed": {"text": "-"}, "not_attempted": "the option no longer exists"},
 {"id": "collapse", "words": "drops to nothing", "seed": {"a": 0, "b": 399}, "a": "t/low", "b": "t/base",
  "compare": {"kind": "threshold", "op": "le", "value": 0.1}},
 {"id": "collapse-partly", "words": "drops to nothing", "seed": {"a": 0, "b": 399}, "a": "t/mid", "b": "t/base",
  "compare": {"kind": "threshold", "op": "le", "value": 0.1}},
 {"id": "no-effect", "words": "no change", "seed": {"a": 1, "b": 1}, "a": "t/base", "b": "t/mid",
  "compare": {"kind": "threshold", "op": "within", "value": [0.8, 1.25]}, "differs": "noise"},
 {"id": "count", "words": "slow requests appear", "seed": {"text": "some"}, "a": "t/slow",
  "compare": {"kind": "threshold", "op": "ge", "value": 1}}
]}
JSON
py claims-fixture "$TMP/fix.json" || fail "verdicts on the fixture"
ok "fixture: reproduced 4, direction only 2, reversed 2, not attempted 2; a reversed claim without explanation is refused"

# The same refusal end to end: tools/experiment writes no page and exits 1.
py claims-experiment "$TMP" || fail "tools/experiment wrote a page for a reversed claim without explanation"
ok "tools/experiment refuses the page (exit 1) without the explanation, writes it with one"

for f in results/claims/seed00[0-3].json; do
	py claims-load "$f" 5 ||
		fail "$f does not load or has fewer than 5 claims"
done
ok "the four claim files load ($(cat results/claims/seed00[0-3].json | grep -c '"id"') claims)"

# seed 001's claim file against the keys tools/experiment.d/seed001.py records, on two
# hand-made curves: one that saturates as the seed's does (300 -> 870 tx/s, 2.9x) and one
# that grows with the connections (10 tx/s per connection: 16x from 4 to 64)
python3 - <<'PY' || fail "seed 001 claims on a saturating and a linear curve"
import sys, re
sys.path.insert(0, "tools/experiment.d")
import claims
d = claims.load("results/claims/seed001.json")
keys = {k for c in d["claims"] for k in (c.get("a"), c.get("b")) if isinstance(k, str)}
bad = [k for k in keys if not re.fullmatch(r"(local|ext4rbd)/tps-(4|8|16|32|64)", k)]
assert not bad, f"keys seed001.py does not record: {bad}"
conns = (4, 8, 16, 32, 64)
sat = {4: 300, 8: 420, 16: 600, 32: 780, 64: 870}
def m(curve, local64):
    r = {f"ext4rbd/tps-{c}": [curve[c], curve[c]] for c in conns}
    r["local/tps-64"] = [local64, local64]
    return r
v = {c["id"]: r["verdict"] for c, r in claims.judge(d, m(sat, 1200))}
# 870/300 = 2.9 (seed 3.02), 600/300 = 2.0 (2.06), 870/780 = 1.12 <= 1.25, 870/600 = 1.45 <= 2,
# 1200/870 = 1.38 (seed 4.62: 3.3x off), < 10
want = {"scaling-4-to-64": "reproduced", "scaling-4-to-16": "reproduced", "saturation-32-to-64": "reproduced",
        "saturation-16-to-64": "reproduced", "local-factor-4": "direction only",
        "not-orders-of-magnitude": "reproduced", "previous-4-tps": "not attempted"}
assert v == want, v
lin = {c: 10 * c for c in conns}
v = {c["id"]: r["verdict"] for c, r in claims.judge(d, m(lin, 640 * 20))}
# 640/40 = 16 (5.3x the seed's 3.02), 160/40 = 4 (1.9x of 2.06), 640/320 = 2 > 1.25, 640/160 = 4 > 2, 12800/640 = 20 >= 10
want = {"scaling-4-to-64": "direction only", "scaling-4-to-16": "reproduced", "saturation-32-to-64": "direction only",
        "saturation-16-to-64": "direction only", "local-factor-4": "direction only",
        "not-orders-of-magnitude": "direction only", "previous-4-tps": "not attempted"}
assert v == want, v
d0 = claims.load("results/claims/seed000.json")
sb = [c for c in d0["claims"] if c["id"].startswith("sysbench")]
assert sb and all(c["a"].endswith("/oltp-txps") and c["b"].endswith("/oltp-txps") for c in sb), sb
PY
ok "seed 001 claims: a saturating curve reproduces the seed's, a linear one does not; seed 000's sysbench claims name oltp-txps"
