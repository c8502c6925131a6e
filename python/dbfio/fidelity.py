"""How results/fidelity.md judges a row, and which rows are in sample.

One rule for every row with a verdict (lab/fidelity, docs/fidelity.md): a row
is within when |gap| <= 15 %, or <= 25 % where the real database's own
round-to-round spread exceeds 15 %. A noisy target earns more rounds, never a
tolerance as wide as its noise: the spread only decides between the two fixed
limits.

A row is in sample when it measures the workload the profile was calibrated
on, on the filesystem it was calibrated on: the profile's header
(jobs/txn-profiles/*.fio, written by lab/txncalib) names both. Such rows are
printed with their verdict but left out of the share of out-of-sample rows
within, which is what the page claims.
"""
import os
import re

TOL = 0.15              # |gap| a row must stay within
WIDE_TOL = 0.25         # ... where the real spread exceeds NOISY
NOISY = 0.15            # the real round-to-round spread above which WIDE_TOL applies
WANTED_SHARE = 0.80     # the out-of-sample rows within that the page asks for


def tolerance(spread):
    """The limit on |gap| for a row whose real spread is SPREAD (None: one round)."""
    return WIDE_TOL if spread is not None and spread > NOISY else TOL


def within(gap, spread):
    """-> (ok, tolerance, text) for a row's GAP given the real SPREAD."""
    lim = tolerance(spread)
    ok = abs(gap) <= lim + 1e-12        # a gap printed as 15 % is within 15 %
    if not ok:
        return False, lim, "**no**"
    return True, lim, "yes (spread > %d%%)" % round(100 * NOISY) if abs(gap) > TOL + 1e-12 else "yes"


def calibration(text):
    """What a txn profile's header records of its calibration: {"host", "dir",
    "bench", "size", "clients"} (a key is None where the header does not say)."""
    def grab(rx):
        m = re.search(rx, text, re.M)
        return m.group(1) if m else None
    out = {"host": grab(r"^; on (\S+?),"), "dir": grab(r"--dir (\S+)"), "bench": None, "size": None,
           "clients": None}
    m = re.search(r"^; pgbench -c (\d+) .*?scale (\d+)", text, re.M)
    if m:
        out.update(bench="pgbench", clients=int(m.group(1)), size=int(m.group(2)))
    m = re.search(r"^; sysbench oltp_read_write .*?--threads=(\d+).*?--table-size=(\d+)", text, re.M)
    if m:
        out.update(bench="sysbench", clients=int(m.group(1)), size=int(m.group(2)))
    return out


def filesystem(path):
    """st_dev of PATH's nearest existing ancestor (None if nothing is)."""
    p = os.path.abspath(path)
    while True:
        try:
            return os.stat(p).st_dev
        except OSError:
            if p == "/":
                return None
            p = os.path.dirname(p)


def in_sample(cal, target, bench, size, server_opts=()):
    """Does a row of BENCH at SIZE (pgbench scale, sysbench rows) with the
    server's defaults but SERVER_OPTS, on TARGET, share the calibration CAL's
    target and workload? Any client count: the profile's CPU serves them all."""
    if not cal or not cal.get("dir") or cal.get("bench") != bench or cal.get("size") != size or server_opts:
        return False
    fs = filesystem(target)
    return fs is not None and fs == filesystem(cal["dir"])


def share_within(verdicts):
    """VERDICTS: [(ok, in_sample)] -> (within, counted) over the out-of-sample rows."""
    out = [ok for ok, ins in verdicts if not ins]
    return sum(1 for ok in out if ok), len(out)
