"""dbfio.host - how busy the host is, as a wake-up costs: lab/txncalib and
lab/ddlcalib refuse to calibrate over their --max-wakeup-us (busy_refusal),
tests/lib.sh's timing tests skip (tests/lib.py pingpong), lab/experiment and
lab/fidelity quote it on their pages; and how its idle vCPUs wait
(guest_halt_poll_ns). quiet(): the gate lab/fidelity and lab/experiment pass
before each run (fewer than QUIET_CORES cores busy), so what the run before
left behind is not charged to the next. cpu_ref(): the CPU reference figure a
profile records (libdbfio's own function, the one the engines measure their
host with)."""
import ctypes
import os
import re
import threading
import time


def wakeup_us(rounds=3, n=2000):
    """How long a wake-up takes on this machine now: the median over ROUNDS of N
    one-byte round trips between two processes over pipes (two wake-ups
    each), in microseconds: 6-9 on an idle VM here, 23-200 while its host is
    busy (then a real MariaDB transaction took 3-5 ms instead of 1.3)."""
    times = []
    for _ in range(rounds):
        a_r, a_w = os.pipe()
        b_r, b_w = os.pipe()
        pid = os.fork()
        if pid == 0:            # the echo: ends when the parent's end closes (it died too)
            os.close(a_w)
            os.close(b_r)
            while os.read(a_r, 1):
                os.write(b_w, b"x")
            os._exit(0)
        os.close(a_r)
        os.close(b_w)
        t = time.perf_counter()
        for _ in range(n):
            os.write(a_w, b"x")
            os.read(b_r, 1)
        times.append((time.perf_counter() - t) / n * 1e6)
        os.close(a_w)
        os.close(b_r)
        os.waitpid(pid, 0)
    return sorted(times)[len(times) // 2]


def busy_refusal(us, max_us, when):
    """A calibration's refusal where a wake-up round trip (wakeup_us()) took
    over max_us, else None."""
    if us <= max_us:
        return None
    return ("the host is busy %s: a wake-up round trip between two processes took %.0f us "
            "(--max-wakeup-us %g; 6-9 on an idle machine): the fit would measure the host, not the "
            "database; calibrate on an idle machine" % (when, us, max_us))


def cpu_ref(build, ws_bytes):
    """This host's CPU reference figure in ns over a working set of ws_bytes
    (0: the spin): libdbfio's dbtime_cpu_ref() from BUILD's libdbfio.so, the
    function the txn and metastorm engines measure their host with at start,
    so a profile's figure and the engine's are the same work (docs/txn.md).
    0 when the set cannot be allocated."""
    lib = ctypes.CDLL(os.path.join(build, "libdbfio.so"))
    lib.dbtime_cpu_ref.restype = ctypes.c_uint64
    lib.dbtime_cpu_ref.argtypes = [ctypes.c_uint64]
    return lib.dbtime_cpu_ref(ws_bytes)


QUIET_CORES = 0.3       # the machine is quiet when fewer cores than this are busy (averaged over
QUIET_WINDOW = 0.5      # this many seconds: 100 ticks of /proc/stat on 2 cores, and half the cost
QUIET_MAX = 30          # of a 1 s window before each of make results' ~350 points); seconds to wait at most


def busy_cores(dt=QUIET_WINDOW):
    """cores busy over the next DT seconds (/proc/stat: all but idle and iowait)."""
    def snap():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + v[4]
    a0, i0 = snap()
    time.sleep(dt)
    a1, i1 = snap()
    return (1 - (i1 - i0) / max(a1 - a0, 1)) * (os.cpu_count() or 1)


SYNC_MAX = 60           # seconds a write-back may take before quiet() goes on without it


def writeback(max_wait=SYNC_MAX):
    """sync(), bounded: a FUSE mount whose daemon hangs (ceph-fuse of a stopped
    cluster) would block it for ever. The thread is a daemon: left behind, it
    does not hold the process at exit."""
    t = threading.Thread(target=os.sync, daemon=True)
    t.start()
    t.join(max_wait)


def quiet(max_wait=QUIET_MAX, cores=QUIET_CORES, busy=busy_cores, writeback=writeback):
    """Wait until the machine is quiet (fewer than CORES cores busy over QUIET_WINDOW s), at
    most MAX_WAIT seconds: what the run before left behind (the Ceph daemons'
    deferred writes and compaction after a run on a target, a server's exit) is
    not charged to the next run. First every file system's dirty data is
    written back (sync): a run's fsyncs must not commit the journal of the
    last run's files (an ext4 fsync waits for every ordered-data block of the
    transaction - a removed data directory, a new WAL segment), SYNC_MAX s at
    most. The seconds waited, the sync's included (>= MAX_WAIT: gave up)."""
    t0 = time.time()
    writeback()
    while busy() > cores and time.time() - t0 < max_wait:
        pass
    return time.time() - t0


def waited(waits, max_wait=QUIET_MAX):
    """What quiet() waited over a run (its return values), in words."""
    if not waits:
        return "no run"
    long = sum(w >= max_wait for w in waits)
    return "%d runs waited %.0f s in all, the longest %.0f s%s" % (
        len(waits), sum(waits), max(waits), ", %d gave up waiting" % long if long else "")


HALT_POLL = "/sys/module/haltpoll/parameters/guest_halt_poll_ns"


def idle_poll():
    """How this VM's idle vCPUs wait, in words: with cpuidle-haltpoll, an idle
    vCPU first polls for up to guest_halt_poll_ns, then halts, and waking a
    halted vCPU takes the host's scheduler (48-173 us here while the host was
    busy, 6-9 idle; polled, 8-16 busy). Which one ran changes every wake-up.
    recorded_idle_poll reads it back from a text that quotes it."""
    try:
        with open(HALT_POLL) as f:
            ns = int(f.read())
    except (OSError, ValueError):
        return "no cpuidle-haltpoll"
    return "guest_halt_poll_ns=%d (%s)" % (ns, "idle vCPUs halt at once" if ns == 0 else
                                           "idle vCPUs poll up to %g us before halting" % (ns / 1e3))


def recorded_idle_poll(text):
    """The idle_poll() setting a text quotes at the start of a "; " comment
    line (a txn profile's header: lab/txncalib), or None."""
    m = re.search(r"^; (guest_halt_poll_ns=\d+|no cpuidle-haltpoll)", text, re.M)
    return m.group(1) if m else None
