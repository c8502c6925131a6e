# lab/experiment.d/seed000_replica.py - seed 000's reviewer on reads and
# writes under replication ("The reads would be very similar as the primary
# is the only thing that is read from, but writes will not return until
# after all 3 copies are written"): jobs/seed000-replica.fio through librbd
# on the replicated cluster seed000.py starts, in its default pool (size 3)
# and in a pool of size 1 made for the run, the two interleaved in every
# repeat. Same OSDs, disk and delayed OSD messages: only the copies differ.
import os, subprocess
from common import cell, jobs, med, point, table

POOL1 = "dbfio-exp-size1"
POOLS = (("rbd", "repl-size3"), (POOL1, "repl-size1"))
SIZE, IMAGE_SIZE = "128m", "256m"


def ceph(conf, *args, tool="ceph"):
    return subprocess.run([tool, *args], env={**os.environ, "CEPH_CONF": conf}, capture_output=True, text=True,
                          timeout=300)


def make_pool(ctx, conf):
    """The size-1 pool beside the size-3 default; False (and a note) when it cannot be made."""
    for args in (("config", "set", "global", "mon_allow_pool_size_one", "true"),
                 ("config", "set", "global", "mon_allow_pool_delete", "true"),
                 ("osd", "pool", "create", POOL1, "8", "8"),
                 ("osd", "pool", "set", POOL1, "size", "1", "--yes-i-really-mean-it"),
                 ("osd", "pool", "application", "enable", POOL1, "rbd")):
        r = ceph(conf, *args)
        if r.returncode:
            ctx.notes.append(f"ceph {' '.join(args)} failed on the replicated cluster: "
                             + ((r.stderr or r.stdout).strip().splitlines() or ["?"])[-1]
                             + ": the reads-under-replication claims were not measured")
            return False
    ctx.cmds.append(f"ceph osd pool create {POOL1} 8 8 && ceph osd pool set {POOL1} size 1 --yes-i-really-mean-it"
                    "   # on the replicated cluster, after mon_allow_pool_size_one=true")
    return True


def run(ctx, conf, short):
    """Both pools, every repeat; the image laid out in the first repeat only."""
    if not make_pool(ctx, conf):
        return
    image = f"dbfio-exp-replica-{os.getpid()}"
    try:
        for rep in range(ctx.reps):
            for pool, key in POOLS:
                env = {"CEPH_CONF": conf, "STORE": "rbd", "DIR": ctx.fresh("replica"), "POOL": pool, "IMAGE": image,
                       "IMAGE_SIZE": IMAGE_SIZE, "RUNTIME": 5 if short else 10}
                r = ctx.sweep("jobs/seed000-replica.fio", {"SIZE": SIZE}, env, f"{key}/replica/r{rep + 1}",
                              show=rep == 0, extra=[] if rep == 0 else ["--section=read", "--section=write"])
                figures(ctx, key, rep, jobs(point(r, SIZE=SIZE)))
    finally:
        for pool, _ in POOLS:
            ceph(conf, "rm", f"{pool}/{image}", tool="rbd")
        ceph(conf, "osd", "pool", "rm", POOL1, POOL1, "--yes-i-really-really-mean-it")


def figures(ctx, key, rep, d):
    """read-us: a 16 kB random read's latency; write-us: a 16 kB random
    write's plus its fdatasync (each write flushed, as a page flush is)."""
    r, w = d.get("read"), d.get("write")
    if r and r["read"]["total_ios"]:
        ctx.measure(f"{key}/read-us", rep, r["read"]["clat_ns"]["mean"] / 1e3)
    if w and w["write"]["total_ios"]:
        ctx.measure(f"{key}/write-us", rep, (w["write"]["clat_ns"]["mean"] + w["sync"]["lat_ns"]["mean"]) / 1e3)


def page(ctx):
    """The table: size 3 and size 1 on the replicated cluster, and their ratio."""
    if not any(ctx.m.get(f"{k}/read-us") for _, k in POOLS):
        return None
    rows = []
    for m, label in (("read-us", "16 kB random read, µs"), ("write-us", "16 kB random write + fdatasync, µs")):
        a, b = med(ctx, f"repl-size3/{m}")[0], med(ctx, f"repl-size1/{m}")[0]
        rows.append([label, cell(ctx, f"repl-size3/{m}", 0), cell(ctx, f"repl-size1/{m}", 0),
                     f"{a / b:.2f}×" if a is not None and b else "—"])
    return ("### The reviewer's reads and writes: the replicated cluster's size-3 pool against a size-1 pool\n\n"
            + table(["operation (jobs/seed000-replica.fio, librbd)", "pool size 3", "pool size 1", "size 3 ÷ size 1"],
                    rows) +
            "\n\nBoth pools are on the replicated cluster's three OSDs, with its delayed OSD messages; the "
            f"{SIZE} file on a {IMAGE_SIZE} image in each, read and written at random in 16 kB pages (librbd's "
            "cache holds a quarter of it at most). A read goes to the placement group's primary only; a write "
            "returns after every copy is written.")
