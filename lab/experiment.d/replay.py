# lab/experiment.d/replay.py - lab/experiment --replay: a seed's page
# recomputed from its packed runs (OUT/runs/seed00N.jsonl) by the seed's own
# code, without running anything. The sweeps return the unpacked run folders;
# what the seed would ask of the machine (which targets are mounted, a second
# cluster, GlusterFS volume options, rbd and ceph commands, dropping the page
# cache) is answered from what the pack holds. What a page says about the
# machine, the run's date and duration, its commands and notes are not in the
# runs: --replay compares the claims and the measurements (the sections from
# "The seed's claims" to "Exact commands") and the plots.
import contextlib, os, re, subprocess

import common, realdb, seed000, seed000_replica, seed001, seed002, seed003

# seed 000's and 001's targets on a mount: the mount folder -> the target name
MOUNTED = {"cephfs": "cephfs-fuse", "ext4rbd": "ext4rbd", "ext4rbd-wal": "ext4rbd"}
CEPH = {"cephfs", "cephfs-fuse", "ext4rbd", "bluestore"}


def _sweep(self, job, matrix, env, name, metrics=None, show=True, extra=()):
    out = os.path.join(self.runs, name)
    self.swept.append((name, out))
    return out


def kind(page):
    """(short, demo, repeats) of the run a page was written from (its Source line)."""
    m = re.search(r"^Source: .*$", page, re.M)
    line = m.group(0) if m else ""
    reps = re.search(r"every point (\d+)×", line)
    return ("SHORT run" in line or "DEMO run" in line, "DEMO run" in line, int(reps.group(1)) if reps else 1)


@contextlib.contextmanager
def stubs(names, page, tmp):
    """The seed modules answered from a pack whose top-level folders are names
    (its targets, clusters, variants); page: the page the run wrote (the second
    clusters' status lines)."""
    def ismount(p):
        repl = os.path.basename(os.path.dirname(os.path.dirname(p))) == "cluster-replicated"
        t = MOUNTED.get(os.path.basename(p))
        return t is not None and ("repl-" if repl else "") + t in names

    def side_cluster(ctx, profile, tag, extra_env=None, mounts=False):
        pat = {"replicated": r"on a second cluster: \*\*(.+?)\*\* \(`",
               "seed003": r"^- \*\*seed-like \(seed003 profile\)\*\*: (.*)$"}[tag]
        if not any(n.startswith("repl-" if tag == "replicated" else "seedlike") for n in names):
            return None
        m = re.search(pat, page, re.S | re.M)
        return ({"CEPH_CONF": os.path.join(tmp, f"cluster-{tag}", "ceph.conf")}, m.group(1) if m else "?",
                lambda: None)

    def gluster_mount(ctx):
        return (os.path.join(tmp, "gluster"), "gluster-iocache" in names) if "gluster" in names else (None, False)

    saved = []

    def put(mod, name, value):
        saved.append((mod, name, getattr(mod, name)))
        setattr(mod, name, value)
    env = {"CEPH_CONF": os.path.join(tmp, "cluster", "ceph.conf") if CEPH & set(names) else None,
           "GLUSTER_MNT": None, "DBFIO_EXP_LOCAL": os.path.join(tmp, "local")}
    old_env = {k: os.environ.get(k) for k in env}
    os.makedirs(os.path.join(tmp, "gluster"), exist_ok=True)
    try:
        for k, v in env.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
        put(common.Ctx, "sweep", _sweep)
        put(os.path, "ismount", ismount)
        put(seed000, "side_cluster", side_cluster)
        put(seed000_replica, "ceph", lambda conf, *a, tool="ceph": subprocess.CompletedProcess(a, 0, "", ""))
        put(seed003, "side_cluster", side_cluster)
        put(seed003, "s003_sh", lambda env, *cmd: subprocess.CompletedProcess(cmd, 0, "", ""))
        put(seed002, "gluster_mount", gluster_mount)
        put(seed002, "gl", lambda ctx, *args: True)
        put(seed002, "settle", lambda mnt: None)
        put(seed002, "drop_caches", lambda ctx: True)
        put(seed001, "subprocess", None)    # wal_mounts must not mount anything
        put(realdb, "live", False)          # the real server's figures from its real.json
        yield
    finally:
        for mod, name, value in reversed(saved):
            setattr(mod, name, value)
        for k, v in old_env.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def section(page):
    """The claims and the measurements of a page."""
    a, b = page.find("## The seed's claims"), page.find("## Exact commands")
    return page[a:b] if a >= 0 and b > a else ""
