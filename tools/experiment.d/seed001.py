# tools/experiment.d/seed001.py - seed 001 (pgbench on RBD, data and WAL on
# two images, 4..64 connections): jobs/seed001-pgbench.fio over CONNS x STORE
# (the sweep alternates rbd and posix at every connection count), repeated;
# our tx/s per repeat under the keys results/claims/seed001.json names. Still
# on redolog + pgpage (the txn engine of the txn issue replaces them).
import os, shutil, subprocess
from common import cell, med, SW, f, jobs, point, table

SEED = {4: 287, 8: 422, 16: 591, 32: 779, 64: 866}
LOCAL64 = 4000


def run(ctx):
    conns = [4, 16, 64] if ctx.a.short else [4, 8, 16, 32, 64]
    stores = ["rbd", "posix"] if os.environ.get("CEPH_CONF") else ["posix"]
    for rep in range(ctx.reps):
        env = {"DIR": ctx.fresh(f"pg-{rep}"), "RUNTIME": 5 if ctx.a.short else 15,
               "DATA_IMAGE": "seed001-pgdata", "WAL_IMAGE": "seed001-pgwal"}
        r = ctx.sweep("jobs/seed001-pgbench.fio", {"CONNS": ",".join(map(str, conns)), "STORE": ",".join(stores)},
                      env, f"pgbench/r{rep + 1}", "pgwal:write.iops,pgwal:write.clat_p99_ms,pgdata:sync.lat_p99_ms",
                      show=rep == 0)
        shutil.rmtree(env["DIR"], ignore_errors=True)
        for img in (env["DATA_IMAGE"], env["WAL_IMAGE"]):
            subprocess.run(["rbd", "rm", "-p", "rbd", img], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for c in conns:
            for s in stores:
                w = jobs(point(r, CONNS=c, STORE=s)).get("pgwal")
                if w:
                    ctx.measure(f"{s}/tps-{c}", rep, w["write"]["iops"])
                    ctx.measure(f"{s}/p99-{c}", rep, w["write"]["clat_ns"]["percentile"]["99.000000"] / 1e6)
    return page(ctx, conns, stores)


def page(ctx, conns, stores):
    lab = {"rbd": "RBD (2 images)", "posix": "local disk"}
    rows = []
    for c in conns:
        row = [c]
        for s in stores:
            row += [cell(ctx, f"{s}/tps-{c}", 0), cell(ctx, f"{s}/p99-{c}", 2)]
        rows.append(row + [SEED.get(c, "—"), LOCAL64 if c == 64 else "—"])
    head = ["connections"]
    for s in stores:
        head += [f"{lab[s]} tx/s", f"{lab[s]} commit p99 ms"]
    head += ["seed: RBD tx/s", "seed: local drives tx/s"]
    series = []
    for s in stores:
        ms = [med(ctx, f"{s}/tps-{c}") for c in conns]
        series.append({"label": f"ours: {lab[s]}", "values": [m[0] for m in ms],
                       "lo": [m[1] for m in ms], "hi": [m[2] for m in ms]})
    series.append({"label": "seed: RBD", "values": [SEED.get(c) for c in conns], "markers": True})
    series.append({"label": "seed: local drives", "values": [LOCAL64 if c == 64 else None for c in conns],
                   "markers": True})
    SW.svg_plot(os.path.join(ctx.a.out, "seed001-txps.svg"), "seed 001: tx/s by connections", "connections",
                [str(c) for c in conns], series, "tx/s")
    rep = f"median (min–max) of {ctx.reps} repeats" if ctx.reps > 1 else "one run"
    return (f"### pgbench-like: transactions per second (WAL commits/s) by connections, {rep}\n\n" + table(head, rows) +
            "\n\n![tx/s by connections: ours with min–max bars, the seed's hollow (log axis when the lines "
            "differ by 10× or more)](seed001-txps.svg)")
