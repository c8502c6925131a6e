# lab/experiment.d/realdb.py - the real database beside the model: the seed
# operations that MariaDB 10.11 and PostgreSQL 15 can run here, run by the
# real server (python/dbfio/servers.py) on the same targets as the model, in
# the same repeat, right after the model's jobs on that target (seed 002's
# dumps: in repeats of their own after the model's, seed002.py). Each figure
# goes under REAL + the model's key ("real:ext4rbd/create"), so
# claims.py judges a claim a second time, with the same verdict function, on
# the real server's figures.
#
# Targets: the real server needs a directory, so it runs on the local
# directory and on the mounts (ceph-fuse, ext4 on RBD); a libcephfs target
# (the model's "cephfs") has no directory: its real counterpart is the
# ceph-fuse mount, recorded under both names (ALIAS). Each run writes its
# figures to <runs>/<target>/real/rN/real.json, packed with the sweeps, so
# --replay and --rejudge read them back (live = False) instead of starting a
# server.
import json, os, pwd, re, shlex, shutil, sys, tempfile, time
from common import REPO, cell, log, table

sys.path.insert(0, os.path.join(REPO, "python"))
from dbfio import servers   # noqa: E402

REAL = "real:"
ALIAS = {"cephfs-fuse": ("cephfs",)}    # the real server's CephFS is the ceph-fuse mount
live = True                             # replay.stubs: read real.json, start nothing
PG = servers.PG_BIN
TIMEOUT = 900                           # s: one statement batch, one pgbench -i, one prepare


def key(k):
    return REAL + k


def workdir(base, tag):
    """A fresh directory for the server under base (a mount or a local
    directory), searchable by user postgres."""
    d = tempfile.mkdtemp(prefix=f"realdb-{tag}-", dir=base)
    os.chmod(d, 0o755)
    return d


def record(ctx, rep, tname, name, fn):
    """fn() -> {metric: value} run once (live) or read back from the pack;
    the figures recorded under REAL + target/metric (and its ALIAS names).
    A failure is a note, not a crash: the real column stays empty there."""
    out = os.path.join(ctx.runs, tname, name, f"r{rep + 1}")
    fn_json = os.path.join(out, "real.json")
    ctx.swept.append((f"{tname}/{name}/r{rep + 1}", out))
    if live:
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        t = time.time()
        try:
            figs = fn(out)
        except (servers.Fail, OSError) as e:
            figs = {"error": str(e)}
        with open(fn_json, "w") as fo:
            json.dump(figs, fo, indent=1)
        log(f"{ctx.seed} {tname}/{name}/r{rep + 1}: {time.time() - t:.0f}s"
            + (f", {figs['error']}" if "error" in figs else ""))
    else:
        try:
            with open(fn_json) as fi:
                figs = json.load(fi)
        except (OSError, ValueError):
            return
    if "error" in figs:
        note = f"{tname}/{name}: {figs['error']}"
        if note not in ctx.notes:
            ctx.notes.append(note)
        return
    for t in (tname,) + ALIAS.get(tname, ()):
        for k, v in figs.items():
            if isinstance(v, (int, float)):
                ctx.measure(key(f"{t}/{k}"), rep, v)


def stopped(srv):
    left = srv.stop()
    if left:
        raise servers.Fail(f"{srv.name} processes survive SIGKILL: {left}")

# ------------------------------------------------------------ seed 000: MariaDB


TABLE = "(id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(100)) ENGINE=InnoDB"
RECORDS = (("1k", 1000), ("10k", 10000), ("100k", 100000))
# MySQL 5.7's default flush method (the model's records job says the same);
# O_DIRECT, 10.11's default, is refused by some FUSE file systems
MARIADB_OPTS = ["innodb_flush_method=fsync", "innodb_buffer_pool_size=128M"]
# the record stages run with the server's threads and its client on one CPU,
# as jobs/seed000-records.fio runs the model (cpus_allowed=0): a statement's
# two hand-overs cost 40-50 us more when the scheduler has put the two ends
# on different vCPUs, which it changes from stage to stage (10000 INSERTs in
# 0.64-0.90 s unpinned, 0.44-0.45 s pinned, the model on local ext4)
REC_CPUS = {0}


