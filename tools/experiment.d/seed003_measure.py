# tools/experiment.d/seed003_measure.py - seed 003's figures for its claims
# (results/claims/seed003.json), read from the rbdsnap sidecars (snaps.json)
# of the sweeps run_seed003 in tools/experiment made; run_seed003 itself is
# not changed. Every rbdsnap sweep the context saw counts as one repeat.
import json, os
from common import SW


def phase(s, name):
    return next((p for p in s.get("phases", []) if p["name"] == name), None)


def measure(ctx):
    rep = {1: 0, 3: 0}
    for name, out in ctx.swept:
        for n in (1, 3):
            try:
                with open(os.path.join(out, SW.point_name({"SNAPS": str(n)}), "snaps.json")) as fi:
                    s = json.load(fi)
            except (OSError, ValueError):
                continue
            r, rep[n] = rep[n], rep[n] + 1
            base = phase(s, "baseline")
            if not base:
                continue
            ctx.measure(f"rbd/iops-baseline-{n}", r, base["iops"])
            snaps = [p for p in s["phases"] if p["name"].startswith("snap")]
            ctx.measure(f"rbd/slow-ios-{n}", r, sum(p.get("slow", 0) for p in snaps))
            last, first, after = phase(s, f"snap{n}"), phase(s, "snap1"), phase(s, "after")
            if last:
                ctx.measure(f"rbd/iops-snap{n}", r, last["iops"])
            if first and n == 3:
                ctx.measure("rbd/iops-snap1-of-3", r, first["iops"])
            if after:
                ctx.measure(f"rbd/iops-after-{n}", r, after["iops"])
            ctx.measure(f"rbd/p99-baseline-{n}", r, base["p99_us"] / 1e3)
            ctx.measure(f"rbd/p50-baseline-{n}", r, base["p50_us"] / 1e3)
