#!/bin/bash
# Description: seed 003's page and claims take SLOW_OPS from the first snapshot on, not the baseline's leftovers
# In full: seed 003's page and claims take SLOW_OPS from the first snapshot on - a sidecar whose
# baseline polls saw 256 SLOW_OPS (the previous run's leftovers) and at most 5 afterwards gives 5 in
# the summary table, the findings line and the rbd/slow-ops-max key (hand-made sidecars: with
# per-phase maxima, and an older one with only the timeline)
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no repo"
python3 - <<'PY' || fail "SLOW_OPS max taken from the baseline's leftovers"
import sys
sys.path.insert(0, "lab/experiment.d")
import seed003, seed003_measure

def ph(name, smax=None):
    p = {"name": name, "seconds": 2.0, "ios": 20, "iops": 10.0, "p50_us": 1e3, "p99_us": 2e3, "max_us": 3e3,
         "slow": 0, "osd_slow_ops": 1}
    if smax is not None:
        p["slow_ops_max"] = smax
    return p

names = ["baseline", "creating snap1", "snap1", "creating snap3", "snap3", "removing snap3", "after"]
# per-phase maxima (format 2): the baseline's 256 is the run's maximum
new = {"phases": [ph(n, m) for n, m in zip(names, [256, 2, 3, 4, 5, 1, 0])],
       "health": {"slow_ops_max": 256}, "osd_slow_ops": {"count": 6},
       "events": [{"t": 3.2, "op": "create"}], "timeline": []}
# no per-phase maxima: the timeline from the first event's second (3) on
old = {"phases": [ph(n) for n in names], "health": {"slow_ops_max": 256}, "osd_slow_ops": {"count": 6},
       "events": [{"t": 0.5, "op": "health"}, {"t": 3.2, "op": "create"}],
       "timeline": [{"t": 1, "slow_ops": 256}, {"t": 2, "slow_ops": 256}, {"t": 3, "slow_ops": 7},
                    {"t": 4, "slow_ops": 2}]}
bad = 0
for s, want in ((new, 5), (old, 7)):
    runs = [(3, 1, s, {p["name"]: p for p in s["phases"]})]
    row = seed003.s003_summary(runs, "x")[0]
    line = seed003.s003_findings(runs, "x")
    class Ctx:
        s003 = {"seedlike": (None, {})}
        got = {}
        def measure(self, key, r, v):
            self.got[key] = v
    seed003.s003_runs = lambda run, ctx, tag=None, rs=runs: rs
    c = Ctx()
    seed003_measure.measure(c)
    vals = (row[9], line.split("SLOW_OPS in health up to ")[1].split(" ")[0], c.got.get("rbd/slow-ops-max-3"))
    print(f"want {want}: summary {vals[0]}, findings {vals[1]}, key {vals[2]}")
    bad += vals != (want, str(want), want)
sys.exit(bad)
PY
ok "SLOW_OPS max from the first snapshot on (summary, findings, claim key)"
