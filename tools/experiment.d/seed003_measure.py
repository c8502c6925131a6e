# tools/experiment.d/seed003_measure.py - seed 003's figures for its claims
# (results/claims/seed003.json), read from the rbdsnap sidecars (snaps.json)
# and the CoW sweep that seed003.run made. The claims are about the seed's
# kind of cluster: the figures come from the seed-like cluster (tools/cluster
# --profile seed003) when it ran, else from CEPH_CONF's. Repeat r of a key is
# the point REP=r+1 (CoW: measurement r+1 of the two).
from common import jobs, point, sidecar


def phase(s, name):
    return next((p for p in s.get("phases", []) if p["name"] == name), None)


def joined(s, *names):
    """IOPS of several phases taken together (I/Os over seconds)"""
    ps = [p for p in (phase(s, n) for n in names) if p]
    secs = sum(p["seconds"] for p in ps)
    return sum(p["ios"] for p in ps) / secs if secs > 0 else None


def measure(ctx):
    res = getattr(ctx, "s003", {})
    tag = "seedlike" if "seedlike" in res else "bluestore" if "bluestore" in res else None
    if not tag:
        return
    run, cow = res[tag]
    from seed003 import reps
    for r, rep in enumerate(reps(ctx)):
        for n in (1, 3):
            s = sidecar(run, "snaps.json", SNAPS=n, REP=rep)
            base = s and phase(s, "baseline")
            if not base:
                continue
            ctx.measure(f"rbd/iops-baseline-{n}", r, base["iops"])
            ctx.measure(f"rbd/p99-baseline-{n}", r, base["p99_us"] / 1e3)
            ctx.measure(f"rbd/p50-baseline-{n}", r, base["p50_us"] / 1e3)
            later = [p for p in s["phases"] if p["name"] != "baseline"]
            ctx.measure(f"rbd/slow-ios-{n}", r, sum(p.get("slow", 0) for p in later))
            ctx.measure(f"rbd/osd-slow-ops-{n}", r, sum(max(p.get("osd_slow_ops", 0), 0) for p in later))
            ctx.measure(f"rbd/slow-ops-max-{n}", r, s["health"]["slow_ops_max"])
            after = phase(s, "after")
            if after:
                ctx.measure(f"rbd/iops-after-{n}", r, after["iops"])
            if n == 1:   # the writes issued while the snapshot was made and right after it
                v = joined(s, "creating snap1", "snap1")
                if v is not None:
                    ctx.measure("rbd/iops-snap1", r, v)
            else:
                for k in (1, 3):
                    p = phase(s, f"snap{k}")
                    if p:
                        ctx.measure(f"rbd/iops-snap{k}" + ("-of-3" if k == 1 else ""), r, p["iops"])
    for k, run_k in cow.items():
        d = jobs(point(run_k, SNAPS=k))
        for r, m in enumerate(("measure1", "measure2")):
            if m in d:
                ctx.measure(f"rbd/cow-iops-{k}", r, d[m]["write"]["iops"])
