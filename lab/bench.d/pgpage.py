# lab/bench.d/pgpage.py - pgpage's pairs for lab/bench (see lab/bench).
# Runs are short (5 s and 15 s) and use one 256 MiB relation file (one
# segment), written buffered at iodepth 1 as PostgreSQL backends write.

def _write_p99_us(out):
    """p99 of the page writes' completion latency, in microseconds
    (here lower is better: the pair's ratio is the checkpoint's cost)."""
    d = fiojson.loads(out)    # lab/bench's import
    return d["jobs"][0]["write"]["clat_ns"]["percentile"]["99.000000"] / 1000.0

def pairs(work):
    import os
    d = os.path.join(work, "pgpage")
    os.makedirs(d, exist_ok=True)
    eng = f"external:{B}/pgpage.so"
    common = "--output-format=json --rw=randwrite --bs=8k --iodepth=1 --time_based --thread"
    pg = (f"fio --name=pgpage --ioengine={eng} --directory={d} --relations=1 "
          f"--relation_size=256m --segment_size=1g --relfilenode=16384 {common}")
    return [
        Pair("pgpage page writes/s, checkpoints off vs fio psync randwrite bs=8k (same file)",
             Side("pgpage checkpoint_timeout=0",
                  f"{pg} --runtime=5 --checkpoint_timeout=0", fio_iops),
             Side("fio psync",
                  f"fio --name=psync --ioengine=psync --filename={d}/16384 --size=256m --invalidate=0 "
                  f"{common} --runtime=5", fio_iops),
             target=0.98,
             note="one relation file 16384 of 256 MiB, random 8 kB buffered writes, 5 s each; psync with invalidate=0 (pgpage, like PostgreSQL, does not drop the page cache; fio psync would by default)"),
        Pair("pgpage checkpoint cost: page-write p99, checkpoint every 10 s / none (figure, lower = cheaper)",
             Side("pgpage checkpoint_timeout=10",
                  f"{pg} --runtime=15 --checkpoint_timeout=10 --checkpoint_completion_target=0.9",
                  _write_p99_us),
             Side("pgpage checkpoint_timeout=0", f"{pg} --runtime=15 --checkpoint_timeout=0",
                  _write_p99_us),
             note="A/B = p99 with checkpoints / without, in µs; 15 s runs, so one paced "
                  "checkpoint (9 s of writes, then fsync) lands inside each run"),
    ]
