# lab/bench.d/rbdsnap.py - rbdsnap's pairs for lab/bench (see lab/bench).
# Snapshots off, rbdsnap is a drop-in for fio's built-in rbd engine: same
# image (rbdsnap-bench, 256 MiB, created on first use and kept), same job
# (seed 003: 4 KiB randwrite, iodepth 32), 10 s each, interleaved. librbd's
# cache is chosen by a ceph.conf copy with rbd_cache in [client], passed via
# CEPH_CONF to both sides (fio's rbd engine has no cache option).

def pairs(work):
    import os, subprocess
    conf = os.environ.get("CEPH_CONF")
    if not conf:
        env = subprocess.run([os.path.join(REPO, "tools", "cluster"), "env"],
                             capture_output=True, text=True).stdout
        for tok in env.split():
            if tok.startswith("CEPH_CONF="):
                conf = tok.split("=", 1)[1].strip("'\"")
    if not conf or not os.path.exists(conf):
        return []
    d = os.path.join(work, "rbdsnap")
    os.makedirs(d, exist_ok=True)
    confs = {}
    for cache in ("true", "false"):
        c = os.path.join(d, f"ceph-cache-{cache}.conf")
        with open(c, "w") as f:
            f.write(open(conf).read() + f"\n[client]\nrbd_cache = {cache}\n")
        confs[cache] = c
    img = "rbdsnap-bench"
    mk = f"(rbd info -p rbd {img} >/dev/null 2>&1 || rbd create -p rbd --size 256M {img})"
    job = (f"--name=seed003 --clientname=admin --pool=rbd --rbdname={img} --invalidate=0 "
           f"--rw=randwrite --bs=4k --iodepth=32 --time_based --runtime=10 --output-format=json")
    ps = []
    for cache, label in (("true", "on"), ("false", "off")):
        env = f"CEPH_CONF={confs[cache]}"
        ps.append(Pair(
            f"rbdsnap (no snapshots) vs fio rbd engine, 4k randwrite qd32, librbd cache {label} (IOPS)",
            Side("rbdsnap", f"{mk} && {env} fio --ioengine=external:{B}/rbdsnap.so {job}", fio_iops),
            Side("fio rbd", f"{mk} && {env} fio --ioengine=rbd {job}", fio_iops),
            target=1.0,
            note=f"same image and job, rbd_cache = {cache} in a ceph.conf copy; one OSD on this machine"))
    return ps
