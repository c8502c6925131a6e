# lab/experiment.d/common.py - what every experiment of lab/experiment
# shares: the run context (sweeps, commands, notes, measurements per repeat),
# reading fio's JSON and sidecars of a sweep point, table formatting, and the
# Ceph targets. lab/experiment imports everything from here.
import importlib.machinery, json, os, re, statistics, shlex, shutil, subprocess, sys, time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SW = importlib.machinery.SourceFileLoader("sweep", os.path.join(REPO, "tools", "sweep")).load_module()
sys.path.insert(0, os.path.join(REPO, "python"))
from dbfio import host   # noqa: E402

# The quiet-host gate (dbfio.host.quiet, make fidelity's): before every point
# of a sweep (tools/sweep's DBFIO_SWEEP_QUIET) the machine must have fewer
# than host.QUIET_CORES cores busy over host.QUIET_WINDOW s; a point waits GATE_MAX s at most
# (make results' budget: ~300 points), then runs anyway and the page counts
# it. DBFIO_EXP_GATE=0 turns it off; make demo (one run, no verdict) runs
# without it, so a busy host does not stretch it.
GATE_MAX = 10
# The disturbed-repeat rule: a repeat whose control measurement (the seed's
# reference target, e.g. seed 000's local directory) lies more than DISTURBED
# times off that measurement's median over the repeats was disturbed (the
# host, not the target): it is run again, once, and the rerun's figures
# replace it; the page lists every rerun (Ctx.rerun_notes).
DISTURBED = 2.0


RUNNING = []    # the sweep that runs now (stop_sweep ends it with its fio)


def stop_sweep():
    """Before an experiment exits on a signal: the running sweep stops its fio
    (tools/sweep's own SIGTERM handler), so no fio outlives the experiment."""
    for p in RUNNING:
        p.terminate()
        if not SW.reaped(p, 90):
            p.kill()


def log(msg):
    print(f"experiment: {msg}", file=sys.stderr, flush=True)


