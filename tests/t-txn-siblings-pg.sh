#!/bin/bash
# Description: commit_delay delays the flushes real PostgreSQL 15 delays: strace of pgbench and of the txn model alike
# Timeout: 500
# In full: PostgreSQL sleeps commit_delay before a WAL flush only when commit_siblings other backends
# have an xid and wait on no lock (MinimumActiveBackends). A real PostgreSQL 15 started under strace -f
# runs pgbench at scale 1 with 6 clients (the other five queue on the one branch row: almost no flush
# delayed) and at scale 16 with 16 clients (they rarely block: almost every flush delayed), commit_delay
# 2 ms, commit_siblings 5; its delays are the backends' select() of 2 ms (PG15's pg_usleep), its flushes
# the fdatasyncs of pg_wal. The txn model (calibration=postgres15) runs the same under strace: its
# delays are its nanosleeps of 2 ms, its flushes the fdatasyncs of its WAL segments. Each side's
# delayed fraction is within 0.15 of the other's; the tps ratio delay on/off at scale 1 within 35 %.
. "$(dirname "$0")/lib.sh"
timing_test
[ "$(id -u)" = 0 ] || skip "a real PostgreSQL runs as user postgres: needs root"
command -v strace >/dev/null || skip "strace is not installed"
[ -x /usr/lib/postgresql/15/bin/postgres ] || skip "postgresql-15 is not installed (tools/deps --with fidelity)"
[ -x /usr/bin/pgbench ] || skip "pgbench is not installed (postgresql-contrib)"
chmod 711 "$TMP"	# user postgres reaches its data directory below
mkdir -p "$TMP/pg"
# prints per workload: "SCALE CLIENTS TPS_OFF TPS_ON DELAYS FLUSHES"
real=$(/usr/bin/python3 - "$REPO/python" "$TMP/pg" <<'EOF'
import os, pwd, re, subprocess, sys, time
sys.path.insert(0, sys.argv[1])
from dbfio import servers                 # noqa: E402
from dbfio import strace as dbstrace      # noqa: E402
work = sys.argv[2]
trace = os.path.join(work, "pg.strace")
pw = pwd.getpwnam("postgres")
os.chown(work, pw.pw_uid, pw.pw_gid)
# pg_usleep(CommitDelay) in PG15 is select(0, NULL, NULL, NULL, 2 ms) (pselect6 in glibc)
DELAY = re.compile(r"^0, NULL, NULL, NULL, \{tv_sec=0, tv_(nsec=2000000|usec=2000)\}")


class Traced(servers.Postgres):
    # under strace from its start: --seccomp-bpf stops only the traced calls, so the server runs
    # at its own speed (strace -p cannot use it and slows every call)
    def start_command(self):
        return ["strace", "-f", "-qq", "-y", "--seccomp-bpf", "-o", trace, "-e",
                "trace=select,pselect6,fdatasync"] + super().start_command()

    # the fast shutdown goes to the postmaster: strace, sent SIGINT, would only detach and
    # leave it running until the stop's 60 s ran out and SIGKILL ended both
    def stop_pid(self):
        try:
            with open(os.path.join(self.datadir, "postmaster.pid")) as f:
                return int(f.readline())
        except (OSError, ValueError):
            return self.proc.pid


def pgbench(srv, clients, delay, secs=4):
    env = srv.env()
    env["PGOPTIONS"] = "-c commit_delay=%d -c commit_siblings=5" % delay
    off = os.path.getsize(trace)
    out = subprocess.run(["/usr/bin/pgbench", "-n", "-c", str(clients), "-j", "2", "-T", str(secs)], env=env,
                         capture_output=True, text=True, timeout=200).stdout
    time.sleep(0.5)     # strace has written the last calls
    with open(trace, errors="replace") as f:
        f.seek(off)
        lines = f.read().splitlines()
    m = re.search(r"^tps = ([0-9.]+)", out, re.M)
    if not m:
        raise servers.Fail("pgbench: no tps in its output: %s" % out.strip().splitlines()[-1:])
    delays = flushes = 0
    for c in dbstrace.calls(lines):
        if c.pid is None:
            continue
        if c.call in ("select", "pselect6") and DELAY.search(c.args):
            delays += 1
        elif c.call == "fdatasync" and "/pg_wal/" in (c.path or ""):
            flushes += 1
    return float(m.group(1)), delays, flushes


srv = Traced(work, work, [])
try:
    srv.setup()
    srv.start()
    for scale, clients in ((1, 6), (16, 16)):
        servers.run(["/usr/bin/pgbench", "-i", "-q", "-s", str(scale)], "pgbench -i", 300, log=srv.log,
                    env=srv.env())
        srv.settle()
        pgbench(srv, clients, 0, 2)     # warm
        t0, _, _ = pgbench(srv, clients, 0)
        t1, delays, flushes = pgbench(srv, clients, 2000)
        print(scale, clients, t0, t1, delays, flushes)
except servers.Fail as e:
    print("FAIL %s" % e)
finally:
    srv.stop()
EOF
)
case $real in
"" | FAIL*) fail "the real PostgreSQL run failed: ${real#FAIL }" ;;
esac

