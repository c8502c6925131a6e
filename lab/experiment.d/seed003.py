# lab/experiment.d/seed003.py - seed 003 (RBD random writes under
# snapshots: slow requests, a collapse, a stalled writer) on two clusters side
# by side: CEPH_CONF's (tools/cluster's default profile, BlueStore) and a
# seed-like one this module starts itself (tools/cluster up --profile seed003:
# FileStore on a 150-IOPS HDD-like loop device, librbd cache write-through)
# and stops afterwards unless it was up. Per cluster: jobs/seed003-rbd.fio
# with SNAPS=3 (its first snapshot's create is the seed's "snapshot during the
# run": the same single create under the writer, so no SNAPS=1 run of its own),
# every point --repeats times (at least 2), on an image
# written in full first; then "slower with every snapshot even after CoW
# flattens it": 0..5 snapshots, every object rewritten after each, two
# measurements per count (jobs/seed003-cow.fio). Both clusters get the same
# slow-op thresholds (1 s) for the run. seed003_measure.py turns the runs
# into the figures results/claims/seed003.json names. --demo (make demo)
# runs the SNAPS=3 point once per cluster, on smaller images, and the CoW
# sweep at 1 and 5 snapshots only.
import os, subprocess, time
from common import REPO, SW, f, jobs, log, pdir, point, side_cluster, sidecar, table


def demo(ctx):
    return getattr(ctx.a, "demo", False)


def reps(ctx):
    """every point at least twice; twice in short runs; once in the demo"""
    if demo(ctx):
        return list(range(1, ctx.reps + 1))
    return list(range(1, (2 if ctx.a.short else max(2, ctx.reps)) + 1))


def snaps(ctx):
    """the SNAPS values run: the SNAPS=3 run's first create also gives one
    snapshot's stall (a SNAPS=1 run of its own measured the same create and
    cost a third of make results' seed 003 time; sidecars of SNAPS=1 runs are
    still read when present)"""
    return (3,)


# the CoW sweep: snapshot counts measured (the claim compares 5 with 1); in
# the demo the counts between only get their rewrite (rbd bench)
def cow_counts(ctx):
    return (1, 5) if demo(ctx) else tuple(range(6))


def cow_runtime(ctx):
    """seconds of each of the CoW job's two measurements (its RUNTIME)"""
    return 3 if ctx.a.short else 8


# image sizes: (rbdsnap image, CoW image) per mode and cluster. The demo's
# seed-like image (128 objects) is large enough that its copy-on-write (4 MiB
# per object per snapshot on a 150-IOPS disk) outlasts the three snapshots'
# hold (with 128M, 32 objects, the copying ended during the creates and
# `snap3` ran at 55 % of the baseline, BlueStore's at 33 %: no collapse shown;
# 512M: 4 % against BlueStore's 57 %, fill 28 s, make demo on a busy machine).
# The full run's seed-like CoW image is 128M (32 objects): the sweep rewrites
# every object after each snapshot anyway (CoW done by design), and at 256M
# that rewrite was 21 s of each count at 150 IOPS.
def sizes(ctx, tag):
    if demo(ctx):
        return ("512M", "32M") if tag == "seedlike" else ("256M", "32M")
    return ("256M", "32M") if ctx.a.short else ("1G", "128M" if tag == "seedlike" else "256M")


S003_OSD = {"osd_op_complaint_time": "1", "osd_op_history_slow_op_threshold": "1",
            "osd_op_history_slow_op_size": "500"}


def s003_cluster(ctx):
    """The seed-like cluster (tools/cluster up --profile seed003) beside CEPH_CONF's:
    (env with its CEPH_CONF, profile line, stop function) or None."""
    # the profile's own osd_op_complaint_time (1 s), not the one make demo
    # exports for the default cluster (a ceph.conf value wins over `ceph config set`)
    return side_cluster(ctx, "seed003", "seed003", {"DBFIO_OSD_COMPLAINT_TIME": "1"})


def s003_sh(env, *cmd):
    return subprocess.run(list(cmd), env={**os.environ, **env}, capture_output=True, text=True)


def s003_fill(env, img, size):
    """Every object of the image written (once more) in 4 MiB sequential writes."""
    s003_sh(env, "rbd", "bench", "--io-type", "write", "--io-pattern", "seq", "--io-size", "4M",
            "--io-total", size, f"rbd/{img}")


def s003_image(env, img, size):
    """A fresh image written once in full (snapshots of an empty image cost nothing)."""
    t = time.time()
    s003_sh(env, "rbd", "snap", "purge", f"rbd/{img}")
    s003_sh(env, "rbd", "rm", "-p", "rbd", img)
    s003_sh(env, "rbd", "create", "-p", "rbd", "--size", size, img)
    s003_fill(env, img, size)
    log(f"seed003 image {img} ({size}) written: {time.time() - t:.0f}s")


