# lab/experiment.d/seed001.py - seed 001 (pgbench on PostgreSQL with data and
# WAL on two RBD images, ext4 on each, 4..64 connections): jobs/seed001-pgbench.fio
# (the txn engine, pgbench's tpcb script, the postgres15 profile, CONNS fio
# jobs of one database) on the local disk and on ext4 over two RBD images
# (tools/cluster mount --wal: rbd-fuse + loop + ext4, tables on one image,
# WAL on the other, as the seed). Each repeat sweeps the connections on every
# target before the next repeat starts; our tx/s per repeat goes under the
# keys results/claims/seed001.json names.
import os, re, shutil, subprocess
import realdb
from common import REPO, cell, med, SW, f, jobs, pdir, point, table

SEED = {4: 287, 8: 422, 16: 591, 32: 779, 64: 866}
LOCAL64 = 4000
# pgbench scale and shared_buffers: the seed's 1 GB against ~5 GB (scale 300)
# is 1/5; kept at a size loaded in seconds (a scale is ~15 MB of tables)
SIZES = {"short": (10, "32m"), "full": (30, "96m")}
# seconds a connection count runs, the model's and the real pgbench's: 6 s is
# 1,500-25,000 transactions here (12 s cost make results 10 minutes more)
RUNTIME = {"short": 5, "full": 6}
LABEL = {"local": "local disk", "ext4rbd": "ext4 on 2 RBD images"}


def wal_mounts(ctx):
    """(data mount, WAL mount) of ext4 on the cluster's two RBD images, mounted
    with 'tools/cluster mount --wal' when the cluster is tools/cluster's; None
    (and a note) when there is none."""
    conf = os.environ.get("CEPH_CONF")
    if not conf:
        ctx.notes.append("CEPH_CONF is not set: the ext4-on-RBD target was skipped")
        return None
    cdir = os.path.dirname(conf)
    mnt = [os.path.join(cdir, "mnt", n) for n in ("ext4rbd", "ext4rbd-wal")]
    if not all(os.path.ismount(m) for m in mnt) and os.path.exists(os.path.join(cdir, ".dbfio-cluster")):
        r = subprocess.run([os.path.join(REPO, "tools", "cluster"), "mount", "--wal"], capture_output=True,
                           text=True, env={**os.environ, "DBFIO_CLUSTER_DIR": cdir})
        if r.returncode:
            ctx.notes.append("tools/cluster mount --wal failed: " + (r.stderr.strip().splitlines() or ["?"])[-1])
    if not all(os.path.ismount(m) for m in mnt):
        ctx.notes.append(f"{' and '.join(mnt)} are not mounted ('tools/cluster mount --wal'): "
                         "target ext4rbd skipped")
        return None
    return mnt


def summary(run, c):
    """avg_group and hit_ratio of the database's summary line (fio.err)."""
    try:
        with open(os.path.join(pdir(run, CONNS=c), "fio.err")) as fi:
            m = re.search(r"avg_group=([\d.]+).*hit_ratio=([\d.]+)", fi.read())
        return (float(m.group(1)), float(m.group(2))) if m else (None, None)
    except OSError:
        return None, None


def run(ctx):
    conns = [4, 16, 64] if ctx.a.short else [4, 8, 16, 32, 64]
    scale, sb = SIZES["short" if ctx.a.short else "full"]
    targets = {"local": (ctx.fresh("pgdata"), ctx.fresh("pgwal"))}
    mnt = wal_mounts(ctx)
    if mnt:
        tag = f"dbfio-exp-seed001-{os.getpid()}"
        targets["ext4rbd"] = tuple(os.path.join(m, tag) for m in mnt)
        for d in targets["ext4rbd"]:
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
    try:
        for rep in ctx.each_repeat("local/tps-"):   # the local tx/s: the control a disturbed repeat shows on
            for t, (d, w) in targets.items():
                env = {"DIR": d, "WALDIR": w, "SCALE": scale, "SHARED_BUFFERS": sb,
                       "RUNTIME": RUNTIME["short" if ctx.a.short else "full"]}
                r = ctx.sweep("jobs/seed001-pgbench.fio", {"CONNS": ",".join(map(str, conns))}, env,
                              f"{t}/r{rep + 1}", "pgbench:write.iops,pgbench:write.clat_p99_ms", show=rep == 0)
                for c in conns:
                    j = jobs(point(r, CONNS=c)).get("pgbench")
                    if not j:
                        continue
                    ctx.measure(f"{t}/tps-{c}", rep, j["write"]["iops"])
                    ctx.measure(f"{t}/p99-{c}", rep, j["write"]["clat_ns"]["percentile"]["99.000000"] / 1e6)
                    g, h = summary(r, c)
                    ctx.measure(f"{t}/group-{c}", rep, g)
                    ctx.measure(f"{t}/hit-{c}", rep, h)
                realdb.seed001(ctx, rep, t, d, w, scale, sb, conns, env["RUNTIME"])   # the real PostgreSQL
                step = min_step(ctx, t, conns, rep)
                if step:
                    ctx.measure(f"{t}/min-step", rep, step)
    finally:
        for d in [x for dw in targets.values() for x in dw]:
            shutil.rmtree(d, ignore_errors=True)
    return page(ctx, conns, list(targets), scale, sb)


