"""dbfio.servers - throwaway PostgreSQL 15 and MariaDB 10.11 servers for
lab/dbtrace, txncalib, ddlcalib and commitgap: create a data directory, start the server by hand on
127.0.0.1:<private port>, open SQL sessions, stop it and everything it
forked. Errors are raised as Fail with a one-line reason."""
import os
import pwd
import select
import signal
import socket
import statistics
import subprocess
import sys
import time

from dbfio.termination import run_child

PG_BIN = "/usr/lib/postgresql/15/bin"


def as_user(name):
    """subprocess arguments that run a child as user name, with its own
    groups only (root's group would otherwise decide directory access)."""
    pw = pwd.getpwnam(name)
    return {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}


class Fail(Exception):
    pass


def run(cmd, what, timeout, log=None, **kw):
    """Run a command to completion; Fail with its last output line."""
    try:   # its own session, stopped whole on a deadline or a signal (fio's job processes too)
        rc, out, _ = run_child(cmd, timeout, stderr=subprocess.STDOUT, **kw)
    except subprocess.TimeoutExpired:
        raise Fail("%s timed out after %ds" % (what, timeout))
    except OSError as e:
        raise Fail("%s: cannot run %s: %s" % (what, cmd[0], e.strerror))
    if log:
        with open(log, "a") as f:
            f.write("+ %s\n%s" % (" ".join(cmd), out))
    if rc != 0:
        lines = [ln for ln in out.splitlines() if ln.strip()]
        raise Fail("%s failed (exit %d): %s" % (what, rc, lines[-1] if lines else "no output"))
    return out


class PortTaken(Exception):
    """The server could not bind its port: another one took it first."""


def free_port(start=54329):
    for port in range(start, start + 200):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    raise Fail("no free TCP port in %d..%d" % (start, start + 199))


def children(pid):
    """Direct children of pid (scans /proc)."""
    kids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    st = f.read()
            except OSError:
                continue
            if int(st.rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(d))
    return kids


def descendants(pid):
    out, todo = [], [pid]
    while todo:
        for k in children(todo.pop()):
            out.append(k)
            todo.append(k)
    return out


def pin(pids, cpus):
    """Every thread of pids and of their descendants allowed on cpus (a set
    of CPU numbers) only; threads they start later inherit it. A thread
    that ends meanwhile is skipped."""
    for pid in list(pids) + [d for p in pids for d in descendants(p)]:
        try:
            tids = os.listdir("/proc/%d/task" % pid)
        except OSError:
            continue
        for tid in tids:
            try:
                os.sched_setaffinity(int(tid), cpus)
            except (ProcessLookupError, FileNotFoundError):
                pass


