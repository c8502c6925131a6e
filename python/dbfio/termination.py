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
import signal
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
