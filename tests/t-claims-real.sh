#!/bin/bash
# Description: claims.py: the real server's verdict beside the model's, and what it says of the model, on fixtures
# Tier: quick
# In full: each claim judged a second time on the real server's figures (real:KEY, lab/experiment.d/realdb.py)
# by the same rules; both reversed = the platform differs from the seed's, directions that differ = the model
# is wrong, the same direction = the model agrees, a real verdict inconclusive = undecided; a claim the real
# server did not measure gets no real verdict, and a run without real figures renders the table as before.
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no repo"
cat >"$TMP/fix.json" <<'JSON'
{"seed": "fixture", "claims": [
 {"id": "both-reversed", "words": "a is 2x b", "seed": {"a": 2, "b": 1}, "a": "t/a1", "b": "t/b", "compare": {"kind": "factor"},
  "differs": [{"when": "reversed", "text": "explained"}]},
 {"id": "model-reversed", "words": "a is 2x b", "seed": {"a": 2, "b": 1}, "a": "t/a2", "b": "t/b", "compare": {"kind": "factor"},
  "differs": [{"when": "reversed", "text": "explained"}]},
 {"id": "real-reversed", "words": "a is 2x b", "seed": {"a": 2, "b": 1}, "a": "t/a3", "b": "t/b", "compare": {"kind": "factor"}},
 {"id": "agree", "words": "a is 2x b", "seed": {"a": 2, "b": 1}, "a": "t/a4", "b": "t/b", "compare": {"kind": "factor"}},
 {"id": "undecided", "words": "a is 2x b", "seed": {"a": 2, "b": 1}, "a": "t/a5", "b": "t/b", "compare": {"kind": "factor"}},
 {"id": "no-real", "words": "a is 2x b", "seed": {"a": 2, "b": 1}, "a": "u/a", "b": "t/b", "compare": {"kind": "factor"}},
 {"id": "threshold", "words": "a at most 1.25x b", "seed": {"a": 1.1, "b": 1}, "a": "t/a6", "b": "t/b",
  "compare": {"kind": "threshold", "op": "le", "value": 1.25, "pivot": 2, "bound": {"op": "gt", "value": 1}},
  "differs": [{"when": "reversed", "text": "explained"}]}
]}
JSON
PYTHONPATH=lab/experiment.d /usr/bin/python3 - "$TMP/fix.json" >"$TMP/out" 2>&1 <<'EOF' || { cat "$TMP/out"; fail "python failed"; }
import sys
import claims
five = lambda v: [v * x for x in (0.9, 0.95, 1, 1.05, 1.1)]
m = {"t/b": [1] * 5, "u/a": five(2), "real:t/b": [1] * 5,
     "t/a1": five(0.5), "real:t/a1": five(0.6),         # both reversed
     "t/a2": five(0.5), "real:t/a2": five(2),           # the model reversed, the real server as the seed
     "t/a3": five(2), "real:t/a3": five(0.5),           # the real server reversed, the model as the seed
     "t/a4": five(2), "real:t/a4": five(1.9),
     "t/a5": five(2), "real:t/a5": [0.5, 2, 2.2, 2.4, 2.1],
     "t/a6": five(3), "real:t/a6": five(3)}             # threshold: both on the other side of its pivot 2
d = claims.load(sys.argv[1])
j = dict((c["id"], r) for c, r in claims.judge(d, m))
want = {"both-reversed": "platform differs", "model-reversed": "model wrong", "real-reversed": "model wrong",
        "agree": "model agrees", "undecided": "undecided", "threshold": "platform differs"}
for k, v in want.items():
    got = j[k].get("reading")
    print(f"{k}: model {j[k]['verdict']}, real {j[k]['real']['verdict']}, reading {got}")
    assert got == v, f"{k}: reading {got!r}, want {v!r}"
assert j["agree"]["real"]["verdict"] == "reproduced" and j["both-reversed"]["real"]["verdict"] == "reversed"
assert "real" not in j["no-real"] and "reading" not in j["no-real"], j["no-real"]
t = claims.table(claims.judge(d, m))
assert "the real server here" in t.splitlines()[0], t.splitlines()[0]
assert all(ln.count("|") == t.splitlines()[0].count("|") for ln in t.splitlines()[:9]), t
row = [ln for ln in t.splitlines() if ln.startswith("| `model-reversed`")][0]
assert "→ reproduced; **the model is wrong**" in row, row
assert "the platform differs from the seed's **2**, the model is wrong **2**, the model agrees **1**" in t, t
plain = {k: v for k, v in m.items() if not k.startswith("real:")}
t0 = claims.table(claims.judge(d, plain))
assert "real server" not in t0 and t0.splitlines()[0].count("|") == 8, t0.splitlines()[0]
print("ok")
EOF
grep -qx ok "$TMP/out" || { cat "$TMP/out"; fail "no ok"; }
ok "real verdicts and readings as the fixtures say"
