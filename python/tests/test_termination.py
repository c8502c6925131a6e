"""dbfio.termination: a SIGTERM or SIGHUP runs the program's finally blocks."""
import os
import signal
import subprocess
import sys
import time

import pytest

PYTHON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PROGRAM = """
import sys, time
sys.path.insert(0, %r)
from dbfio.termination import exit_on_signals
if sys.argv[2] == "on":
    exit_on_signals()
try:
    open(sys.argv[1] + ".started", "w").close()
    time.sleep(60)
finally:
    import subprocess
    status = subprocess.run(["cat", "/proc/self/status"], capture_output=True, text=True).stdout
    ign = int([x for x in status.splitlines() if x.startswith("SigIgn:")][0].split()[1], 16)
    open(sys.argv[1], "w").write("undone %%d" %% ign)
"""


def killed(tmp_path, sig, mode):
    mark = str(tmp_path / "mark")
    p = subprocess.Popen([sys.executable, "-c", PROGRAM % PYTHON, mark, mode])
    for _ in range(500):
        if os.path.exists(mark + ".started"):
            break
        time.sleep(0.01)
    p.send_signal(sig)
    rc = p.wait(timeout=20)
    return rc, os.path.exists(mark) and open(mark).read()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_signal_runs_finally(tmp_path, sig):
    rc, undone = killed(tmp_path, sig, "on")
    assert undone, "the finally block did not run"
    assert rc == 128 + sig
    ignored = int(undone.split()[1])
    assert not ignored & (1 << (signal.SIGTERM - 1)), "a program the clean-up starts ignores SIGTERM"


def test_default_skips_finally(tmp_path):
    """The oracle's own check: without it, Python's default ends the process at once."""
    rc, undone = killed(tmp_path, signal.SIGTERM, "off")
    assert not undone and rc == -signal.SIGTERM


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("how", ["deadline", "signal"])
def test_run_child_stops_the_whole_session(tmp_path, how):
    """A child that forked (a shell's background job, fio's job processes) is
    stopped with everything it forked, at the deadline and when the tool itself
    is stopped; the oracle is /proc, by the pids the children wrote."""
    sys.path.insert(0, PYTHON)
    from dbfio.termination import run_child
    pids = tmp_path / "pids"
    # the grandchild ignores SIGTERM: only the SIGKILL to the session ends it
    cmd = "(trap '' TERM; sleep 100) & echo $! > %s; echo $$ >> %s; wait" % (pids, pids)
    if how == "deadline":
        t = time.monotonic()
        with pytest.raises(subprocess.TimeoutExpired):
            run_child(cmd, timeout=1, grace=1, shell=True)
    else:
        def interrupt(_signum, _frame):
            raise SystemExit(143)
        old = signal.signal(signal.SIGALRM, interrupt)
        signal.alarm(1)
        t = time.monotonic()
        try:
            with pytest.raises(SystemExit):
                run_child(cmd, grace=1, shell=True)
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
    assert time.monotonic() - t < 15
    got = [int(x) for x in pids.read_text().split()]
    assert len(got) == 2, got
    # killed ones close their pipes (communicate returns) a moment before they are gone
    for _ in range(50):
        if not any(alive(p) for p in got):
            break
        time.sleep(0.1)
    assert not any(alive(p) for p in got), got
