"""A lab tool killed with SIGTERM or SIGHUP cleans up as it does on a failure.

Python's default for SIGTERM ends the process at once, so no `finally` runs:
a lab tool stopped that way (a session's time limit, `kill`, a closed
terminal) left its database servers running, its loop devices mounted and
throttled for everyone, the cluster it started up. exit_on_signals() makes
either signal raise SystemExit(128 + signal) where the program is, so the
same `finally` blocks that undo a failure undo a kill. A second signal
during that clean-up is caught and dropped (SIGKILL still ends it): by a
handler, not SIG_IGN, which every program the clean-up starts (tools/cluster
down, its `timeout`s) would inherit across exec and so ignore the SIGTERM
that bounds it.
"""
import os
import signal
import subprocess
import sys

SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _dropped(_signum, _frame):
    pass


def _exit(signum, _frame):
    for s in SIGNALS:
        signal.signal(s, _dropped)
    sys.exit(128 + signum)


def exit_on_signals():
    for s in SIGNALS:
        signal.signal(s, _exit)


def run_child(cmd, timeout=None, grace=30, **kw):
    """Run cmd in a session of its own and wait: -> (returncode, stdout,
    stderr), text. Its own session, so a terminal's signals do not reach it
    past the tool; in exchange the tool must stop it: on any exception while
    waiting (a signal turned SystemExit above, ^C, the deadline: then
    subprocess.TimeoutExpired) stop_child() ends the whole session first, so
    nothing it started (fio's job processes, a shell's children) outlives the
    tool or writes into what the tool's clean-up removes."""
    opts = dict(stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    opts.update(kw)     # e.g. stderr=subprocess.STDOUT: then stderr comes back None
    p = subprocess.Popen(cmd, start_new_session=True, **opts)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except BaseException:
        stop_child(p, grace)
        raise


def stop_child(p, grace=30):
    """SIGTERM to P's session (fio and dbtrace clean up on it), SIGKILL to it
    GRACE s later; waits at most GRACE + 5 s (a process stuck in the kernel
    is left)."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
        try:
            p.communicate(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            pass