def starttime(pid):
    """The pid's start time (clock ticks since boot), None if it is gone or
    a zombie: (pid, starttime) names one process even when pids are reused."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] in "ZX" else int(fields[19])


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def strace_attach(pid, trace, calls, *flags):
    """strace -f -qq -y attached to the running process PID and every thread and
    child it has or makes, writing the calls CALLS ("openat,fdatasync") to the
    file TRACE (FLAGS: more of strace's options, "-ttt"); returns once strace
    is attached. strace_detach() ends it."""
    p = subprocess.Popen(["strace", "-f", "-qq", "-y", *flags, "-o", trace, "-p", str(pid),
                          "-e", "trace=" + calls])
    time.sleep(2)       # attached to every thread by then
    return p


def strace_detach(p):
    """End a strace_attach() (None: nothing to end): on SIGINT strace detaches
    and writes what it holds. A caller that wants the server's shutdown in the
    trace stops the server first."""
    if p:
        p.send_signal(signal.SIGINT)
        p.wait(30)


class Session:
    """One long-lived SQL client (psql / mariadb) fed on stdin. Each
    statement is followed by SELECT '<marker>'; its latency is the time until
    the marker comes back, less the median round trip of a marker alone."""

    def __init__(self, cmd, env=None):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, bufsize=0, env=env)
        self.n = 0
        self.overhead = 0.0
        self.buf = b""

    def _roundtrip(self, sql, timeout):
        self.n += 1
        mark = b"dbtrace-mark-%d" % self.n
        t = time.perf_counter()
        self.p.stdin.write(b"%s\nSELECT '%s';\n" % (sql.encode(), mark))
        deadline = time.monotonic() + timeout
        fd = self.p.stdout.fileno()
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                if line.strip() == mark:
                    return time.perf_counter() - t
            left = deadline - time.monotonic()
            if left <= 0:
                raise Fail("statement timed out after %ds: %s" % (timeout, sql[:60]))
            if select.select([fd], [], [], left)[0]:
                chunk = os.read(fd, 65536)
                if not chunk:
                    err = [ln for ln in self.p.stderr.read().decode(errors="replace").splitlines()
                           if ln.strip()]
                    raise Fail("SQL client ended at '%s': %s" % (sql[:60], err[-1] if err else "no message"))
                self.buf += chunk

    def calibrate(self, n=30):
        """Measure the marker's own round trip (client + network + parse)."""
        ts = [self._roundtrip("", 30) for _ in range(n)]
        self.overhead = statistics.median(ts[5:])
        return self.overhead

    def timed(self, sql, timeout=120):
        return max(self._roundtrip(sql + ";", timeout) - self.overhead, 0.0)

    def close(self, timeout=10):
        p, self.p = self.p, None
        if p is None:
            return
        try:
            p.stdin.close()
            p.wait(timeout)
        except (OSError, subprocess.TimeoutExpired):
            p.kill()
            p.wait()


class Server:
    """Common parts: the server process, its log, start/stop."""
    name = "?"

    def __init__(self, workdir, logdir, db_opts):
        # absolute: mariadb-install-db runs from another directory (a relative
        # --dir of dbtrace, txncalib, ddlcalib or commitgap failed in it)
        workdir = os.path.abspath(workdir)
        self.workdir, self.logdir, self.db_opts = workdir, logdir, db_opts
        self.datadir = os.path.join(workdir, "data")
        self.log = os.path.join(logdir, self.name + ".log")
        self.port = None
        self.proc = None
        self.known = {}         # pid -> start time of every server process seen, for the final sweep

    def _spawn(self, cmd, **kw):
        try:
            self.log_at = os.path.getsize(self.log)
        except OSError:
            self.log_at = 0
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True, **kw)
        self._remember([self.proc.pid])

    def _remember(self, pids):
        for p in pids:
            t = starttime(p)
            if t is not None:
                self.known.setdefault(p, t)

    def _survivors(self):
        return [p for p, t in self.known.items() if starttime(p) == t]

    def _start(self, first_port, cmd_kw):
        """Spawn on a free port and wait until this server answers. free_port's
        port can be taken by another server between the probe and the bind:
        then this one exits with "Address already in use" while the other one
        answers pings, so readiness also asks the server for its data directory,
        and a lost race is retried on a later port."""
        for attempt in range(5):
            self.port = free_port(first_port + 7 * attempt)
            self._spawn(self.start_command(), **cmd_kw)
            try:
                return self._wait_ready()
            except PortTaken:
                self.proc.wait()
        raise Fail("%s: every port tried was taken by another server: %s" % (self.name, self.last_log()))

    def _wait_ready(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                if "already in use" in self.log_since_spawn():
                    raise PortTaken()
                raise Fail("%s exited during start-up (exit %d): %s"
                           % (self.name, self.proc.returncode, self.last_log()))
            if self.ping() and self.is_mine():
                return
            time.sleep(0.2)
        raise Fail("%s not ready after %ds: %s" % (self.name, timeout, self.last_log()))

    def is_mine(self):
        """Does the server answering on self.port serve this datadir?"""
        try:
            there = self.reported_datadir()
        except Fail:
            return False
        return os.path.realpath(there.strip()) == os.path.realpath(self.datadir)

    def log_since_spawn(self):
        try:
            with open(self.log, errors="replace") as f:
                f.seek(getattr(self, "log_at", 0))
                return f.read()
        except OSError:
            return ""

    def last_log(self):
        """The last error the log names, else its last line."""
        try:
            lines = [ln for ln in open(self.log, errors="replace").read().splitlines() if ln.strip()]
        except OSError:
            lines = []
        errs = [ln for ln in lines if "Aborting" not in ln and any(w in ln for w in ("ERROR", "FATAL", "PANIC"))]
        return (errs or lines or ["(empty log)"])[-1]

    def children(self):
        kids = children(self.proc.pid)
        self._remember(kids)
        return kids

    def pids(self):
        """The pids strace attaches to (with -f: threads and later forks too)."""
        pids = [self.proc.pid] + [p for p in descendants(self.proc.pid) if not self.foreground(p)]
        self._remember(pids)
        return pids

    def stop_pid(self):
        """The pid the stop signal goes to: the spawned process, unless a
        wrapper (strace) runs the server as its child and would only pass
        the signal on by ending itself."""
        return self.proc.pid

    def stop(self, sig, timeout):
        """Stop the server and anything it forked; idempotent. Returns the
        pids still alive afterwards (none, unless even SIGKILL failed)."""
        if self.proc is not None:
            self._remember(descendants(self.proc.pid))
            if self.proc.poll() is None:
                try:
                    os.kill(self.stop_pid(), sig)
                except ProcessLookupError:
                    pass
                try:
                    self.proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    # said, not silent: a stop that waits out its timeout costs every run that much
                    sys.stderr.write("servers: %s (pid %d) did not end within %d s of signal %d: killed\n"
                                     % (self.name, self.proc.pid, timeout, sig))
                    self.proc.kill()
                    self.proc.wait()
            self.proc = None
        left = self._survivors()
        for p in left:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        if left:
            time.sleep(0.5)
        return self._survivors()


class Postgres(Server):
    name = "postgres"

    def version(self):
        return run([PG_BIN + "/postgres", "--version"], "postgres --version", 10).strip()

    def env(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env.update(PGHOST="127.0.0.1", PGPORT=str(self.port), PGUSER="postgres",
                   PGDATABASE="postgres", PGCONNECT_TIMEOUT="10")
        return env

    def setup_command(self):
        """initdb's command line: trust, superuser postgres, UTF8, locale C."""
        return [PG_BIN + "/initdb", "-D", self.datadir, "-A", "trust", "-U", "postgres",
                "-E", "UTF8", "--locale=C"]

    def setup(self):
        pw = pwd.getpwnam("postgres")
        os.chown(self.workdir, pw.pw_uid, pw.pw_gid)
        run(self.setup_command(), "initdb", 180, log=self.log, cwd=self.workdir, **as_user("postgres"))

    def start_command(self):
        """The postmaster's command line: 127.0.0.1:port, its socket in the
        data directory (none where that path is too long for a socket's
        name), fsync on, then every db_opts K=V as -c K=V."""
        sockdir = self.datadir if len(self.datadir) < 90 else ""
        cmd = [PG_BIN + "/postgres", "-D", self.datadir, "-c", "listen_addresses=127.0.0.1",
               "-c", "port=%d" % self.port, "-c", "unix_socket_directories=" + sockdir,
               "-c", "fsync=on"]
        for o in self.db_opts:
            cmd += ["-c", o]
        return cmd

    def start(self):
        self._start(54329, dict(cwd=self.workdir, **as_user("postgres")))

    def reported_datadir(self):
        return self.sql("SHOW data_directory", timeout=20)

    def ping(self):
        return subprocess.run([PG_BIN + "/pg_isready", "-q", "-t", "2"], env=self.env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0

    def sql(self, stmt, timeout=300):
        return run([PG_BIN + "/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", stmt],
                   "psql -c '%s'" % stmt[:40], timeout, env=self.env())

    def session(self):
        return Session([PG_BIN + "/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"],
                       env=self.env())

    def settle(self):
        """Start each run from the same state: no dirty buffers, a fresh
        checkpoint (so full-page writes start again)."""
        self.sql("CHECKPOINT")

    def foreground(self, pid):
        """Is this postmaster child a client backend (vs. a background process)?"""
        c = cmdline(pid)
        return "127.0.0.1(" in c or "[local]" in c

    def stop(self):
        return Server.stop(self, signal.SIGINT, 60)     # SIGINT = fast shutdown


class MariaDB(Server):
    name = "mariadb"

    def version(self):
        return run(["mariadbd", "--version"], "mariadbd --version", 10).strip()

    def _client(self):
        return ["mariadb", "--no-defaults", "-h", "127.0.0.1", "-P", str(self.port), "-u", "root",
                "--connect-timeout=10"]

    def sysbench_conn(self):
        """sysbench's options to reach this server's dbtrace database."""
        return ["--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=%d" % self.port,
                "--mysql-user=root", "--mysql-db=dbtrace"]

    def oltp_read_write(self, rows, *args):
        """sysbench oltp_read_write against this server: one table of ROWS
        rows, uniform keys, then ARGS."""
        return ["sysbench", "oltp_read_write"] + self.sysbench_conn() + [
            "--tables=1", "--table-size=%d" % rows, "--rand-type=uniform"] + list(args)

    def setup_command(self):
        """mariadb-install-db's command line: no option files read, no test database."""
        return ["mariadb-install-db", "--no-defaults", "--datadir=" + self.datadir, "--user=root",
                "--skip-test-db", "--skip-name-resolve"]

    def setup(self):
        run(self.setup_command(), "mariadb-install-db", 180, log=self.log, cwd=self.workdir)

    def start_command(self):
        """mariadbd's command line: no option files, 127.0.0.1:port, its socket
        and pid file in logdir, no grant tables, then every db_opts K=V as --K=V."""
        cmd = ["mariadbd", "--no-defaults", "--datadir=" + self.datadir, "--user=root",
               "--bind-address=127.0.0.1", "--port=%d" % self.port,
               "--socket=" + os.path.join(self.logdir, "mariadbd.sock"),
               "--pid-file=" + os.path.join(self.logdir, "mariadbd.pid"),
               "--skip-grant-tables", "--skip-name-resolve", "--log-error=" + self.log]
        return cmd + ["--" + o for o in self.db_opts]

    def start(self):
        self._start(54339, dict(cwd=self.workdir))
        self.sql("CREATE DATABASE IF NOT EXISTS dbtrace", db=None)     # (a restart finds it)

    def reported_datadir(self):
        return self.sql("SELECT @@datadir", timeout=20, db=None)

    def ping(self):
        return subprocess.run(self._client() + ["-e", "SELECT 1"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0

    def sql(self, stmt, timeout=300, db="dbtrace"):
        return run(self._client() + ["-N", "-B"] + (["-D", db] if db else []) + ["-e", stmt],
                   "mariadb -e '%s'" % stmt[:40], timeout)

    def session(self):
        return Session(self._client() + ["-N", "-B", "--unbuffered", "-D", "dbtrace"])

    def statuses(self, names):
        """Integers of SHOW GLOBAL STATUS, read in one query: {name: value}."""
        out = self.sql("SHOW GLOBAL STATUS WHERE Variable_name IN (%s)" % ",".join("'%s'" % k for k in names))
        got = dict(ln.split("\t", 1) for ln in out.strip().splitlines() if "\t" in ln)
        try:
            return {k: int(got[k]) for k in names}
        except (KeyError, ValueError):
            raise Fail("SHOW GLOBAL STATUS lacks %s: %r" % (", ".join(names), out.strip()[:80]))

    def status(self, name):
        """One integer of SHOW GLOBAL STATUS (e.g. Innodb_data_fsyncs)."""
        return self.statuses([name])[name]

    SETTLE = ("innodb_io_capacity", "innodb_io_capacity_max", "innodb_max_dirty_pages_pct")

    def settle(self, timeout=300):
        """Start each run from the same state, as PostgreSQL's CHECKPOINT does:
        no dirty page in the buffer pool (after sysbench prepare ~1600 of them,
        which the page cleaner otherwise writes during the next run at
        innodb_io_capacity, 200 pages/s: ~15 s). The page cleaner writes them
        all at a raised capacity (innodb_max_dirty_pages_pct=0), TIMEOUT s at
        most; the settings are put back."""
        old = self.sql("SELECT " + ", ".join("@@GLOBAL." + k for k in self.SETTLE)).split()
        self.sql("SET GLOBAL innodb_io_capacity_max = 100000, GLOBAL innodb_io_capacity = 100000, "
                 "GLOBAL innodb_max_dirty_pages_pct = 0")
        try:
            deadline = time.time() + timeout
            while self.status("Innodb_buffer_pool_pages_dirty") and time.time() < deadline:
                time.sleep(0.1)
        finally:
            self.sql("SET GLOBAL innodb_io_capacity = %s, GLOBAL innodb_io_capacity_max = %s, "
                     "GLOBAL innodb_max_dirty_pages_pct = %s" % tuple(old))

    def foreground(self, pid):
        return False    # threads are told apart in the trace (see stracemix.mix)

    def stop(self):
        return Server.stop(self, signal.SIGTERM, 120)


SERVERS = {"postgres": Postgres, "mariadb": MariaDB}