def seed000_cmds(stm, rt):
    return ("real MariaDB 10.11 (lab/experiment.d/realdb.py, python/dbfio/servers.py) in a fresh directory on "
            f"each target, per repeat: `mariadb-install-db --no-defaults --innodb-flush-method=fsync` (timed), "
            f"`mariadbd --no-defaults --innodb-flush-method=fsync`, {stm} × `CREATE TABLE {TABLE}` then {stm} × "
            "`DROP TABLE` (each timed, one session), record stages: `CREATE TABLE` + N × `INSERT INTO t (v) "
            "VALUES (...)` (autocommit, `innodb_flush_log_at_trx_commit=0`) + `FLUSH TABLES t FOR EXPORT` for N = "
            "1000, 10000, 100000 (the server's threads and the client on CPU 0 meanwhile, as the model), "
            "`sysbench oltp_read_write --tables=1 --table-size=100000 --rand-type=uniform "
            f"--threads=1 --time={rt}` (trx_commit 1)")


def seed000(ctx, rep, tname, tenv, stm, rt):
    """MariaDB on one target in one repeat: install, CREATE/DROP, records,
    sysbench. Skipped for libcephfs targets (no directory: ALIAS) and the
    replicated cluster's (time budget)."""
    if ("MOUNT" not in tenv and tenv.get("STORE") != "posix") or "CEPH_CONF" in tenv:
        return
    base = tenv.get("MOUNT") or ctx.fresh(f"{tname}-real")
    if rep == 0:
        c = seed000_cmds(stm, rt)
        if c not in ctx.cmds:
            ctx.cmds.append(c)
    record(ctx, rep, tname, "real", lambda out: mariadb_run(base, out, stm, rt))


def install(srv):
    """mariadb-install-db for srv (a MariaDB) as the seed's MySQL 5.7 flushed
    (innodb_flush_method=fsync); seconds it took."""
    t = time.perf_counter()
    servers.run(srv.setup_command() + ["--innodb-flush-method=fsync"], "mariadb-install-db", TIMEOUT, log=srv.log,
                cwd=srv.workdir)
    return time.perf_counter() - t


def mariadb_run(base, out, stm, rt):
    w = workdir(base, "mariadb")
    srv = servers.MariaDB(w, out, MARIADB_OPTS)
    figs = {}
    try:
        figs["install"] = install(srv)
        srv.start()
        figs["datadir"] = srv.datadir
        s = srv.session()
        try:
            s.calibrate()
            names = [f"realdb_t{i}" for i in range(stm)]
            figs["create"] = sum(s.timed(f"CREATE TABLE {n} {TABLE}") for n in names) / stm
            figs["drop"] = sum(s.timed(f"DROP TABLE {n}") for n in names) / stm
            srv.sql("SET GLOBAL innodb_flush_log_at_trx_commit = 0")
            ends, every = [srv.proc.pid, s.p.pid], os.sched_getaffinity(0)
            for tag, n in RECORDS:
                servers.pin(ends, REC_CPUS)
                try:
                    figs[f"rec-{tag}"] = records(s, f"realdb_rec{tag}", n)
                finally:
                    servers.pin(ends, every)
                rows = int(srv.sql(f"SELECT COUNT(*) FROM realdb_rec{tag}").strip())
                if rows != n:
                    raise servers.Fail(f"rec-{tag}: {rows} rows in the table after {n} INSERTs")
                figs[f"rows-{tag}"] = rows
            srv.sql("SET GLOBAL innodb_flush_log_at_trx_commit = 1")
        finally:
            s.close()
        servers.run(srv.oltp_read_write(100000, "prepare"), "sysbench prepare", TIMEOUT, log=srv.log)
        srv.settle()
        txt = servers.run(srv.oltp_read_write(100000, "--threads=1", f"--time={rt}", "run"), "sysbench run",
                          rt + 120)
        m = re.search(r"^\s*transactions:\s+\d+\s+\(([0-9.]+) per sec", txt, re.M)
        if not m:
            raise servers.Fail("sysbench run: no 'transactions: N (X per sec.)' line")
        figs["oltp-txps"] = float(m.group(1))
    finally:
        stopped(srv)
        shutil.rmtree(w, ignore_errors=True)
    return figs


