"""stracemix - trace database server processes with strace and turn the
trace into a per-operation syscall mix by file role.

Used by lab/dbtrace and lab/fidelity. One strace output file per thread
(-ff), so no call is split into <unfinished ...> / <... resumed> halves
except around signals, which dbfio.strace (python/dbfio) still joins.
"""
import os
import re
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "python"))
from dbfio import strace  # noqa: E402

# The calls traced: what touches files, their names, sizes and durability.
# truncate is how PostgreSQL 15.18 empties a dropped relation; getdents64
# and access are how it scans and probes directories.
CALLS = ("openat,open,close,read,pread64,preadv,preadv2,write,pwrite64,pwritev,pwritev2,"
         "fsync,fdatasync,sync_file_range,fadvise64,unlink,unlinkat,rename,renameat,renameat2,"
         "mkdir,mkdirat,rmdir,truncate,ftruncate,fallocate,lseek,fstat,newfstatat,statx,access,"
         "faccessat,faccessat2,"
         "getdents64,io_submit,io_getevents,io_uring_enter")
WRITES = ("write", "pwrite64", "pwritev", "pwritev2")
READS = ("read", "pread64", "preadv", "preadv2")
SYNCS = ("fsync", "fdatasync", "sync_file_range")
FD_CALLS = set(WRITES + READS + SYNCS + ("close", "ftruncate", "fallocate", "fstat", "lseek",
                                         "fadvise64", "getdents64", "io_uring_enter"))
PATH_CALLS = ("unlink", "rename", "mkdir", "rmdir", "truncate", "access")

# ---------------------------------------------------------------- file roles

PG_RELFILE = re.compile(r"^\d+(_(fsm|vm|init))?(\.\d+)?$")
PG_SLRU = ("pg_xact", "pg_multixact", "pg_subtrans", "pg_commit_ts", "pg_serial", "pg_notify")


def role_postgres(rel):
    """A path relative to PGDATA -> wal, data (relation files only), clog
    (the SLRUs), other (pg_internal.init, pg_filenode.map, pg_stat, ...)."""
    top = rel.split("/", 1)[0]
    if top == "pg_wal":
        return "wal"
    if top in ("base", "global"):
        return "data" if PG_RELFILE.match(os.path.basename(rel)) else "other"
    if top in PG_SLRU:
        return "clog"
    return "other"


def role_mariadb(rel):
    """A path relative to the datadir -> redo, data, frm, ddl_log, other."""
    b = os.path.basename(rel)
    if b.startswith("ib_logfile"):
        return "redo"
    if b.endswith(".ibd") or b.startswith(("ibdata", "undo")) or b == "ibtmp1":
        return "data"
    if b.endswith(".frm"):
        return "frm"
    if b == "ddl_recovery.log":
        return "ddl_log"
    return "other"


class Classifier:
    """Maps the paths strace -y shows to a role. Paths outside the data
    directory are `other`, sockets/pipes/eventfds `ipc`, and io_uring rings
    and io_getevents `async` (strace cannot see which file such I/O hits)."""

    def __init__(self, datadir, rule, logdir=None):
        self.datadir = os.path.realpath(datadir)
        self.logdir = os.path.realpath(logdir) + "/" if logdir else None
        self.rule = rule
        self.isdir = {}

    def role(self, path, is_dir=False):
        if not path:
            return "other"
        if self.logdir and path.startswith(self.logdir):
            return "other"     # the server's own log
        if path.startswith("anon_inode:[io_uring]"):
            return "async"
        if path.startswith(("socket:", "pipe:", "anon_inode:", "/dev/")):
            return "ipc"
        if not path.startswith("/"):
            path = os.path.join(self.datadir, path)
        path = os.path.normpath(path)
        if path != self.datadir and not path.startswith(self.datadir + "/"):
            return "other"
        if is_dir or self._isdir(path):
            return "directory"
        return self.rule(os.path.relpath(path, self.datadir))

    def _isdir(self, path):
        if path not in self.isdir:
            self.isdir[path] = os.path.isdir(path)
        return self.isdir[path]

# ---------------------------------------------------------------- parsing
# A call's descriptors (-y's fd<path>), strings and arguments are read with
# dbfio.strace's grammar (Call.fd, Call.strings, Call.argv); what is left here
# is what io_submit's iocbs say, inside one argument.

AIOFD = re.compile(r"aio_fildes=\d+<(?P<path>[^>]*)>")
AIOWRITE = re.compile(r"aio_lio_opcode=IOCB_CMD_PWRITEV?, .*?aio_nbytes=(\d+)")


def _join(base, p):
    if p.startswith("/") or base is None:
        return p
    return os.path.join(base, p)