def s003_osd_set(env, kv):
    """the options kv on every running OSD for the run, in one call (`ceph tell`: a
    ceph.conf value, as make demo's complaint time, wins over `ceph config set`)"""
    s003_sh(env, "ceph", "tell", "osd.*", "injectargs", " ".join(f"--{k}={v}" for k, v in kv.items()))


def s003_osd_unset(env, keys):
    """undo s003_osd_set: back to ceph.conf's value or the default"""
    for k in keys:
        s003_sh(env, "ceph", "tell", "osd.*", "config", "unset", k)


def s003_profile(ctx, tag, env):
    """SNAPS=3 x REP=1..N (demo: once), then the CoW sweep, on one cluster."""
    short = ctx.a.short
    s003_osd_set(env, S003_OSD)   # the same slow-op thresholds on both clusters
    (size, csize), img = sizes(ctx, tag), f"seed003-{tag}"
    s003_image(env, img, size)
    ctx.cmds.append(f"rbd create -p rbd --size {size} {img} && rbd bench --io-type write --io-pattern seq "
                    f"--io-size 4M --io-total {size} rbd/{img}")
    sched = ({"BASELINE": 5, "SNAP_INTERVAL": 2, "HOLD": 6, "AFTER": 4} if short else
             {"BASELINE": 10, "SNAP_INTERVAL": 2, "HOLD": 10, "AFTER": 10})
    # the job's planned runtime for the most snapshots run; rbdsnap extends it
    # (snap_after) until `after` has lasted AFTER when the snapshot calls were slow
    sched["RUNTIME"] = sched["BASELINE"] + max(snaps(ctx)) * sched["SNAP_INTERVAL"] + sched["HOLD"] + sched["AFTER"]
    run = ctx.sweep("jobs/seed003-rbd.fio", {"SNAPS": ",".join(map(str, snaps(ctx))),
                                             "REP": ",".join(map(str, reps(ctx)))},
                    {**env, "IMAGE": img, **sched}, f"{tag}/rbdsnap")
    s003_sh(env, "rbd", "snap", "purge", f"rbd/{img}")
    s003_sh(env, "rbd", "rm", "-p", "rbd", img)
    cimg, crt = f"seed003-cow-{tag}", cow_runtime(ctx)
    s003_image(env, cimg, csize)
    cow, t = {}, time.time()
    for n in range(max(cow_counts(ctx)) + 1):
        if n:
            s003_sh(env, "rbd", "snap", "create", f"rbd/{cimg}@cow{n}")
        if n in cow_counts(ctx):
            cow[n] = ctx.sweep("jobs/seed003-cow.fio", {"SNAPS": n}, {**env, "IMAGE": cimg, "RUNTIME": crt},
                               f"{tag}/cow-{n}")
        elif n:   # not measured: the rewrite that makes this snapshot's clones (the job's first step)
            s003_fill(env, cimg, csize)
            if not any("rbd bench" in c and cimg in c for c in ctx.cmds):
                ctx.cmds.append(f"rbd snap create rbd/{cimg}@cowN && rbd bench --io-type write --io-pattern seq "
                                f"--io-size 4M --io-total {csize} rbd/{cimg}   # N not measured (demo)")
    log(f"seed003 {tag} CoW sweep ({', '.join(map(str, cow_counts(ctx)))} snapshots measured): "
        f"{time.time() - t:.0f}s")
    s003_sh(env, "rbd", "snap", "purge", f"rbd/{cimg}")
    s003_sh(env, "rbd", "rm", "-p", "rbd", cimg)
    s003_osd_unset(env, S003_OSD)
    return run, cow


# the phase each SNAPS value is about: three snapshots live; the writes a create stalls
S003_KEY = {3: "snap3", 1: "creating snap1"}


def s003_runs(run, ctx):
    """the rbdsnap sidecars of the runs (SNAPS=3; older SNAPS=1 ones too), read once: (SNAPS, REP, the
    sidecar or None when the run failed, its phases by name)"""
    out = []
    for n in snaps(ctx):
        for rep in reps(ctx):
            s = sidecar(run, "snaps.json", SNAPS=n, REP=rep)
            out.append((n, rep, s, {p["name"]: p for p in s["phases"]} if s else {}))
    return out


