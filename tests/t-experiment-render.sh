#!/bin/bash
# Description: lab/experiment --render keeps a run stopped at its claims and writes the page once explained
# In full: lab/experiment --render: a run that stopped at its claims (a reversed claim without a
# "reversed" explanation) keeps its measurements; --render refuses again while the explanation is
# missing, then writes the page from them once the claim file has it (the page shows the text, the
# pending file goes, OUT/README.md counts the claims)
. "$(dirname "$0")/lib.sh"
C=$TMP/claims OUT=$TMP/out
mkdir -p "$C" "$OUT"
cp "$REPO"/results/claims/*.json "$C"/
# seed 001's 4 -> 64 connections claim, its "reversed" texts taken out
python3 - "$C/seed001.json" <<'PY' || fail "cannot edit the claim file copy"
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["claims"]:
    if c["id"] == "scaling-4-to-64":
        c["differs"] = [x for x in c.get("differs", []) if "reversed" not in (x["when"] if isinstance(x["when"], list) else [x["when"]])]
json.dump(d, open(sys.argv[1], "w"), indent=1)
PY
# what a run leaves when the page stops: tps falls from 4 to 64 connections (reversed)
python3 - "$REPO" "$OUT" <<'PY' || fail "cannot write the pending run"
import argparse, os, pickle, sys
sys.path.insert(0, os.path.join(sys.argv[1], "lab", "experiment.d"))
from common import Ctx
a = argparse.Namespace(out=sys.argv[2], short=True, demo=False, repeats=5)
ctx = Ctx(a, "seed001")
# five repeats: fewer get no verdict (claims.py), and so no refusal either
for rep, (t4, t64) in enumerate([(200, 100), (210, 95), (190, 105), (205, 98), (195, 102)]):
    ctx.measure("ext4rbd/tps-4", rep, t4)
    ctx.measure("ext4rbd/tps-64", rep, t64)
pickle.dump({"body": "BODY-MARKER", "ctx": ctx, "secs": 12.0, "cmdline": "lab/experiment --short"},
            open(os.path.join(sys.argv[2], ".pending-seed001.pickle"), "wb"))
PY
export DBFIO_CLAIMS_DIR=$C
"$REPO/lab/experiment" --render --out "$OUT" --only seed001 2>"$TMP/r1.err" &&
	fail "--render wrote a page with an unexplained reversed claim: $(cat "$TMP/r1.err")"
grep -q "scaling-4-to-64" "$TMP/r1.err" || fail "--render's refusal does not name the claim: $(cat "$TMP/r1.err")"
[ -e "$OUT/.pending-seed001.pickle" ] || fail "the refused --render dropped the measurements"
[ -e "$OUT/seed001-pgbench-rbd.md" ] && fail "a page was written for an unexplained reversed claim"
ok "refused while unexplained: $(grep -o 'reversed claim(s)[^(]*' "$TMP/r1.err")"
python3 - "$C/seed001.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["claims"]:
    if c["id"] == "scaling-4-to-64":
        c.setdefault("differs", []).append({"when": "reversed", "text": "EXPLAINED-MARKER"})
json.dump(d, open(sys.argv[1], "w"), indent=1)
PY
"$REPO/lab/experiment" --render --out "$OUT" --only seed001 2>"$TMP/r2.err" ||
	fail "--render failed with the explanation in place: $(cat "$TMP/r2.err")"
P=$OUT/seed001-pgbench-rbd.md
[ -e "$P" ] || fail "no page after --render"
grep -q "EXPLAINED-MARKER" "$P" || fail "the page lacks the reversed claim's explanation"
grep -q "BODY-MARKER" "$P" || fail "the page lacks the run's measurements"
grep "scaling-4-to-64" "$P" | grep -q "reversed" || fail "the page does not give scaling-4-to-64 as reversed"
[ -e "$OUT/.pending-seed001.pickle" ] && fail "the pending file is still there after the page"
grep -q "seed001" "$OUT/README.md" || fail "OUT/README.md does not index the page"
ok "rendered: the page gives scaling-4-to-64 reversed with its explanation; pending file gone; indexed"