def min_step(ctx, t, conns, rep):
    """The smallest tx/s gain from one connection count to the next in
    repeat rep (the seed's table rises at every step: its smallest, 32 -> 64,
    is 866/779 = 1.11); None unless every count of the repeat was measured."""
    tps = [(ctx.m.get(f"{t}/tps-{c}", [])[rep:] or [None])[0] for c in conns]
    if len(tps) < 2 or not all(tps):
        return None
    return min(b / a for a, b in zip(tps, tps[1:]))


SIZE_TEXT = """\
**The seed's 5 GB database and 1 GB shared_buffers here.** The seed ran pgbench at scale 300 (~5 GB of
tables) with shared_buffers = 1 GB on a host of 8 GB: one fifth of the database in PostgreSQL's buffer
pool, and — 8 GB of RAM against 5 GB of data just written by `pgbench -i` — most of the rest in the
kernel's page cache. Here the tables are scale {scale} (~{mb} MB) with shared_buffers = {sb}: the same
1:5 ratio, so the model's buffer pool hits as often (uniform keys: the accounts pages hit about 1/5 of the
time; branches, tellers and the index leaves stay resident; measured hit ratio {hit} at 64 connections),
and its misses are reads of files that sit in this host's page cache ({ram} of RAM), as most of the
seed's did. What the smaller database does not give: the seed's cold misses that went to the data image
and its checkpoints' 1 GB of dirty buffers (checkpoint_timeout 300 s, max_wal_size 6 GB for
checkpoint_segments = 128: no checkpoint falls inside one of our {rt} s points). tx/s is therefore set by
the WAL image's flush latency (group commit), the connections' CPU (the postgres15 profile's
cpu_per_stmt on 2 shared cores) and round trips, as the seed's was by its one-SSD OSD and 4 hyperthreads."""


def page(ctx, conns, targets, scale, sb):
    rows = []
    for c in conns:
        row = [c]
        for t in targets:
            row += [cell(ctx, f"{t}/tps-{c}", 0), cell(ctx, f"{t}/p99-{c}", 1), cell(ctx, f"{t}/group-{c}", 2)]
        rows.append(row + [SEED.get(c, "—"), LOCAL64 if c == 64 else "—"])
    head = ["connections"]
    for t in targets:
        head += [f"{LABEL[t]} tx/s", f"{LABEL[t]} p99 ms", f"{LABEL[t]} commits/flush"]
    head += ["seed: RBD tx/s", "seed: local drives tx/s"]
    gain = []
    for t in targets:
        a, b = med(ctx, f"{t}/tps-{conns[-1]}")[0], med(ctx, f"{t}/tps-{conns[0]}")[0]
        if a and b:
            gain.append(f"{LABEL[t]} {a / b:.1f}×")
    series = []
    for t in targets:
        ms = [med(ctx, f"{t}/tps-{c}") for c in conns]
        series.append({"label": f"ours: {LABEL[t]}", "values": [m[0] for m in ms],
                       "lo": [m[1] for m in ms], "hi": [m[2] for m in ms]})
    series.append({"label": "seed: RBD", "values": [SEED.get(c) for c in conns], "markers": True})
    series.append({"label": "seed: local drives", "values": [LOCAL64 if c == 64 else None for c in conns],
                   "markers": True})
    SW.svg_plot(os.path.join(ctx.a.out, "seed001-txps.svg"), "seed 001: tx/s by connections", "connections",
                [str(c) for c in conns], series, "tx/s")
    rep = f"median (min–max) of {ctx.reps} repeats" if ctx.reps > 1 else "one run"
    hit = med(ctx, f"{targets[-1]}/hit-{conns[-1]}")[0]
    mb = round(scale * 15.6)
    try:
        with open("/proc/meminfo") as fi:
            ram = f"{int(fi.readline().split()[1]) / 1048576:.0f} GiB"
    except (OSError, ValueError, IndexError):
        ram = "?"
    return (f"### pgbench (tpcb, scale {scale}, shared_buffers {sb}): transactions per second by connections, {rep}\n\n"
            + table(head, rows) +
            f"\n\nGain from {conns[0]} to {conns[-1]} connections (medians): " + (", ".join(gain) or "—") +
            f"; the seed's RBD: {SEED[64] / SEED[4]:.1f}×. *commits/flush* is the model's group commit "
            "(the database's summary line, `avg_group`).\n\n"
            "![tx/s by connections: ours with min–max bars, the seed's hollow (log axis when the lines "
            "differ by 10× or more)](seed001-txps.svg)\n\n"
            + "".join(f"{x}\n\n" for x in [realdb.seed001_page(ctx, conns, targets, LABEL)] if x)
            + SIZE_TEXT.format(scale=scale, mb=mb, sb=sb, ram=ram, hit=f(hit, 3), rt=RUNTIME["short" if ctx.a.short else "full"]))