def records(s, tbl, n):
    """One stage of the seed's record script: CREATE TABLE, n single-row
    INSERTs, the table's pages flushed (FLUSH TABLES ... FOR EXPORT writes and
    fsyncs them, as the model's stage ends with its page flush); seconds. The
    statements go to the client in one batch, which it runs one by one."""
    stmts = [f"CREATE TABLE {tbl} {TABLE}"] + [f"INSERT INTO {tbl} (v) VALUES ('realdb row {i}')"
                                                for i in range(n)]
    stmts += [f"FLUSH TABLES {tbl} FOR EXPORT", "UNLOCK TABLES"]
    return s.timed(";\n".join(stmts), timeout=TIMEOUT)

# ------------------------------------------------------------ seed 001: PostgreSQL


def seed001_cmds(scale, sb, conns, rt):
    return ("real PostgreSQL 15 (lab/experiment.d/realdb.py) per target and repeat: `initdb --waldir=WALDIR` "
            f"with the tables in DIR, `postgres -c shared_buffers={pg_mem(sb)}`, `pgbench -i -q -s {scale}`, then "
            f"per connection count C in {','.join(map(str, conns))}: `CHECKPOINT`, `pgbench -n -c C -j C -T {rt}`")


def pg_mem(sb):
    """'32m' (the model's size) as PostgreSQL writes it: 32MB."""
    m = re.fullmatch(r"(\d+)([kmg])", str(sb).lower())
    return f"{m.group(1)}{m.group(2).upper()}B" if m else str(sb)


def seed001(ctx, rep, tname, data, wal, scale, sb, conns, rt):
    """PostgreSQL on one target in one repeat: tables under data, WAL under
    wal (initdb --waldir), pgbench at each connection count."""
    if rep == 0:
        c = seed001_cmds(scale, sb, conns, rt)
        if c not in ctx.cmds:
            ctx.cmds.append(c)
    record(ctx, rep, tname, "real", lambda out: pg_run(data, wal, out, scale, sb, conns, rt))


def pg_run(data, wal, out, scale, sb, conns, rt):
    w = workdir(data, "pg")
    wd = workdir(wal, "pgwal")
    pw = pwd.getpwnam("postgres")
    for d in (w, wd):
        os.chown(d, pw.pw_uid, pw.pw_gid)
    walsub = os.path.join(wd, "wal")
    srv = servers.Postgres(w, out, [f"shared_buffers={pg_mem(sb)}", f"max_connections={max(conns) + 10}"])
    figs = {}
    try:
        servers.run(srv.setup_command() + ["--waldir", walsub], "initdb", TIMEOUT, log=srv.log, cwd=w,
                    **servers.as_user("postgres"))
        srv.start()
        figs["datadir"], figs["waldir"] = srv.datadir, walsub
        servers.run([PG + "/pgbench", "-i", "-q", "-s", str(scale)], "pgbench -i", TIMEOUT, log=srv.log,
                    env=srv.env())
        for c in conns:
            srv.settle()
            txt = servers.run([PG + "/pgbench", "-n", "-c", str(c), "-j", str(c), "-T", str(rt)],
                              f"pgbench -c {c}", rt + 120, env=srv.env())
            m = re.search(r"^tps = ([0-9.]+)", txt, re.M)
            if not m:
                raise servers.Fail(f"pgbench -c {c}: no 'tps = ' line")
            figs[f"tps-{c}"] = float(m.group(1))
        tps = [figs[f"tps-{c}"] for c in conns]    # seed001's min-step: the smallest gain from one count to the next
        if len(tps) > 1 and all(tps):
            figs["min-step"] = min(b / a for a, b in zip(tps, tps[1:]))
    finally:
        stopped(srv)
        shutil.rmtree(w, ignore_errors=True)
        shutil.rmtree(wd, ignore_errors=True)
    return figs