model() {	# model NAME SCALE CLIENTS DELAY: the txn engine 4 s under strace; sets tps, delays, flushes
	local n=$1
	mkdir -p "$TMP/$n"
	strace -f -qq -y --seccomp-bpf -o "$TMP/$n.strace" -e trace=clock_nanosleep,nanosleep,fdatasync \
		"$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" --ioengine="external:$B/txn.so" \
		--calibration=postgres15 --directory="$TMP/$n" --rw=write --numjobs="$3" --group_reporting \
		--scale="$2" --time_based --runtime=4 --commit_delay="$4" --commit_siblings=5 \
		--summary_json="$TMP/$n.sum" </dev/null 2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
	tps=$(json "$TMP/$n.sum" 'd["tps"]')
	# the calls, each once: an interrupted one's first line names its arguments
	delays=$(grep -c 'nanosleep(CLOCK_[A-Z]*, 0, {tv_sec=0, tv_nsec=2000000}' "$TMP/$n.strace")
	flushes=$(grep -E 'fdatasync\([0-9]+</[^>]*/[0-9A-F]{24}>' "$TMP/$n.strace" | grep -vc resumed)
}
while read -r scale clients rt0 rt1 rdel rfl; do
	[ "$rfl" -gt 0 ] || fail "real PostgreSQL, scale $scale: no WAL fdatasync in its strace"
	model "off$scale" "$scale" "$clients" 0
	mt0=$tps
	model "on$scale" "$scale" "$clients" 2ms
	mt1=$tps mdel=$delays mfl=$flushes
	[ "$mfl" -gt 0 ] || fail "model, scale $scale: no WAL fdatasync in its strace"
	rf=$(py calc "round($rdel / $rfl, 3)")
	mf=$(py calc "round($mdel / $mfl, 3)")
	rr=$(py calc "round($rt1 / $rt0, 3)")
	mr=$(py calc "round($mt1 / $mt0, 3)")
	echo "scale $scale, $clients clients, commit_delay 2 ms: real $rdel of $rfl flushes delayed ($rf)," \
		"tps $rt0 -> $rt1 ($rr); model $mdel of $mfl ($mf), tps $mt0 -> $mt1 ($mr)"
	py check "abs($mf - $rf) <= 0.15" ||
		fail "scale $scale: the model delays $mf of its flushes, real PostgreSQL $rf: more than 0.15 apart"
	ok "scale $scale, $clients clients: delayed fraction real $rf, model $mf"
	if [ "$scale" = 1 ]; then
		timing_check "abs($mr / $rr - 1) <= 0.35" \
			"scale 1: tps ratio delay on/off real $rr, model $mr: more than 35 % apart"
		ok "scale 1: tps ratio delay on/off real $rr, model $mr"
	fi
done <<<"$real"
