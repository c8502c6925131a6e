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
python3 - "$TMP/fix.json" <<'PY' || fail "verdicts on the fixture"
import sys, os, json
sys.path.insert(0, os.path.join(os.environ.get("REPO", "."), "tools", "experiment.d"))
import claims
# repeat i of a over repeat i of b; hand-computed:
#   x: 7/2=3.5 8/2=4 9/2=4.5 -> median 4.0 (seed 4: within 2x) -> reproduced
#   y: 1.2 1.5 1.1 -> 1.2: above 1 like the seed, 3.3x off -> direction only
#   z: 0.5 0.25 0.4 -> 0.4: below 1, the seed above -> reversed
#   below: b/a = 0.25 (seed 0.5, within 2x) -> reproduced
#   t/low 10,20,5 over 400 -> 0.025 <= 0.1 -> reproduced; t/mid 200 over 400 -> 0.5, same side -> direction only
#   no-effect: 400/200 = 2 outside 0.8-1.25 -> reversed; count: median 3 >= 1 -> reproduced
m = {"x/a": [7, 8, 9], "x/b": [2, 2, 2], "y/a": [1.2, 3, 1.1], "y/b": [1, 2, 1], "z/a": [1, 1, 2], "z/b": [2, 4, 5],
     "t/low": [10, 20, 5], "t/mid": [200, 200, 200], "t/base": [400, 400, 400], "t/slow": [0, 3, 7]}
want = {"same-2x": ("reproduced", 4.0, 3.5, 4.5), "dir-only": ("direction only", 1.2, 1.1, 1.5),
        "reversed": ("reversed", 0.4, 0.25, 0.5), "below": ("reproduced", 0.25, 2 / 9, 2 / 7),
        "absent": ("not attempted",), "gone": ("not attempted",), "collapse": ("reproduced", 0.025, 0.0125, 0.05),
        "collapse-partly": ("direction only", 0.5, 0.5, 0.5), "no-effect": ("reversed", 2.0, 2.0, 2.0),
        "count": ("reproduced", 3, 0, 7)}
d = claims.load(sys.argv[1])
for c, r in claims.judge(d, m):
    w = want[c["id"]]
    assert r["verdict"] == w[0], (c["id"], r, w)
    if len(w) > 1:
        assert abs(r["median"] - w[1]) < 1e-9 and abs(r["min"] - w[2]) < 1e-9 and abs(r["max"] - w[3]) < 1e-9, (c["id"], r, w)
        assert r["n"] == 3, (c["id"], r)
r = dict((c["id"], r) for c, r in claims.judge(d, m))
assert "nothere/a" in r["absent"]["reason"] and r["gone"]["reason"] == "the option no longer exists"
tab, expl, judged = claims.render(sys.argv[1], m)
assert "| `reversed` | a is 4x b | a 4.00 / b 1.00 = **4.00×** | **0.4×** (0.25–0.5, n=3)" in tab, tab
assert "reproduced **4**, direction only **2**, reversed **2**, not attempted **2**" in tab, tab
assert "- **`reversed`** (reversed): explained" in expl, expl
# the same claim without its explanation: the page is refused
del d["claims"][2]["differs"]
json.dump(d, open(sys.argv[1] + ".bare", "w"))
try:
    claims.render(sys.argv[1] + ".bare", m)
    raise SystemExit("a reversed claim without an explanation was accepted")
except claims.MissingExplanation as e:
    assert str(e).endswith("explanation: reversed (add one to the claim file; the page was not written)"), e
    print("refused:", e)
# malformed files are refused with the claim named
for bad, why in (({"claims": [{"id": "q", "words": "w", "seed": {}, "a": "k", "compare": {"kind": "vibes"}}]}, "compare.kind"),
                 ({"claims": [{"id": "q", "words": "w", "seed": {"a": 1, "b": 2}, "a": "k", "compare": {"kind": "threshold", "op": "eq"}}]}, "compare.op"),
                 ({"claims": [{"id": "q", "words": "w", "seed": {}, "not_attempted": "x"}, {"id": "q", "words": "w", "seed": {}, "not_attempted": "x"}]}, "twice")):
    json.dump(bad, open(sys.argv[1] + ".bad", "w"))
    try:
        claims.load(sys.argv[1] + ".bad")
        raise SystemExit(f"malformed claim file accepted ({why})")
    except claims.ClaimError as e:
        assert why in str(e) and "claim q" in str(e), e
PY
ok "fixture: reproduced 4, direction only 2, reversed 2, not attempted 2; a reversed claim without explanation is refused"

# The same refusal end to end: tools/experiment writes no page and exits 1.
REPO=$REPO python3 - "$TMP" <<'PY' || fail "tools/experiment wrote a page for a reversed claim without explanation"
import sys, os, types, importlib.machinery, json
tmp = sys.argv[1]
X = importlib.machinery.SourceFileLoader("experiment", os.path.join(os.environ["REPO"], "tools", "experiment")).load_module()
os.makedirs(os.path.join(tmp, "claims"))
json.dump({"seed": "seed001", "claims": [{"id": "up", "words": "grows 3x", "seed": {"a": 3, "b": 1},
           "a": "rbd/tps-64", "b": "rbd/tps-4", "compare": {"kind": "factor"}}]}, open(os.path.join(tmp, "claims", "seed001.json"), "w"))
X.CLAIMS = os.path.join(tmp, "claims")
def fake(ctx):          # numbers that reverse the claim, no fio
    for i, (a, b) in enumerate(((1, 2), (1, 3), (2, 3))):
        ctx.measure("rbd/tps-64", i, a)
        ctx.measure("rbd/tps-4", i, b)
    return "body"
X.run_seed001 = fake
rc = X.main(["--short", "--only", "seed001", "--out", os.path.join(tmp, "out")])
assert rc == 1, rc
assert not os.path.exists(os.path.join(tmp, "out", "seed001-pgbench-rbd.md"))
json.dump({"seed": "seed001", "claims": [{"id": "up", "words": "grows 3x", "seed": {"a": 3, "b": 1},
           "a": "rbd/tps-64", "b": "rbd/tps-4", "compare": {"kind": "factor"}, "differs": "because"}]},
          open(os.path.join(tmp, "claims", "seed001.json"), "w"))
assert X.main(["--short", "--only", "seed001", "--out", os.path.join(tmp, "out")]) == 0
page = open(os.path.join(tmp, "out", "seed001-pgbench-rbd.md")).read()
assert page.index("## The seed's claims") < page.index("## Measurements"), "the claim table does not open the page"
assert "| `up` | grows 3x | a 3.00 / b 1.00 = **3.00×** | **0.5×** (0.333–0.667, n=3)" in page and "| reversed |" in page
assert "- **`up`** (reversed): because" in page
idx = open(os.path.join(tmp, "out", "README.md")).read()
assert "| 0 / 0 / 1 / 0 |" in idx, idx
PY
ok "tools/experiment refuses the page (exit 1) without the explanation, writes it with one"

for f in results/claims/seed00[0-3].json; do
	python3 -c 'import sys; sys.path.insert(0, "tools/experiment.d"); import claims; d = claims.load(sys.argv[1]); assert len(d["claims"]) >= 5' "$f" ||
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