# ------------------------------------------------------------ seed 002: MariaDB's dumps on GlusterFS


class Dumps:
    """Seed 002's real MariaDB on one target directory (the local disk, the
    GlusterFS mount): installed and loaded once a run, in the first repeat
    that asks - TABLES empty tables and one sysbench table of ROWS rows -
    then in every repeat started cold (stopped, the page cache dropped) before
    each of its two timed commands: `mariadb-dump --no-data` (the seed's
    "printing schema") and `mariadb-dump | gzip` into the export directory (its
    "compressed export"). stop() at the end of the run removes it."""

    def __init__(self, base, logdir, exp_dir, tables, rows, drop):
        self.base, self.logdir, self.exp, self.tables, self.rows, self.drop = \
            base, logdir, exp_dir, tables, rows, drop
        self.srv = self.w = self.err = None

    def load(self):
        """Install and load (once: a failure is every later repeat's too)."""
        if self.err:
            raise servers.Fail(self.err)
        self.err = "not loaded: an earlier repeat's load failed"
        self.w = workdir(self.base, "dump")
        self.srv = servers.MariaDB(self.w, self.logdir, MARIADB_OPTS)
        install(self.srv)
        self.srv.start()
        servers.run(self.srv.oltp_read_write(self.rows, "prepare"), "sysbench prepare", TIMEOUT, log=self.srv.log)
        self.srv.sql(";\n".join(f"CREATE TABLE realdb_s{i} {TABLE}" for i in range(self.tables - 1)),
                     timeout=TIMEOUT)
        n = int(self.srv.sql("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'dbtrace'"))
        if n != self.tables:
            raise servers.Fail(f"{n} tables in dbtrace after creating {self.tables}")
        stopped(self.srv)
        self.err = None

    def cold(self, what, tail):
        """Seconds `mariadb-dump ... dbtrace TAIL` (a shell pipeline) takes
        against the server started cold."""
        stopped(self.srv)
        self.drop()
        self.srv.start()
        dump = ["mariadb-dump", "--no-defaults", "-h", "127.0.0.1", "-P", str(self.srv.port), "-u", "root",
                "dbtrace"]
        t = time.perf_counter()
        servers.run(["bash", "-c", "set -o pipefail; " + " ".join(dump) + " " + tail], what, TIMEOUT,
                    log=self.srv.log)
        return time.perf_counter() - t

    def figures(self, out):
        if self.srv is None or self.err:
            self.load()
        exp = os.path.join(self.exp, "realdb-export.sql.gz")
        try:
            return {"schema": self.cold("mariadb-dump --no-data", "--no-data >/dev/null"),
                    "export": self.cold("mariadb-dump | gzip", "| gzip >" + shlex.quote(exp)),
                    "export-bytes": os.path.getsize(exp)}
        finally:
            stopped(self.srv)
            try:
                os.remove(exp)
            except OSError:
                pass

    def stop(self):
        if self.srv:
            stopped(self.srv)
        if self.w:
            shutil.rmtree(self.w, ignore_errors=True)


def seed002_cmds(tables, rows):
    return ("real MariaDB 10.11 (lab/experiment.d/realdb.py) on the local disk and on the GlusterFS volume as set "
            "up (io-cache off), installed and loaded once a run: `mariadb-install-db --no-defaults "
            f"--innodb-flush-method=fsync`, `sysbench oltp_read_write --tables=1 --table-size={rows} prepare`, "
            f"{tables - 1} × `CREATE TABLE {TABLE}`; per repeat, each timed against a server started after "
            "`sync; echo 3 > /proc/sys/vm/drop_caches`: `mariadb-dump --no-data dbtrace >/dev/null`, "
            "`mariadb-dump dbtrace | gzip > EXPORT_DIR/realdb-export.sql.gz`")