def s003_phases(runs, label):
    rows = []
    for n, rep, s, _ in runs:
        if not s:
            rows.append([label, f"SNAPS={n} #{rep}", "failed"] + [""] * 7)
            continue
        for p in s["phases"]:
            if p["seconds"] < 0.05 and not p["ios"]:
                continue
            rows.append([label, f"SNAPS={n} #{rep}", p["name"], f(p["seconds"], 1), f(p["iops"], 1),
                         f(p["p99_us"] / 1e3, 0), f(p["max_us"] / 1e3, 0), p["slow"],
                         p.get("osd_slow_ops", "—"), p.get("slow_ops_max", f"{s['health']['slow_ops_max']} (run)")])
    return rows


def s003_keys(runs, n):
    """the phases a SNAPS=n run stands for: its own, and the first create's
    stall too when no SNAPS=1 run was made (make results and the demo)"""
    alone = n == 3 and not any(m == 1 for m, _, _, _ in runs)
    return [S003_KEY[n]] + ([S003_KEY[1]] if alone else [])


def s003_slow_ops(s):
    """the most SLOW_OPS `ceph health` reported from the first snapshot on: the
    non-baseline phases' maxima (the baseline's polls include the previous run's
    leftovers), as tools/snapregress splits its timeline; a sidecar without
    per-phase maxima: its timeline from the first event's second"""
    ph = [p for p in s["phases"] if p["name"] != "baseline"]
    if all("slow_ops_max" in p for p in ph):
        return max((p["slow_ops_max"] for p in ph), default=0)
    t0 = min((e["t"] for e in s.get("events", []) if e.get("op") != "health"), default=None)
    if t0 is None:
        return 0
    return max((x.get("slow_ops", 0) or 0 for x in s.get("timeline", []) if x["t"] >= int(t0)), default=0)


def s003_summary(runs, label):
    """per run: baseline IOPS, 3-snapshot IOPS and fraction, the stall of one create"""
    rows = []
    for n, rep, s, ph in runs:
        if not s:
            continue
        b = ph.get("baseline", {}).get("iops")
        for key in s003_keys(runs, n):
            k = ph.get(key, {})
            rows.append([label, f"SNAPS={n} #{rep}", f(b, 1), key, f(k.get("iops"), 1),
                         f"{100 * k['iops'] / b:.0f} %" if b and k.get("iops") is not None else "—",
                         f((k.get("max_us") or 0) / 1e3, 0), k.get("slow", "—"), k.get("osd_slow_ops", "—"),
                         s003_slow_ops(s), s.get("osd_slow_ops", {}).get("count", "—")])
    return rows


def s003_findings(runs, label):
    """one line per cluster: the 3-snapshot fraction, the stalled create, Ceph's slow requests"""
    fr, cr, so, osd = [], [], [], []
    for n, rep, s, ph in runs:
        if not s:
            continue
        b = ph.get("baseline", {}).get("iops")
        for key in s003_keys(runs, n):
            k = ph.get(key)
            if b and k:
                (fr if key == "snap3" else cr).append(100 * k["iops"] / b)
        so.append(s003_slow_ops(s))
        osd.append(s.get("osd_slow_ops", {}).get("count", -1))
    rng = lambda v, u="": "—" if not v else f"{v[0]:.0f}{u}" if len(v) == 1 else f"{min(v):.0f}–{max(v):.0f}{u}"
    return (f"- {label}: with three snapshots live, **{rng(fr, ' %')} of the baseline's IOPS**; writes issued "
            f"while one snapshot was being created: {rng(cr, ' %')} of the baseline's IOPS; SLOW_OPS in "
            f"health up to {rng(so)} per run; the OSD's own slow-op records: {rng(osd)} per run")


def s003_cow(cow):
    """SNAPS -> (measure1 IOPS, measure2 IOPS)"""
    out = {}
    for n, run in cow.items():
        d = jobs(point(run, SNAPS=n))
        out[n] = tuple(d[m]["write"]["iops"] if m in d else None for m in ("measure1", "measure2"))
    return {n: out.get(n, (None, None)) for n in range(6)}


