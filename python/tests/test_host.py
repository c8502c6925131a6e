"""dbfio.host: the wake-up round trip and the idle vCPUs' wait, read without a database."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from dbfio import host  # noqa: E402


def test_wakeup_us():
    us = host.wakeup_us(rounds=3, n=50)
    assert isinstance(us, float) and 0 < us < 1e6


def test_busy_refusal():
    assert host.busy_refusal(30.0, 30, "now") is None
    line = host.busy_refusal(31.4, 30, "after the runs")
    assert line.startswith("the host is busy after the runs: a wake-up round trip between two "
                           "processes took 31 us (--max-wakeup-us 30;")
    assert "\n" not in line


def halt_poll(monkeypatch, tmp_path, text):
    p = tmp_path / "guest_halt_poll_ns"
    if text is not None:
        p.write_text(text)
    monkeypatch.setattr(host, "HALT_POLL", str(p))
    return host.idle_poll()


def test_idle_poll(monkeypatch, tmp_path):
    assert halt_poll(monkeypatch, tmp_path, "0\n") == "guest_halt_poll_ns=0 (idle vCPUs halt at once)"
    assert halt_poll(monkeypatch, tmp_path, "200000\n") == \
        "guest_halt_poll_ns=200000 (idle vCPUs poll up to 200 us before halting)"
    assert halt_poll(monkeypatch, tmp_path, "1000000") == \
        "guest_halt_poll_ns=1000000 (idle vCPUs poll up to 1000 us before halting)"


def test_idle_poll_none(monkeypatch, tmp_path):
    assert halt_poll(monkeypatch, tmp_path, None) == "no cpuidle-haltpoll"       # no module
    assert halt_poll(monkeypatch, tmp_path, "lots\n") == "no cpuidle-haltpoll"   # unreadable


def test_recorded_idle_poll():
    header = ("; txncalib: mariadb, 2026-12-04\n"
              "; guest_halt_poll_ns=1000000 (idle vCPUs poll up to 1000 us before halting)\n"
              "rtt=120us\n")
    assert host.recorded_idle_poll(header) == "guest_halt_poll_ns=1000000"
    assert host.recorded_idle_poll("; no cpuidle-haltpoll\n") == "no cpuidle-haltpoll"
    assert host.recorded_idle_poll("rtt=1us ; guest_halt_poll_ns=5\n") is None     # not a comment line's start
    assert host.recorded_idle_poll("") is None


def test_recorded_reads_back_idle_poll(monkeypatch, tmp_path):
    for text in ("0", "200000", None):
        now = halt_poll(monkeypatch, tmp_path, text)
        assert now.startswith(host.recorded_idle_poll("; %s\n" % now))