def seed002(ctx, rep, tname, dumps):
    """Seed 002's real dumps on one target (a Dumps) in one repeat."""
    if rep == 0:
        c = seed002_cmds(dumps.tables, dumps.rows)
        if c not in ctx.cmds:
            ctx.cmds.append(c)
    record(ctx, rep, tname, "real", dumps.figures)


def seed002_page(ctx, targets, rows):
    """seed 002's section: seconds of the two dumps, the model and the real server."""
    s = section(ctx, "The real MariaDB beside the model: seconds, " + reps(ctx),
                [("Printing schema (mariadb-dump --no-data)", "schema", 3),
                 ("Compressed export (mariadb-dump \\| gzip)", "export", 2)], targets)
    return s and s.replace("\n\n", "\n\nThe seed's two commands run by a real MariaDB 10.11 on the local disk and "
                           "on the GlusterFS volume as set up, in repeats of their own after the model's "
                           f"(lab/experiment.d/realdb.py; commands under \"Exact commands\"). Its data is "
                           f"one table of {rows} sysbench rows, not the model's data file.\n\n", 1)


# ------------------------------------------------------------ the page


SEED000_ROWS = [("Mysql install db", "install", 2), ("Create table (one statement)", "create", 4),
                ("Drop table (one statement)", "drop", 4), ("Create table + 1000 recs", "rec-1k", 3),
                ("Create table + 10000 recs", "rec-10k", 3), ("Create table + 100K recs", "rec-100k", 3),
                ("sysbench oltp_read_write tx/s", "oltp-txps", 1)]
SEED000_TEXT = """The same operations by a real MariaDB 10.11 on the same targets, in the same repeats, right after the
model's jobs on each target (lab/experiment.d/realdb.py; the commands are under "Exact commands"). The
real server needs a directory: its CephFS is the ceph-fuse mount, and its figures stand for both CephFS
targets in the claim table's last column. Its 100K stage runs all 100000 INSERTs (the model runs a tenth
and counts 10×). Seconds; sysbench in tx/s."""


def seed000_page(ctx, targets):
    """seed 000's section: the model and the real server per operation and target."""
    t = [(n, lab) for n, (lab, _) in targets.items() if n not in sum(ALIAS.values(), ())]
    s = section(ctx, "The real MariaDB beside the model, " + reps(ctx), SEED000_ROWS, t)
    return s and s.replace("\n\n", "\n\n" + SEED000_TEXT + "\n\n", 1)


def seed001_page(ctx, conns, targets, labels):
    """seed 001's section: pgbench tx/s of the model and the real PostgreSQL."""
    s = section(ctx, "The real PostgreSQL 15 beside the model: pgbench tx/s, " + reps(ctx),
                [(f"{c} connections", f"tps-{c}", 0) for c in conns], [(t, labels[t]) for t in targets])
    return s and s.replace("\n\n", "\n\nThe same pgbench (tpcb) by a real PostgreSQL 15, tables and WAL where "
                           "the model put them, in the same repeats, right after the model's sweep on each target "
                           "(lab/experiment.d/realdb.py; commands under \"Exact commands\").\n\n", 1)


def reps(ctx):
    return f"median (min–max) of {ctx.reps} repeats" if ctx.reps > 1 else "one run"


def section(ctx, title, rows, targets, nd=3):
    """A Markdown table: one row per (label, metric), per target the model's
    median and the real server's, each with min–max; None when nothing real
    was measured."""
    tn = [t for t, _ in targets if any(ctx.m.get(key(f"{t}/{m}")) for _, m, _ in rows)]
    if not tn:
        return None
    head = ["operation"] + sum(([f"{lab}: model", f"{lab}: real server"] for t, lab in targets if t in tn), [])
    body = []
    for label, m, d in rows:
        r = [label]
        for t in tn:
            r += [cell(ctx, f"{t}/{m}", d if d is not None else nd), cell(ctx, key(f"{t}/{m}"),
                                                                        d if d is not None else nd)]
        body.append(r)
    return f"### {title}\n\n" + table(head, body)