def _ret(c):
    """The call's result, -1 for strace's '?'."""
    return -1 if c.ret is None else c.ret


OPEN_FLAGS = ("O_CREAT", "O_EXCL", "O_TRUNC", "O_DIRECT", "O_DSYNC", "O_SYNC", "O_APPEND")


PROC_FD = re.compile(r"^/proc/self/fd/(\d+)/(.*)$")


def decode(c, cwd, fds=None):
    """One traced call (a dbfio.strace.Call) -> (name, path, is_dir, size,
    flags). name is the call, except lseek(SEEK_END) -> lseek_end (a size
    probe) and open/openat with O_CREAT -> <call>_creat. size is the byte
    count of reads and writes; flags the notable open flags (O_DSYNC files
    sync on write). fds: the thread's descriptors seen so far (-y), for a
    name under /proc/self/fd/N/ (dbfio's truncate by name through its
    directory's descriptor)."""
    call, args, ret = c.call, c.args, _ret(c)
    size = None
    flags = ()
    is_dir = False
    name = call
    if call in FD_CALLS:
        path = c.path
        if call == "lseek" and "SEEK_END" in args:
            name = "lseek_end"
        if (call in WRITES or call in READS) and ret >= 0:
            size = ret
    elif call in ("openat", "open"):
        s = c.strings()
        base = c.path if call == "openat" else cwd
        path = c.rpath if (ret >= 0 and c.rpath) else _join(base, s[0] if s else "")
        if "O_CREAT" in args:
            name = call + "_creat"
        is_dir = "O_DIRECTORY" in args
        i = 2 if call == "openat" else 1       # the flags follow the file's name
        if ret >= 0 and len(c.argv) > i and c.argv[i].startswith("O_"):
            flags = [f for f in OPEN_FLAGS if f in c.argv[i].split("|")]
    elif call in ("newfstatat", "statx"):
        s = c.strings()
        base = c.path
        path = base if (s and s[0] == "") else _join(base, s[0] if s else "")
    elif call in ("unlinkat", "mkdirat", "renameat", "renameat2", "faccessat", "faccessat2"):
        s = c.strings()
        path = _join(c.path, s[0] if s else "")
        is_dir = call == "mkdirat" or "AT_REMOVEDIR" in args
        if call.startswith("faccessat"):
            name = "access"     # access(2) relative to a directory: the same probe
    elif call in PATH_CALLS:
        s = c.strings()
        path = _join(cwd, s[0] if s else "")
        m = PROC_FD.match(path)
        if m and fds and int(m.group(1)) in fds:
            path = os.path.join(fds[int(m.group(1))], m.group(2))
        is_dir = call in ("mkdir", "rmdir")
    elif call == "io_submit":
        m = AIOFD.search(args)
        path = m.group("path") if m else "anon_inode:[io_uring]"
        ws = [int(n) for n in AIOWRITE.findall(args)]
        size = sum(ws) if ws else None
    elif call == "io_getevents":
        path = "anon_inode:[io_uring]"
    else:
        path = None
    return name, path, is_dir, size, flags


def parse(fname):
    """The finished calls (dbfio.strace.Call) of one strace -ff -ttt file,
    split ones joined."""
    for c in strace.calls(fname):
        if c.finished and c.ts is not None:
            yield c

# ---------------------------------------------------------------- mix


def size_bucket(n):
    """The smallest power of two >= n (at least 512): a histogram key."""
    b = 512
    while b < n:
        b *= 2
    return b


