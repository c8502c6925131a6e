# lab/bench.d/redolog.py - redolog's pairs for lab/bench (see lab/bench).
# Commit throughput (commits/s = fio write IOPS, one io_u = one commit) of the
# postgres flavor with 8 kB records, 3 s runs, against pg_test_fsync and fio
# psync+fdatasync on the same file system, and group commit (iodepth 16 / 1).
# With CEPH_CONF set: the same on CephFS (libcephfs) and RBD as figures; the
# pg_test_fsync/psync sides then need `tools/cluster mount` (ceph-fuse and
# ext4 on rbd-fuse) and are left out without the mounts.

def pairs(work):
    import os
    eng = f"external:{B}/redolog.so"

    def rl(d, qd, store="posix", extra=""):
        return (f"fio --name=redolog --ioengine={eng} --store={store} --directory={d} "
                f"--flavor=postgres --bs=8k --iodepth={qd} --rw=write --time_based --runtime=3 "
                f"--output-format=json {extra}")

    def psync(d):
        return (f"fio --name=psync --ioengine=psync --filename={d}/psync.dat --size=16m --rw=write "
                f"--bs=8k --fdatasync=1 --time_based --runtime=3 --output-format=json")

    def three(tag, d, store, extra, mnt, target):
        ps = []
        if mnt:
            ps.append(Pair(f"redolog {tag}: postgres 8k depth 1 commits/s vs pg_test_fsync fdatasync",
                           Side(f"redolog store={store}", rl(d, 1, store, extra), fio_iops),
                           Side("pg_test_fsync", f"{PG_BIN}/pg_test_fsync -s 3 -f {mnt}/redolog-pgtf.dat",
                                pg_fdatasync),
                           target=0.95 if target else None,
                           note=f"8 kB records + 24 B header into 8 kB WAL pages, fdatasync per commit; "
                                f"pg_test_fsync in {mnt}"))
            ps.append(Pair(f"redolog {tag}: postgres 8k depth 1 commits/s vs fio psync write bs=8k fdatasync=1",
                           Side(f"redolog store={store}", rl(d, 1, store, extra), fio_iops),
                           Side("fio psync fdatasync=1", psync(mnt), fio_iops),
                           target=1.0 if target else None, note=f"fio psync in {mnt}"))
        ps.append(Pair(f"redolog {tag}: group commit, commits/s at iodepth 16 / iodepth 1",
                       Side(f"redolog store={store} iodepth=16", rl(d, 16, store, extra), fio_iops),
                       Side(f"redolog store={store} iodepth=1", rl(d, 1, store, extra), fio_iops),
                       target=8.0 if target else None, note="postgres flavor, 8 kB records"))
        return ps

    d = os.path.join(work, "redolog")
    os.makedirs(d, exist_ok=True)
    ps = three("posix", d, "posix", "", d, True)

    # The ownership marker's history: an earlier version appended a line per
    # recycled WAL segment and scanned them all at every recycle (2,000,000
    # lines: 2,776 commits in 5 s instead of 86,479). A long run's commits/s
    # with such a marker in its directory, against a fresh directory.
    def recycling(sub, history):
        hd = os.path.join(work, sub)
        made = (f"(echo 'dbfio owner marker 1: the names below were created by dbfio engines'; "
                f"seq -f 0000000100000000%08g 100 2000099) >{hd}/.dbfio-owned && " if history else "")
        inner = (f"rm -rf {hd} && mkdir -p {hd} && {made}"
                 + rl(hd, 1, extra="--bs=64k --wal_segment_size=1m --wal_segments=2 --runtime=5"))
        return "sh -c " + shlex.quote(inner)
    ps.append(Pair("redolog posix: WAL recycling, commits/s with a 2,000,000-line marker / a fresh directory",
                   Side("2,000,000-line marker", recycling("redolog-marker-old", True), fio_iops),
                   Side("fresh directory", recycling("redolog-marker-new", False), fio_iops),
                   target=0.9, note="postgres flavor, 64 kB records, 1 MiB segments recycled (~100/s)"))
    conf = os.environ.get("CEPH_CONF")
    if conf:
        mnt = os.path.join(os.path.dirname(conf), "mnt")
        cfs = os.path.join(mnt, "cephfs")
        ext = os.path.join(mnt, "ext4rbd")
        ps += three("cephfs", d, "cephfs", "--store_root=/redolog-bench", cfs if os.path.ismount(cfs) else None, False)
        ps += three("rbd", d, "rbd", "--rbdname=redolog-bench --rbd_size=1g",
                    ext if os.path.ismount(ext) else None, False)
    return ps
