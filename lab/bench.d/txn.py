# lab/bench.d/txn.py - txn's pairs for lab/bench (see lab/bench).
# The commit path: with rtt=0 and cpu_per_stmt=0, one connection committing
# 8 kB log records (txn_log_bytes=8192, no full-page images) against redolog
# alone committing 8 kB records at depth 1, both postgres flavor on posix.
# txn's transaction adds the insert profile's two buffer-pool hits and its
# shared log's mutex; the target is that they cost under 5%.

def pairs(work):
    import os
    d = os.path.join(work, "txn")
    os.makedirs(d, exist_ok=True)
    txn = (f"fio --name=txn --ioengine=external:{B}/txn.so --directory={d}/txn --rw=write "
           f"--flavor=postgres --calibration=none --txn_profile=insert --txn_log_bytes=8192 --full_page_writes=0 "
           f"--rtt=0 --cpu_per_stmt=0 --time_based --runtime=3 --output-format=json")
    rl = (f"fio --name=redolog --ioengine=external:{B}/redolog.so --directory={d}/rl --rw=write "
          f"--flavor=postgres --bs=8k --iodepth=1 --time_based --runtime=3 --output-format=json")
    os.makedirs(os.path.join(d, "txn"), exist_ok=True)
    os.makedirs(os.path.join(d, "rl"), exist_ok=True)
    return [
        Pair("txn commit path vs redolog alone (postgres, 8 kB records, 1 connection, tps / commits/s)",
             Side("txn rtt=0 cpu_per_stmt=0 insert", txn, fio_iops),
             Side("redolog depth 1", rl, fio_iops),
             target=0.95, note="issue 14: with rtt=0 and cpu=0 the commit path stays within 5% of redolog"),
    ]