class Phase:
    """A window of the run [t0, t1) and the number of operations in it."""

    def __init__(self, name, t0, t1, ops):
        self.name, self.t0, self.t1, self.ops = name, t0, t1, ops
        self.calls = {}     # (role, name) -> [count, fg count, seconds]
        self.sizes = {}     # (role, "writes"|"reads") -> [count, bytes, {bucket: n}]
        self.flags = {}     # (role, flag) -> successful opens with it

    def add(self, role, name, size, dur, fg, failed, flags):
        for f in flags:
            self.flags[(role, f)] = self.flags.get((role, f), 0) + 1
        c = self.calls.setdefault((role, name), [0, 0, 0.0, 0, []])
        c[0] += 1
        c[1] += fg
        c[2] += dur
        c[3] += failed
        c[4].append(dur)
        if size is not None:
            kind = "reads" if name in READS else "writes"
            s = self.sizes.setdefault((role, kind), [0, 0, {}])
            s[0] += 1
            s[1] += size
            s[2][size_bucket(size)] = s[2].get(size_bucket(size), 0) + 1

    def summary(self):
        ops = max(self.ops, 1)
        roles, calls = {}, {}
        for (role, name), (n, fg, t, failed, durs) in sorted(self.calls.items()):
            r = roles.setdefault(role, {"calls": {}, "syncs_per_op": 0.0})
            r["calls"][name] = {"count": n, "per_op": round(n / ops, 4), "fg_per_op": round(fg / ops, 4),
                                "failed": failed, "time_s": round(t, 6),
                                "median_us": round(statistics.median(durs) * 1e6, 1)}
            if name in SYNCS:
                r["syncs_per_op"] = round(r["syncs_per_op"] + n / ops, 4)
            a = calls.setdefault(name, {"count": 0, "time_s": 0.0})
            a["count"] += n
            a["time_s"] += t
        for (role, kind), (n, b, hist) in self.sizes.items():
            roles[role][kind] = {"count": n, "per_op": round(n / ops, 4), "bytes_per_op": round(b / ops, 1),
                                 "mean_bytes": round(b / n, 1) if n else 0,
                                 "hist": {str(k): hist[k] for k in sorted(hist)}}
        for (role, f), n in sorted(self.flags.items()):
            roles[role].setdefault("open_flags", {})[f] = n
        for a in calls.values():
            a["per_op"] = round(a["count"] / ops, 4)
            a["time_per_op_us"] = round(a["time_s"] / ops * 1e6, 2)
            a["time_s"] = round(a["time_s"], 6)
        return {"ops": self.ops, "seconds": round(self.t1 - self.t0, 3),
                "roles": roles, "calls": calls}


def mix(files, phases, classifier, fg_tids=(), socket_close_is_fg=False):
    """Aggregate strace -ff files into the phases. A thread is foreground
    (it serves the client) when its tid is in fg_tids, or, with
    socket_close_is_fg, when it closes a socket (a MariaDB connection thread
    closing the client's connection)."""
    stats = {"files": 0, "lines": 0}
    for fname in files:
        tid = int(fname.rsplit(".", 1)[1])
        events, fg, fds = [], tid in fg_tids, {}
        for c in parse(fname):
            stats["lines"] += 1
            fd, fpath = c.fd(0)
            if fd is not None and fpath:
                fds[fd] = fpath
            if socket_close_is_fg and c.call == "close" and "<socket:" in c.args:
                fg = True
            ph = next((p for p in phases if p.t0 <= c.ts < p.t1), None)
            if ph is None:
                continue
            name, path, is_dir, size, flags = decode(c, classifier.datadir, fds)
            events.append((ph, classifier.role(path, is_dir), name, size, c.dur or 0.0, int(_ret(c) < 0), flags))
        stats["files"] += 1
        for ph, role, name, size, dur, failed, flags in events:
            ph.add(role, name, size, dur, int(fg), failed, flags)
    return stats

# ---------------------------------------------------------------- strace


class Tracer:
    """strace -f -ff attached to running pids; start() returns once every
    pid is attached, stop() detaches (SIGINT) and waits."""

    def __init__(self, pids, outdir):
        self.pids, self.outdir = pids, outdir
        self.prefix = os.path.join(outdir, "trace")
        self.errlog = os.path.join(outdir, "strace.err")
        self.proc = None

    def command(self):
        cmd = ["strace", "-f", "-ff", "-y", "-ttt", "-T", "-o", self.prefix, "-e", "trace=" + CALLS]
        for p in self.pids:
            cmd += ["-p", str(p)]
        return cmd

    def start(self, timeout=20):
        with open(self.errlog, "w") as err:
            self.proc = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL, stderr=err,
                                         start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("strace exited at once: " + self._last_err())
            with open(self.errlog) as f:
                err = f.read()
            # a pid that exited meanwhile (a backend finishing) is not waited for
            done = len(re.findall(r"Process \d+ attached", err)) + err.count("): No such process")
            if done >= len(self.pids):
                return
            time.sleep(0.05)
        raise RuntimeError("strace did not attach to %d processes in %ds: %s"
                           % (len(self.pids), timeout, self._last_err()))

    def stop(self, timeout=20):
        """Idempotent; returns True when strace exited by itself after SIGINT."""
        p, self.proc = self.proc, None
        if p is None or p.poll() is not None:
            return True
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout)
            return True
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            return False

    def files(self):
        pre = os.path.basename(self.prefix) + "."
        return sorted(os.path.join(self.outdir, f) for f in os.listdir(self.outdir)
                      if f.startswith(pre) and f[len(pre):].isdigit())

    def _last_err(self):
        try:
            lines = [ln for ln in open(self.errlog).read().splitlines() if ln.strip()]
        except OSError:
            lines = []
        return lines[-1] if lines else "(no message)"