def run(ctx):
    if not os.environ.get("CEPH_CONF"):
        ctx.notes.append("CEPH_CONF is not set: seed 003 needs RBD")
        return "(not run)"
    blue_env = {"CEPH_CONF": os.environ["CEPH_CONF"]}
    profiles = [("bluestore", "BlueStore (default profile)", blue_env,
                 "CEPH_CONF's cluster (default profile: bluestore, 1 OSD on a sparse file, pool size 1); "
                 "librbd cache as its ceph.conf says (the sidecars record which)")]
    seed = s003_cluster(ctx)
    if seed:
        profiles.append(("seedlike", "seed-like (seed003 profile)", seed[0], seed[1]))
    res = {}
    try:
        for tag, label, env, _ in profiles:
            res[tag] = s003_profile(ctx, tag, env)
    finally:
        if seed:
            seed[2]()
    out = ["Clusters, side by side (same job, same slow-op thresholds: `osd_op_complaint_time` = 1 s and "
           "`osd_op_history_slow_op_threshold` = 1 s set with `ceph tell osd.* injectargs` "
           "for the run, undone after it):\n\n" +
           "\n".join(f"- **{label}**: {line}" for _, label, _, line in profiles)]
    runs = {t: s003_runs(res[t][0], ctx) for t in res}
    rows = sum((s003_summary(runs[t], lab) for t, lab, _, _ in profiles), [])
    found = "\n".join(s003_findings(runs[t], lab) for t, lab, _, _ in profiles)
    ctx.headline = found.replace("**", "")   # make demo's closing summary
    out.append("**Measured here** (" + ("one run per cluster" if demo(ctx) else "ranges over the repetitions")
               + "; computed from the table below):\n\n" + found)
    if demo(ctx):
        ctx.notes.append("demo: one SNAPS=3 run per cluster; the CoW sweep measured 1 and 5 snapshots only")
    out.append("### The collapse: 4 kB randwrite, iodepth 32, per run\n\nSNAPS=3: IOPS with three snapshots live "
               "(phase `snap3`) against the run's own baseline; its first snapshot (the seed's one snapshot during the "
               "run): IOPS of the writes issued while it was being created (phase `creating snap1`). Slow I/Os: ≥ 1 s, counted by the engine; "
               "OSD slow ops: the OSDs' own records (`dump_historic_slow_ops`, ≥ 1 s) of the job's client's ops received in that "
               "phase; SLOW_OPS max: the most `ceph health` reported from the first snapshot on (the "
               "baseline's polls can hold the previous run's leftovers: its own row below).\n\n" + table(
                   ["cluster", "run", "baseline IOPS", "phase", "IOPS", "of baseline", "max ms", "slow I/Os",
                    "OSD slow ops", "SLOW_OPS max", "OSD slow ops (run)"], rows))
    rows = sum((s003_phases(runs[t], lab) for t, lab, _, _ in profiles), [])
    out.append("### Every phase (an I/O belongs to the phase in which it was issued)\n\n" + table(
        ["cluster", "run", "phase", "secs", "IOPS", "p99 ms", "max ms", "slow I/Os", "OSD slow ops",
         "SLOW_OPS max"], rows))
    ctx.s003 = {t: res[t] for t in res}   # for seed003_measure (the claims)
    cows = {t: s003_cow(res[t][1]) for t, _, _, _ in profiles}
    rows = [[n] + sum(([f(cows[t][n][0], 0), f(cows[t][n][1], 0)] for t, _, _, _ in profiles), [])
            for n in range(6)]
    head = ["snapshots"] + sum(([f"{lab} #1", f"{lab} #2"] for _, lab, _, _ in profiles), [])
    series = []
    for t, lab, _, _ in profiles:
        series.append((lab, [None if None in cows[t][n] else sum(cows[t][n]) / 2 for n in range(6)]))
    SW.svg_plot(os.path.join(ctx.a.out, "seed003-cow.svg"), "seed 003: IOPS after every object was rewritten",
                "snapshots", [str(n) for n in range(6)], series, "IOPS (mean of 2)")
    out.append("### \"Slower with every snapshot even after CoW flattens it\": IOPS by snapshot count\n\n"
               "After each `rbd snap create` every object is rewritten once (4 MiB sequential writes: the "
               "copy-on-write is done), then two 4 kB randwrite measurements of " f"{cow_runtime(ctx)} s each "
               "(jobs/seed003-cow.fio) on an image of " +
               ", ".join(f"{sizes(ctx, t)[1]} ({lab})" for t, lab, _, _ in profiles) + ".\n\n" +
               table(head, rows) + "\n\n![IOPS by snapshot count](seed003-cow.svg)")
    for t, _, env, _ in profiles:
        for n in snaps(ctx):
            pth = os.path.join(pdir(res[t][0], SNAPS=n, REP=1), "snaps.json")
            g = subprocess.run([os.path.join(REPO, "tools", "snapregress"), pth], capture_output=True, text=True)
            with open(os.path.join(pdir(res[t][0], SNAPS=n, REP=1), "snapregress.txt"), "w") as fo:
                fo.write(g.stdout + g.stderr)
            out.append(f"`tools/snapregress` on {t} SNAPS={n} #1 (exit {g.returncode}): "
                       f"**{(g.stdout.strip().splitlines() or ['?'])[-1][:300]}**")
    out.append("Seed (fio 2.16, 1 image, 8 GiB written): **baseline 399 IOPS** (p50 33 ms, p99 1516 ms, max 14.5 s); "
               "after three snapshots \"never got passed 0.0%\" with slow requests; one snapshot during the run: "
               "\"fio got nothing done\".")
    return "\n\n".join(out)
