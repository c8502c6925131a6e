# lab/experiment.d/seed002.py - seed 002 (MySQL's schema dump and
# compressed export with the data files on GlusterFS): jobs/seed002-*.fio on
# the local disk and on the tools/gluster volume in the states the seed
# tried and GlusterFS 10 can still express - as set up (io-cache off, the
# default), client-side io-cache on, io-cache on with one of the two brick
# servers down, and each of the seed's "no appreciable change" options
# (client io-threads, write-behind, read-ahead) varied alone from the set-up
# state - repeated, the variants interleaved in every repeat.
#
# The export's read must reach the bricks: the brick files are on this
# host's disk, so the data file is laid out first (fio --create_only=1), the
# page cache is dropped (echo 3 > /proc/sys/vm/drop_caches) before every
# export. Without that the read is served from memory and GlusterFS looks
# faster than the local disk. The data files are laid out once, before the
# first repeat, and every variant of every repeat reads the same ones (laid
# out in every repeat, 1 GB twice on the volume's bricks, they cost make
# results half a minute); LAYOUT_SETTLE s after the layout's sync, so its
# write-back on the host is not in the first repeat's reads. Then every data
# file is read once, unmeasured: the guest's drop_caches cannot reach the
# host's cache under it, so after the first read the local export is served
# from there (0.66 s against 2.4 s), and without this read only the first
# repeat paid the disk (one rerun by the control in every run).
LAYOUT_SETTLE = 15
import os, shutil, subprocess, time
from common import cell, med, REPO, SW, f, jobs, log, point, table
import realdb

VARIANTS = [("local", "data on local ext4", None),
            ("gluster", "GlusterFS replica 2 (io-cache off: GlusterFS 10's default)", "off"),
            ("gluster-iothreads", "GlusterFS, client io-threads on", "off"),
            ("gluster-nowb", "GlusterFS, write-behind off", "off"),
            ("gluster-readahead", "GlusterFS, read-ahead translator on", "off"),
            ("gluster-iocache", "GlusterFS, client io-cache on", "on"),
            ("gluster-down", "GlusterFS, io-cache on, brick 2 down", "on")]
SEED = {"local": (0.2, 28), "gluster": (18, 165), "gluster-iocache": (18, 70), "gluster-down": (2, 24),
        "gluster-iothreads": (None, None), "gluster-nowb": (None, None), "gluster-readahead": (None, None)}
# the seed's "no appreciable change" options, each varied alone against the
# "gluster" variant (as tools/gluster up leaves it, io-cache off) and set back
# right after: client io-threads added; write-behind, on by default
# and client-side since 3.x (the seed added it server-side), taken away; the
# read-ahead translator, GlusterFS's own readahead (the seed raised the block
# device's, 256 -> 16384 sectors, on its own disks: here the bricks share the
# host's disk with everyone, so its readahead is left alone)
OPTION_VARIANTS = {"gluster-iothreads": ("performance.client-io-threads", "on"),
                   "gluster-nowb": ("performance.write-behind", "off"),
                   "gluster-readahead": ("performance.read-ahead", "on")}
GL = os.path.join(REPO, "tools", "gluster")
# the real MariaDB's data (realdb.Dumps): sysbench rows in one table, short and full
REAL_ROWS = {True: 30000, False: 300000}


def gluster_mount(ctx):
    if os.environ.get("GLUSTER_MNT") and os.path.ismount(os.environ["GLUSTER_MNT"]):
        return os.environ["GLUSTER_MNT"], False
    r = subprocess.run([GL, "env"], capture_output=True, text=True)
    if r.returncode != 0 and ctx.a.start_gluster:
        ctx.a.started_gluster = True    # before the start: a signal while it starts stops it too
        u = subprocess.run([GL, "up"], capture_output=True, text=True)
        if u.returncode != 0:
            ctx.notes.append("tools/gluster up failed: " + (u.stderr.strip().splitlines() or ["?"])[-1])
            return None, False
        r = subprocess.run([GL, "env"], capture_output=True, text=True)
    if r.returncode != 0:
        ctx.notes.append("no GlusterFS volume (tools/gluster up, or --start-gluster): GlusterFS columns empty")
        return None, False
    return r.stdout.strip().split("=", 1)[1].strip("'\""), True


def gl(ctx, *args):
    """tools/gluster ARGS (only for the volume tools/gluster runs)."""
    r = subprocess.run([GL, *args], capture_output=True, text=True)
    if r.returncode != 0:
        ctx.notes.append(f"tools/gluster {' '.join(args)} failed: " + (r.stderr.strip().splitlines() or ["?"])[-1])
    return r.returncode == 0


