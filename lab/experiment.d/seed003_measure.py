# lab/experiment.d/seed003_measure.py - seed 003's figures for its claims
# (results/claims/seed003.json), read from the rbdsnap sidecars (snaps.json)
# and the CoW sweep that seed003.run made. The claims are about the seed's
# kind of cluster: the figures come from the seed-like cluster (tools/cluster
# --profile seed003) when it ran, else from CEPH_CONF's. Repeat r of a key is
# the point REP=r+1 (CoW: measurement r+1 of the two). Without a SNAPS=1 run
# (make demo) the SNAPS=3 run's first snapshot gives the stall of one create.
from common import jobs, point, sidecar


def joined(ph, *names):
    """IOPS of several phases (by name) taken together (I/Os over seconds)"""
    ps = [ph[n] for n in names if n in ph]
    secs = sum(p["seconds"] for p in ps)
    return sum(p["ios"] for p in ps) / secs if secs > 0 else None


def measure(ctx):
    res = getattr(ctx, "s003", {})
    tag = "seedlike" if "seedlike" in res else "bluestore" if "bluestore" in res else None
    if not tag:
        return
    run, cow, hold = (tuple(res[tag]) + (None,))[:3]
    from seed003 import COW_MEASURES, reps, s003_check, s003_runs, s003_slow_ops
    runs = s003_runs(run, ctx, tag)
    alone = not any(n == 1 for n, _, _, _ in runs)   # the demo: SNAPS=3 only
    for n, rep, s, ph in runs:
        r, base = rep - 1, ph.get("baseline")
        if not base:
            continue
        ctx.measure(f"rbd/iops-baseline-{n}", r, base["iops"])
        ctx.measure(f"rbd/p99-baseline-{n}", r, base["p99_us"] / 1e3)
        ctx.measure(f"rbd/p50-baseline-{n}", r, base["p50_us"] / 1e3)
        later = [p for p in s["phases"] if p["name"] != "baseline"]
        ctx.measure(f"rbd/slow-ios-{n}", r, sum(p.get("slow", 0) for p in later))
        ctx.measure(f"rbd/osd-slow-ops-{n}", r, sum(max(p.get("osd_slow_ops", 0), 0) for p in later))
        ctx.measure(f"rbd/slow-ops-max-{n}", r, s003_slow_ops(s))
        c = run and s003_check(run, SNAPS=n, REP=rep)   # the baseline check (OSD histories, stalled seconds)
        if c:
            ctx.measure(f"rbd/baseline-osd-slow-ops-{n}", r, c["osd"])
            ctx.measure(f"rbd/baseline-stalled-s-{n}", r, c["stalled"])
            ctx.measure(f"rbd/stalled-s-{n}", r, c["stalled_snap"])
        if "after" in ph:
            ctx.measure(f"rbd/iops-after-{n}", r, ph["after"]["iops"])
        if n == 1 or alone:   # the writes issued while the (first) snapshot was made and right after it
            v = joined(ph, "creating snap1", "snap1")
            if v is not None:
                ctx.measure("rbd/iops-snap1", r, v)
            if alone:
                ctx.measure("rbd/iops-baseline-1", r, base["iops"])
        for k in ((1, 3) if n == 3 else ()):
            if f"snap{k}" in ph:
                ctx.measure(f"rbd/iops-snap{k}" + ("-of-3" if k == 1 else ""), r, ph[f"snap{k}"]["iops"])
    for k, run_k in cow.items():   # ("sync", n): the sync+direct runs
        n = k[1] if isinstance(k, tuple) else k
        d = jobs(point(run_k, SNAPS=n))
        for r, m in enumerate(COW_MEASURES):
            if m in d:
                ctx.measure(f"rbd/cow{'sync' if isinstance(k, tuple) else ''}-iops-{n}", r, d[m]["write"]["iops"])
    for rep in (reps(ctx) if hold else ()):   # one snapshot held long: the onset
        c = s003_check(hold, SNAPS=1, REP=rep)
        s = c and sidecar(hold, "snaps.json", SNAPS=1, REP=rep)
        if not c:
            continue
        ph = {p["name"]: p for p in s["phases"]}
        ctx.measure("rbd/iops-baseline-hold1", rep - 1, c["iops"])
        ctx.measure("rbd/iops-hold1", rep - 1, joined(ph, "creating snap1", "snap1"))
        ctx.measure("rbd/baseline-osd-slow-ops-hold1", rep - 1, c["osd"])
        ctx.measure("rbd/hold1-held-s", rep - 1, c["held"])
        if c["osd_snap"] is not None:   # the OSD's history read in full
            ctx.measure("rbd/hold1-osd-slow-ops", rep - 1, c["osd_snap"])
        if c["onset_osd"] is not None:  # a hold with no slow op has no onset, not "at least the time held"
            ctx.measure("rbd/hold1-onset-s", rep - 1, c["onset_osd"])
