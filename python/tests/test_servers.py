"""dbfio.servers without a database: the command lines it would run, its
client options, how it runs commands, reads a server's log, finds and stops
a process tree, and times statements over a client's stdin."""
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from dbfio import servers  # noqa: E402
from dbfio.servers import PG_BIN, Fail, MariaDB, Postgres  # noqa: E402


def test_postgres_commands(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    s = Postgres("w", str(tmp_path), ["shared_buffers=16MB", "wal_level=minimal"])
    d = str(tmp_path / "w" / "data")
    assert s.workdir == str(tmp_path / "w") and s.datadir == d      # absolute, whatever the cwd
    assert s.log == str(tmp_path / "postgres.log")
    assert s.setup_command() == [PG_BIN + "/initdb", "-D", d, "-A", "trust", "-U", "postgres",
                                 "-E", "UTF8", "--locale=C"]
    s.port = 54400
    assert s.start_command() == [
        PG_BIN + "/postgres", "-D", d, "-c", "listen_addresses=127.0.0.1", "-c", "port=54400",
        "-c", "unix_socket_directories=" + d, "-c", "fsync=on",
        "-c", "shared_buffers=16MB", "-c", "wal_level=minimal"]


def test_postgres_long_datadir(tmp_path):
    s = Postgres(str(tmp_path / ("x" * 90)), str(tmp_path), [])
    s.port = 1
    assert "unix_socket_directories=" in s.start_command()     # too long for a socket: TCP only


def test_postgres_env(tmp_path, monkeypatch):
    monkeypatch.setenv("PGPASSWORD", "secret")
    monkeypatch.setenv("PGDATA", "/elsewhere")
    s = Postgres(str(tmp_path), str(tmp_path), [])
    s.port = 54401
    env = s.env()
    assert "PGPASSWORD" not in env and "PGDATA" not in env and env["PATH"] == os.environ["PATH"]
    assert (env["PGHOST"], env["PGPORT"], env["PGUSER"], env["PGDATABASE"]) == \
        ("127.0.0.1", "54401", "postgres", "postgres")


def test_mariadb_commands(tmp_path):
    s = MariaDB(str(tmp_path / "w"), str(tmp_path / "l"), ["innodb_flush_log_at_trx_commit=2"])
    d, ld = str(tmp_path / "w" / "data"), str(tmp_path / "l")
    assert s.setup_command() == ["mariadb-install-db", "--no-defaults", "--datadir=" + d, "--user=root",
                                 "--skip-test-db", "--skip-name-resolve"]
    s.port = 54402
    assert s.start_command() == [
        "mariadbd", "--no-defaults", "--datadir=" + d, "--user=root", "--bind-address=127.0.0.1",
        "--port=54402", "--socket=" + ld + "/mariadbd.sock", "--pid-file=" + ld + "/mariadbd.pid",
        "--skip-grant-tables", "--skip-name-resolve", "--log-error=" + ld + "/mariadb.log",
        "--innodb_flush_log_at_trx_commit=2"]
    assert s._client() == ["mariadb", "--no-defaults", "-h", "127.0.0.1", "-P", "54402", "-u", "root",
                           "--connect-timeout=10"]
    assert s.oltp_read_write(1000, "--threads=2", "run") == [
        "sysbench", "oltp_read_write", "--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=54402",
        "--mysql-user=root", "--mysql-db=dbtrace", "--tables=1", "--table-size=1000", "--rand-type=uniform",
        "--threads=2", "run"]


def test_mariadb_statuses(tmp_path, monkeypatch):
    s = MariaDB(str(tmp_path), str(tmp_path), [])
    asked = []

    def sql(stmt, timeout=300, db="dbtrace"):
        asked.append(stmt)
        return "Innodb_data_fsyncs\t42\nInnodb_os_log_written\t8192\n"
    monkeypatch.setattr(s, "sql", sql)
    assert s.statuses(["Innodb_data_fsyncs", "Innodb_os_log_written"]) == \
        {"Innodb_data_fsyncs": 42, "Innodb_os_log_written": 8192}
    assert asked == ["SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_data_fsyncs','Innodb_os_log_written')"]
    assert s.status("Innodb_data_fsyncs") == 42
    with pytest.raises(Fail, match="lacks Innodb_buffer_pool_pages_dirty"):
        s.status("Innodb_buffer_pool_pages_dirty")


def test_run(tmp_path):
    log = tmp_path / "x.log"
    assert servers.run(["sh", "-c", "echo hello"], "hello", 10, log=str(log)) == "hello\n"
    assert log.read_text() == "+ sh -c echo hello\nhello\n"
    with pytest.raises(Fail, match=r"^thing failed \(exit 3\): last line$"):
        servers.run(["sh", "-c", "echo first; echo last line; echo; exit 3"], "thing", 10)
    with pytest.raises(Fail, match=r"^quiet failed \(exit 1\): no output$"):
        servers.run(["false"], "quiet", 10)
    with pytest.raises(Fail, match="^missing: cannot run /nonexistent/initdb: No such file"):
        servers.run(["/nonexistent/initdb"], "missing", 10)
    with pytest.raises(Fail, match=r"^slow timed out after 1s$"):
        servers.run(["sleep", "5"], "slow", 1)


def test_last_log(tmp_path):
    s = MariaDB(str(tmp_path), str(tmp_path), [])
    assert s.last_log() == "(empty log)"                        # no file yet
    with open(s.log, "w") as f:
        f.write("starting\n[ERROR] InnoDB: cannot open ib_logfile0\n[ERROR] Aborting\nshutdown complete\n\n")
    assert s.last_log() == "[ERROR] InnoDB: cannot open ib_logfile0"      # the error, not "Aborting"
    with open(s.log, "w") as f:
        f.write("ready\nshutdown complete\n")
    assert s.last_log() == "shutdown complete"


def test_free_port():
    p = servers.free_port(55100)
    with socket.socket() as s:
        s.bind(("127.0.0.1", p))
        q = servers.free_port(p)
        assert q != p and p < q < p + 200


def wait_for(fn, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_process_tree():
    p = subprocess.Popen(["sh", "-c", "sleep 30 & wait"])
    try:
        kids = wait_for(lambda: servers.descendants(p.pid))
        assert servers.children(p.pid) == kids and len(kids) == 1
        assert servers.cmdline(kids[0]) == "sleep 30"
        assert isinstance(servers.starttime(kids[0]), int)
        os.kill(kids[0], signal.SIGKILL)
        p.wait(10)
        assert servers.starttime(p.pid) is None and servers.cmdline(p.pid) == ""
    finally:
        p.kill()
        p.wait()


def test_stop_sweeps_what_it_forked(tmp_path):
    """A server's stop() signals it, then kills what it forked that outlived
    it (here a child the shell leaves behind on SIGTERM)."""
    s = servers.Server(str(tmp_path), str(tmp_path), [])
    s._spawn(["sh", "-c", "sleep 60 & sleep 60 & wait"])
    kids = wait_for(lambda: [k for k in [servers.descendants(s.proc.pid)] if len(k) == 2])[0]
    pids = [s.proc.pid] + kids
    try:
        assert s.stop(signal.SIGTERM, 10) == [] and s.proc is None
        assert all(servers.starttime(p) is None for p in pids)
        assert s.stop(signal.SIGTERM, 10) == []                 # idempotent
    finally:
        for p in kids:                                          # what a broken stop() left
            if servers.starttime(p) is not None:
                os.kill(p, signal.SIGKILL)


# a SQL client that answers every SELECT 'marker'; with the marker's line
# (what psql -A -t and mariadb -N -B print), and dies at a statement "quit"
ECHO = """import sys
for line in sys.stdin:
    if line.startswith("quit"):
        sys.exit(1)
    if line.startswith("SELECT '"):
        print(line.split("'")[1], flush=True)
"""


def test_session():
    s = servers.Session([sys.executable, "-c", ECHO])
    try:
        assert s.calibrate(10) >= 0
        assert s.timed("UPDATE t SET v = v + 1") >= 0
        assert s.n == 11
        with pytest.raises(Fail, match="^SQL client ended at 'quit"):
            s.timed("quit")
    finally:
        s.close()
    s.close()


def test_session_timeout():
    s = servers.Session(["cat"])            # echoes "SELECT '...';", never the marker alone
    try:
        with pytest.raises(Fail, match="^statement timed out after 1s: COMMIT"):
            s._roundtrip("COMMIT", 1)
    finally:
        s.close()


def allowed(tid_dir):
    """The kernel's Cpus_allowed_list of one thread (/proc/PID/task/TID/status)."""
    with open(os.path.join(tid_dir, "status")) as f:
        return next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("Cpus_allowed_list"))


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to tell a pin from none")
def test_pin_every_thread_and_child():
    # a process with a second thread, and a child of it: all of them pinned,
    # a thread started after the pin too; then given every CPU back
    prog = ("import os, subprocess, threading, time, sys\n"
            "threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n"
            "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
            "print(c.pid, flush=True)\n"
            "sys.stdin.readline()\n"
            "threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n"
            "print('late', flush=True)\n"
            "sys.stdin.readline()\n"
            "c.kill()\n")
    p = subprocess.Popen([sys.executable, "-c", prog], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        child = int(p.stdout.readline())
        every = os.sched_getaffinity(0)
        servers.pin([p.pid], {0})
        p.stdin.write("\n")
        p.stdin.flush()
        assert p.stdout.readline().strip() == "late"
        tasks = [f"/proc/{pid}/task/{t}" for pid in (p.pid, child) for t in os.listdir(f"/proc/{pid}/task")]
        assert len(tasks) >= 4
        assert {allowed(t) for t in tasks} == {"0"}
        servers.pin([p.pid], every)
        assert {allowed(t) for t in tasks} == {allowed("/proc/self/task/%d" % os.getpid())}
    finally:
        p.kill()
        p.wait()