def gl_get(key):
    """The volume's value of key (tools/gluster get), or None."""
    r = subprocess.run([GL, "get", key], capture_output=True, text=True)
    return r.stdout.strip() or None if r.returncode == 0 else None


def settle(mnt):
    """After a volume option change the FUSE client switches to a new
    translator graph, and after a brick restart it reconnects: the first
    calls pay for that. Wait, and touch the mount, before timing anything."""
    time.sleep(3)
    p = os.path.join(mnt, f".dbfio-settle-{os.getpid()}")
    for _ in range(20):
        with open(p, "w") as fo:
            fo.write("x")
        os.stat(p)
        os.remove(p)


def read_once(dirs):
    """Every file under dirs read to its end and thrown away."""
    for d in dirs:
        for root, _, names in os.walk(d):
            for n in names:
                with open(os.path.join(root, n), "rb") as fo:
                    while fo.read(1 << 20):
                        pass


def drop_caches(ctx):
    subprocess.run(["sync"])
    try:
        with open("/proc/sys/vm/drop_caches", "w") as fo:
            fo.write("3\n")
        return True
    except OSError as e:
        if "drop" not in " ".join(ctx.notes):
            ctx.notes.append(f"cannot drop the page cache ({e.strerror}): export reads may come from memory")
        return False


def run(ctx):
    short = ctx.a.short
    gm, ours = gluster_mount(ctx)
    tables, dsize, esize = (100, "64m", "5m") if short else (400, "1g", "75m")
    variants = [v for v in VARIANTS if v[0] == "local" or (gm and (ours or v[0] == "gluster"))]
    if gm and not ours:
        ctx.notes.append("GLUSTER_MNT is not a tools/gluster volume: io-cache and brick-down variants not run")
    exp_dir = os.path.join(gm, f"dbfio-exp-export-{os.getpid()}") if gm else ctx.fresh("export")
    os.makedirs(exp_dir, exist_ok=True)

    # the real MariaDB on the local disk and on the volume as set up, in
    # repeats of its own after the model's: run right after the model's
    # variant on each target, as before, the exports of the two variants
    # after its dumps (the GlusterFS row, io-threads) took 1.5x the others'
    # in both runs that had it (2.8-3.2 s against 1.7-2.0), not in the one before
    rows = REAL_ROWS[bool(short)]
    dumps = {v: realdb.Dumps(base, ctx.fresh(f"real-log-{v}"), exp_dir, tables, rows, lambda: drop_caches(ctx))
             for v, base in (("local", ctx.fresh("local-real")), ("gluster", gm)) if base}

    data = {"local": ctx.fresh("local-data")}
    if gm:
        data["gluster"] = os.path.join(gm, f"dbfio-exp-{os.getpid()}")
        os.makedirs(data["gluster"], exist_ok=True)

    def rep_one(rep):
        for v, _, iocache in variants:
            one(ctx, rep, v, iocache, data["local" if v == "local" else "gluster"], exp_dir, tables, dsize, esize)
    try:
        for t, d in data.items():   # the data files every export reads, laid out once
            ctx.sweep("jobs/seed002-export.fio", {"DATA_SIZE": dsize},
                      {"DATA_DIR": d, "EXPORT_DIR": exp_dir, "EXPORT_SIZE": esize}, f"{t}/layout",
                      extra=["--create_only=1"])
        read_once(data.values())
        ctx.cmds.append("cat DATA_DIR/* > /dev/null   # once after the layout, before the first repeat "
                        "(each data directory): every repeat's export then finds the host in the same state")
        drop_caches(ctx)
        time.sleep(LAYOUT_SETTLE)
        ctx.repeats(rep_one, "local/")   # the local directory: the control a disturbed repeat shows on
        if dumps and ours:   # the volume as set up (io-cache off; the last variant turned it on)
            gl(ctx, "set", "performance.io-cache", "off")
            settle(gm)
        for rep in range(ctx.reps):
            for v, d in dumps.items():
                realdb.seed002(ctx, rep, v, d)
    finally:
        for d in data.values():
            shutil.rmtree(d, ignore_errors=True)
        for d in dumps.values():
            d.stop()
        if ours:
            gl(ctx, "set", "performance.io-cache", "default")
        shutil.rmtree(exp_dir, ignore_errors=True)
    real = realdb.seed002_page(ctx, [(v, label) for v, label, _ in variants if v in dumps], rows)
    return page(ctx, variants, tables, dsize, esize, gm) + (f"\n\n{real}" if real else "")


