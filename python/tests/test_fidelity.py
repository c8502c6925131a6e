"""dbfio.fidelity: the verdict rule at its boundaries, the calibration a profile records,
the in-sample test."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from dbfio import fidelity  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize("gap,spread,ok,tol,text", [
    (0.0, None, True, 0.15, "yes"),
    (0.15, None, True, 0.15, "yes"),              # the limit itself is within
    (-0.15, 0.05, True, 0.15, "yes"),
    (0.1501, None, False, 0.15, "**no**"),
    (-0.16, 0.15, False, 0.15, "**no**"),        # a spread of exactly 15 % does not widen
    (0.16, 0.1501, True, 0.25, "yes (spread > 15%)"),
    (0.25, 0.40, True, 0.25, "yes (spread > 15%)"),
    (-0.2501, 0.40, False, 0.25, "**no**"),
    (0.30, 0.81, False, 0.25, "**no**"),          # the old rule let an 81 % spread admit 81 %
    (0.10, 0.81, True, 0.25, "yes"),
])
def test_within(gap, spread, ok, tol, text):
    assert fidelity.within(gap, spread) == (ok, tol, text)


def test_tolerance_never_the_spread():
    for sp in (None, 0.0, 0.15, 0.16, 0.5, 2.0):
        assert fidelity.tolerance(sp) in (0.15, 0.25)


def test_calibration_of_the_shipped_profiles():
    pg = fidelity.calibration(open(os.path.join(REPO, "jobs/txn-profiles/postgres15.fio")).read())
    assert pg["bench"] == "pgbench" and pg["size"] == 5 and pg["clients"] == 1
    assert pg["dir"] and pg["dir"].startswith("/") and pg["host"]
    my = fidelity.calibration(open(os.path.join(REPO, "jobs/txn-profiles/mariadb1011.fio")).read())
    assert my["bench"] == "sysbench" and my["size"] == 100000 and my["clients"] == 1


def test_calibration_unknown():
    c = fidelity.calibration("; a profile without a header\nrtt=0us\n")
    assert c == {"host": None, "dir": None, "bench": None, "size": None, "clients": None}


def test_in_sample(tmp_path):
    a, b = tmp_path / "calib", tmp_path / "target"
    b.mkdir()
    cal = {"dir": str(a / "not-yet"), "bench": "pgbench", "size": 5}
    # the same filesystem (the calibration directory need not exist), workload, defaults
    assert fidelity.in_sample(cal, str(b), "pgbench", 5)
    assert not fidelity.in_sample(cal, str(b), "pgbench", 50)
    assert not fidelity.in_sample(cal, str(b), "sysbench", 5)
    assert not fidelity.in_sample(cal, str(b), "pgbench", 5, ("shared_buffers=16MB",))
    assert not fidelity.in_sample(dict(cal, dir=None), str(b), "pgbench", 5)
    if os.stat("/dev/shm").st_dev != os.stat(str(b)).st_dev:
        assert not fidelity.in_sample(cal, "/dev/shm", "pgbench", 5)


def test_share_within():
    assert fidelity.share_within([(True, False), (False, False), (False, True), (True, True)]) == (1, 2)
    assert fidelity.share_within([]) == (0, 0)