class Ctx:
    """One experiment's run: sweeps, the commands that made them, notes."""

    def __init__(self, a, seed):
        self.a, self.seed, self.cmds, self.notes = a, seed, [], []
        self.runs = os.path.join(a.out, "runs", seed)
        self.local = os.path.join(os.environ.get("DBFIO_EXP_LOCAL", "/var/tmp/dbfio-exp"), seed)
        self.reps = getattr(a, "repeats", 1) or 1
        self.m = {}        # "target/metric" -> [value of repeat 1, 2, ...] (None: that repeat failed)
        self.swept = []    # (name, run folder) of every sweep, in order
        self.waits = []    # seconds each sweep waited for a quiet host
        self.reruns = []   # (repeat, key, value, median) of every disturbed repeat run again

    def measure(self, key, rep, value):
        """Our figure for key ("target/metric") in repeat rep (0-based); the
        claim files (results/claims/) name these keys."""
        vals = self.m.setdefault(key, [])
        vals.extend([None] * (rep + 1 - len(vals)))
        vals[rep] = value

    def sweep(self, job, matrix, env, name, metrics=None, show=True, extra=()):
        """tools/sweep job over matrix with env (extra: fio arguments after
        --); returns the run folder. show=False keeps the command off the
        page (repeats 2.. of a command the page already gives)."""
        out = os.path.join(self.runs, name)
        shutil.rmtree(out, ignore_errors=True)
        cmd = [os.path.join(REPO, "tools", "sweep"), job] + [f"{k}={v}" for k, v in matrix.items()]
        cmd += ["--out", out] + (["--metrics", metrics] if metrics else []) + (["--", *extra] if extra else [])
        shown = " ".join(f"{k}={shlex.quote(str(v))}" for k, v in env.items())
        shown_cmd = f"{shown} tools/sweep {job} " + " ".join(shlex.quote(c) for c in cmd[2:]).replace(REPO + "/", "")
        if show and shown_cmd not in self.cmds:
            self.cmds.append(shown_cmd)
        self.swept.append((name, out))
        if os.environ.get("DBFIO_EXP_GATE", "1") != "0" and not getattr(self.a, "demo", False):
            env = {**env, "DBFIO_SWEEP_QUIET": GATE_MAX}
        t = time.time()
        with subprocess.Popen(cmd, cwd=REPO, env={**os.environ, **{k: str(v) for k, v in env.items()}},
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) as p:
            RUNNING[:] = [p]
            r = subprocess.CompletedProcess(cmd, 0, None, p.communicate()[1])
            r.returncode = p.returncode
            RUNNING.clear()
        self.waits += [float(x) for x in re.findall(r"quiet-host gate: waited ([\d.]+) s", r.stderr)]
        bad = [l.strip() for l in r.stderr.splitlines() if "failed" in l]
        if r.returncode and not bad:   # a usage error or an OSError: sweep's last line says which
            bad = [f"tools/sweep exit {r.returncode}: " + (r.stderr.strip().splitlines() or ["?"])[-1]]
        log(f"{self.seed} {name}: {time.time() - t:.0f}s" + (f", {bad[0]}" if bad else ""))
        if bad:
            self.notes.append(f"{name}: {bad[0]}")
        return out

    def repeats(self, one, control):
        """Every repeat: one(rep) for rep in 0..reps-1, each recording its
        figures with measure(); then each repeat that disturbed() names is run
        once more (one(rep) again, its sweeps in the same folders, its
        figures replacing the disturbed ones) and listed in self.reruns and in
        the run folder's reruns.json, which the pack keeps: --replay and
        --rejudge repeat the run's own reruns instead of judging again.
        control: the measurement keys' prefix of the seed's reference target
        ("local/"), or a tuple of such prefixes."""
        for rep in self.each_repeat(control):
            one(rep)

    def each_repeat(self, control):
        """The repeats as a loop takes them (for rep in ctx.each_repeat(...)):
        0..reps-1, then once more each repeat disturbed() names, as repeats()
        runs them (the loop's body records every repeat's figures before it
        asks for the next)."""
        yield from range(self.reps)
        kept = os.path.join(self.runs, "reruns.json")
        try:
            with open(kept) as fi:         # a replay: the run's own reruns
                bad = [tuple(x) for x in json.load(fi)]
        except (OSError, ValueError):
            bad = disturbed(self.m, control, self.reps)
            if bad:
                os.makedirs(self.runs, exist_ok=True)
                with open(kept, "w") as fo:
                    json.dump(bad, fo)
        for rep in sorted({b[0] for b in bad}):
            log(f"{self.seed}: repeat {rep + 1} disturbed ("
                + ", ".join(f"{k} {v:.4g} against its median {m:.4g}" for r, k, v, m in bad if r == rep)
                + "): run again")
            self.reruns += [b for b in bad if b[0] == rep]
            yield rep

    def rerun_notes(self):
        """The page's lines on the gate and the reruns."""
        out = []
        if self.waits:
            out.append(f"quiet-host gate before every point (fewer than {host.QUIET_CORES:g} cores busy over "
                       f"{host.QUIET_WINDOW:g} s, {GATE_MAX} s at most; python/dbfio/host.py): " + host.waited(self.waits, GATE_MAX))
        reps = sorted({b[0] for b in self.reruns})
        if reps:
            out.append(f"disturbed repeats run again once (a control figure more than {DISTURBED:g}× off its "
                       "median over the repeats; the rerun's figures replace them): " + "; ".join(
                           f"repeat {rep + 1}: " + ", ".join(f"`{k}` {v:.4g} against {m:.4g}"
                                                            for r, k, v, m in self.reruns if r == rep)
                           for rep in reps))
        elif self.reps > 1:
            out.append(f"no disturbed repeat (none had a control figure more than {DISTURBED:g}× off its median)")
        return out

    def fresh(self, name):
        d = os.path.join(self.local, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d


def disturbed(m, control, reps, off=DISTURBED):
    """[(repeat, key, value, median)] of the measurements m under the prefix
    control (a str, or a tuple of them) whose value in a repeat is more than off times above or below
    their median over the repeats (needs 3 repeats: of two, neither is the
    odd one)."""
    bad = []
    for k in sorted(m):
        if not k.startswith(control):
            continue
        vals = [v for v in m[k][:reps] if v is not None]
        if len(vals) < 3:
            continue
        md = statistics.median(vals)
        if md <= 0:
            continue
        for rep, v in enumerate(m[k][:reps]):
            if v is not None and v > 0 and not 1 / off <= v / md <= off:
                bad.append((rep, k, v, md))
    return bad


def point(run, **pv):
    """fio's JSON of one sweep point (None when it failed)."""
    return SW.load_json(os.path.join(run, SW.point_name({k: str(v) for k, v in pv.items()}), "point.json"))


def pdir(run, **pv):
    return os.path.join(run, SW.point_name({k: str(v) for k, v in pv.items()}))


def jobs(d):
    return {j["jobname"]: j for j in (d or {}).get("jobs", [])}


def sidecar(run, fn, **pv):
    try:
        with open(os.path.join(pdir(run, **pv), fn)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def f(v, nd=2):
    if v is None:
        return "—"
    if isinstance(v, str):
        return v
    return f"{v:,.{nd}f}" if abs(v) < 1000 else f"{v:,.0f}"



def med(ctx, key):
    """median, min and max of a measurement over its repeats (None where none ran)"""
    v = [x for x in ctx.m.get(key, []) if x is not None]
    return (statistics.median(v), min(v), max(v)) if v else (None, None, None)


def cell(ctx, key, nd=3):
    """a table cell: the median, with min–max when the point was repeated"""
    m, lo, hi = med(ctx, key)
    if m is None:
        return "—"
    return f"{f(m, nd)} ({f(lo, nd)}–{f(hi, nd)})" if ctx.reps > 1 else f(m, nd)


def ratio(a, b):
    return f"{a / b:.1f}×" if a is not None and b else "—"


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


# ------------------------------------------------------------------ targets

def ceph_targets(conf=None, prefix="", label="", names=("cephfs", "cephfs-fuse", "ext4rbd")):
    """seed 000's targets: name -> (label, env), the mounted ones only. conf:
    another cluster's ceph.conf (its targets named prefix + name, labelled
    label, with CEPH_CONF in their env; no local target); default CEPH_CONF's."""
    own = conf is None
    conf = os.environ.get("CEPH_CONF") if own else conf
    t = {"local": ("local dir (ext4)", {"STORE": "posix"})} if own else {}
    if not conf:
        return t, ["CEPH_CONF is not set: the Ceph targets were skipped"]
    notes, mnt, cenv = [], os.path.join(os.path.dirname(conf), "mnt"), ({} if own else {"CEPH_CONF": conf})
    if "cephfs" in names:
        t[prefix + "cephfs"] = ("CephFS (libcephfs)" + label, {"STORE": "cephfs", **cenv})
    for name, lab in (("cephfs-fuse", "CephFS (ceph-fuse)"), ("ext4rbd", "ext4 on RBD")):
        if name not in names:
            continue
        m = os.path.join(mnt, "cephfs" if name == "cephfs-fuse" else "ext4rbd")
        if os.path.ismount(m):
            t[prefix + name] = (lab + label, {"STORE": "posix", "MOUNT": m, **cenv})
        else:
            notes.append(f"{m} is not mounted ('tools/cluster mount'): target {prefix + name} skipped")
    return t, notes


def side_cluster(ctx, profile, tag, extra_env=None, mounts=False):
    """A second cluster (tools/cluster up --profile PROFILE) beside CEPH_CONF's,
    in its own directory ($DBFIO_<TAG>_CLUSTER_DIR, default <CEPH_CONF's
    cluster's parent>/cluster-<tag>) on its own port ($DBFIO_<TAG>_CLUSTER_PORT,
    default DBFIO_CLUSTER_PORT + 100 for seed003, + 200 for replicated); the
    command goes to ctx.cmds. mounts: also `tools/cluster mount` (CephFS via
    ceph-fuse, ext4 on RBD). Returns (env with its CEPH_CONF, the profile line
    of `tools/cluster status`, a stop function: `down` unless it was up, else
    `umount` if this call mounted) or None (a note says why)."""
    key = tag.upper().replace("-", "_")
    base = os.path.dirname(os.environ["CEPH_CONF"])
    off = {"seed003": 100, "replicated": 200}.get(tag, 300)
    cenv = {**os.environ, **(extra_env or {}),
            "DBFIO_CLUSTER_DIR": os.environ.get(f"DBFIO_{key}_CLUSTER_DIR",
                                                os.path.join(os.path.dirname(base), f"cluster-{tag}")),
            "DBFIO_CLUSTER_PORT": os.environ.get(f"DBFIO_{key}_CLUSTER_PORT",
                                                 str(int(os.environ.get("DBFIO_CLUSTER_PORT", "30100")) + off))}
    cl = os.path.join(REPO, "tools", "cluster")
    was_up = subprocess.run([cl, "status"], env=cenv, capture_output=True).returncode == 0
    t = time.time()
    try:
        r = subprocess.run([cl, "up", "--profile", profile], env=cenv, capture_output=True, text=True)
    except BaseException:       # a signal while it starts: stop what this started
        if not was_up:
            subprocess.run([cl, "down"], env=cenv, capture_output=True)
        raise
    log(f"{ctx.seed} cluster --profile {profile} {'was up' if was_up else 'up'}: {time.time() - t:.0f}s")
    if r.returncode != 0:
        ctx.notes.append(f"the {tag} cluster did not start: " + (r.stderr.strip().splitlines() or ["?"])[-1])
        return None
    shown = (f"DBFIO_CLUSTER_DIR={cenv['DBFIO_CLUSTER_DIR'].replace(REPO + '/', '')} "
             f"DBFIO_CLUSTER_PORT={cenv['DBFIO_CLUSTER_PORT']} tools/cluster")
    ctx.cmds.append(f"{shown} up --profile {profile}")
    conf = os.path.join(cenv["DBFIO_CLUSTER_DIR"], "ceph.conf")
    mounted = False
    if mounts:
        mnt = os.path.join(cenv["DBFIO_CLUSTER_DIR"], "mnt")
        if not all(os.path.ismount(os.path.join(mnt, m)) for m in ("cephfs", "ext4rbd")):
            r = subprocess.run([cl, "mount"], env=cenv, capture_output=True, text=True)
            if r.returncode != 0:
                ctx.notes.append(f"tools/cluster mount on the {tag} cluster failed: "
                                 + (r.stderr.strip().splitlines() or ["?"])[-1])
            mounted = True
        ctx.cmds.append(f"{shown} mount")
    st = subprocess.run([cl, "status"], env=cenv, capture_output=True, text=True).stdout
    line = next((l[9:] for l in st.splitlines() if l.startswith("profile")), profile)

    def stop():
        if not was_up:
            subprocess.run([cl, "down"], env=cenv, capture_output=True)
        elif mounted:
            subprocess.run([cl, "umount"], env=cenv, capture_output=True)
    return {"CEPH_CONF": conf}, line, stop


def target_env(ctx, tname, tenv, tag):
    """Fresh database directory (posix) or CephFS path (libcephfs); the
    target's CEPH_CONF when it is on another cluster."""
    env = {"STORE": tenv["STORE"], "ROOT": f"/dbfio-exp-{tag}-{os.getpid()}"}
    if "CEPH_CONF" in tenv:
        env["CEPH_CONF"] = tenv["CEPH_CONF"]
    if "MOUNT" in tenv:
        env["DIR"] = os.path.join(tenv["MOUNT"], f"dbfio-exp-{tag}-{os.getpid()}")
        shutil.rmtree(env["DIR"], ignore_errors=True)
        os.makedirs(env["DIR"])
    else:
        env["DIR"] = ctx.fresh(f"{tname}-{tag}")
    return env


def target_cleanup(tenv, env):
    shutil.rmtree(env["DIR"], ignore_errors=True)
    conf = tenv.get("CEPH_CONF", os.environ.get("CEPH_CONF"))
    if tenv["STORE"] == "cephfs" and conf:   # through the ceph-fuse mount when there is one
        m = os.path.join(os.path.dirname(conf), "mnt", "cephfs")
        if os.path.ismount(m):
            shutil.rmtree(m + env["ROOT"], ignore_errors=True)

