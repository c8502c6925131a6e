# metastorm pairs: DDL creates vs fio's filecreate, and the cost of the per-syscall accounting.
def pairs(work):
    import os
    d = os.path.join(work, "metastorm")
    os.makedirs(d, exist_ok=True)
    ms = f"fio --output-format=json --name=ms --ioengine=external:{B}/metastorm.so --directory={d}"

    def filecreate(n):
        fc = os.path.join(d, "fc")
        return (f"rm -rf {fc} && mkdir {fc} && fio --output-format=json --name=fc --ioengine=filecreate "
                f"--directory={fc} --nrfiles={n} --filesize=4k --bs=4k --openfiles=1 --create_on_open=1; "
                f"rc=$?; rm -rf {fc}; exit $rc")

    return [
        Pair("metastorm mysql CREATE TABLE vs fio filecreate (creates/s, local fs)",
             Side("metastorm create flavor=mysql", f"{ms} --flavor=mysql --ddl_mix=create:1 --tables=0 --number_ios=300", fio_iops),
             Side("fio filecreate", filecreate(2000), fio_iops),
             note="a figure, no target: filecreate times open(O_CREAT)+close only; one MySQL 8.0 CREATE TABLE "
                  "is open+write 112 KiB+fsync+close, a directory fsync, 2 redo appends+fsync and a binlog append+fdatasync"),
        Pair("metastorm postgres CREATE TABLE vs fio filecreate (creates/s, local fs)",
             Side("metastorm create flavor=postgres", f"{ms} --flavor=postgres --ddl_mix=create:1 --tables=0 --number_ios=1000", fio_iops),
             Side("fio filecreate", filecreate(2000), fio_iops),
             note="a figure, no target: PostgreSQL's create is open(O_CREAT)+close of an empty file plus one WAL append+fdatasync"),
        Pair("metastorm accounting on vs off (default mix, mysql, ops/s)",
             Side("syscall_table=1", f"{ms} --number_ios=1500 --syscall_table=1", fio_iops),
             Side("syscall_table=0", f"{ms} --number_ios=1500 --syscall_table=0", fio_iops),
             target=0.97, note="2 clock reads + one histogram add per call, on calls that are mostly fsyncs"),
        Pair("metastorm accounting on vs off (open only: the cheapest calls, worst case)",
             Side("syscall_table=1", f"{ms} --ddl_mix=open:1 --tables=64 --number_ios=100000 --syscall_table=1", fio_iops),
             Side("syscall_table=0", f"{ms} --ddl_mix=open:1 --tables=64 --number_ios=100000 --syscall_table=0", fio_iops),
             target=0.97, note="open+fstat+pread+close of a cached file, ~4 us per statement: the accounting's largest share"),
    ]