def one(ctx, rep, v, iocache, d, exp_dir, tables, dsize, esize):
    """One variant, one repeat: schema pass, export (laid out, caches dropped)."""
    if iocache:
        gl(ctx, "set", "performance.io-cache", iocache)
    if v == "gluster-down":
        gl(ctx, "brick", "stop", "2")
    if v in OPTION_VARIANTS:
        # restored afterwards to the value it had, not reset: glusterd gives a
        # replica volume client-io-threads=off at create, and a reset would
        # turn it on (GlusterFS's default) for every variant after this one
        was = gl_get(OPTION_VARIANTS[v][0])
        gl(ctx, "set", *OPTION_VARIANTS[v])
        if rep == 0:
            ctx.cmds.append(f"tools/gluster set {' '.join(OPTION_VARIANTS[v])}   # variant {v}; "
                            f"set back to its value before ({was}) after it")
    if iocache:
        settle(os.path.dirname(d))
    rs = None
    try:
        if v not in OPTION_VARIANTS:   # their claims are the export's; the schema pass is not judged there
            sd = os.path.join(d, f"schema-{v}")
            os.makedirs(sd, exist_ok=True)
            rs = ctx.sweep("jobs/seed002-schema.fio", {"TABLES": tables}, {"DIR": sd}, f"{v}/schema/r{rep + 1}",
                           show=rep == 0)
            shutil.rmtree(sd, ignore_errors=True)
        env = {"DATA_DIR": d, "EXPORT_DIR": exp_dir, "EXPORT_SIZE": esize}
        dropped = drop_caches(ctx)
        re_ = ctx.sweep("jobs/seed002-export.fio", {"DATA_SIZE": dsize}, env, f"{v}/export/r{rep + 1}",
                        show=rep == 0)
        if rep == 0 and dropped:
            ctx.cmds.append("sync; echo 3 > /proc/sys/vm/drop_caches   # before every export run above")
    finally:
        if v == "gluster-down":
            gl(ctx, "brick", "start")
        if v in OPTION_VARIANTS:
            gl(ctx, "set", OPTION_VARIANTS[v][0], was or "default")
    s = rs and jobs(point(rs, TABLES=tables)).get("schema")
    e = jobs(point(re_, DATA_SIZE=dsize))
    if s:
        ctx.measure(f"{v}/schema", rep, s["read"]["clat_ns"]["mean"] * s["read"]["total_ios"] / 1e9)
    if e:
        ctx.measure(f"{v}/export", rep, max(j["job_runtime"] for j in e.values()) / 1e3)
        r = e.get("read-data")
        if r:
            ctx.measure(f"{v}/read-mibs", rep, r["read"]["bw_bytes"] / 1048576)
    log(f"seed002 r{rep + 1} {v}: schema {f(ctx.m.get(f'{v}/schema', [None])[-1], 3)} s, "
        f"export {f(ctx.m.get(f'{v}/export', [None])[-1], 3)} s")


def page(ctx, variants, tables, dsize, esize, gm):
    rows = []
    for v, label, _ in variants:
        rows.append([label, cell(ctx, f"{v}/schema"), cell(ctx, f"{v}/export"), cell(ctx, f"{v}/read-mibs", 0),
                     f(SEED[v][0]), f(SEED[v][1])])
    head = ["data files on", "Printing schema s", "Compressed export s", "export: read MiB/s",
            "seed: schema s", "seed: export s"]
    rep = f"median (min–max) of {ctx.reps} repeats" if ctx.reps > 1 else "one run"
    where = "GlusterFS" if gm else "the local disk (no GlusterFS)"
    xs = ["schema", "export"]
    series = []
    for v, label, _ in variants:
        ms = [med(ctx, f"{v}/{x}") for x in xs]
        series.append({"label": v, "values": [m[0] for m in ms], "lo": [m[1] for m in ms], "hi": [m[2] for m in ms]})
    for v, _, _ in variants:
        if any(x is not None for x in SEED[v]):
            series.append({"label": f"seed: {v}", "values": list(SEED[v]), "markers": True})
    SW.svg_plot(os.path.join(ctx.a.out, "seed002-glusterfs.svg"), "seed 002: seconds per operation",
                "operation", xs, series, "seconds")
    return (f"### mysqldump-like operations, seconds, {rep} ({tables} tables; {dsize} of data read, {esize} of "
            f"export written to {where}; page cache dropped before every export)\n\n" + table(head, rows) +
            "\n\nThe seed's io-cache and one-down rows are its cumulative tuning steps (io-cache added, then the "
            "remote node shut down); here each variant starts from the same volume. The io-threads, write-behind and "
            "read-ahead rows each change one volume option from the GlusterFS row's state (`tools/gluster set`, "
            "set back to its value right after): the seed reports \"no appreciable\" change for each, without figures.\n\n"
            "![seed 002: ours with min–max bars, the seed's hollow](seed002-glusterfs.svg)")
