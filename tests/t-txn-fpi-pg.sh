#!/bin/bash
# Description: from txncalib's checkpoint, the model logs as many full-page images a transaction as real PostgreSQL 15
# Timeout: 400
# In full: lab/txncalib's measure() runs a real PostgreSQL 15 (pgbench -i -s 2, pgbench -c 1, 2 s warm-up,
# then 4 s from the state it calibrates in: a CHECKPOINT after the warm-up) and counts its full-page images
# a transaction (pg_stat_wal.wal_fpi). The txn engine (calibration=postgres15, a fresh fio process: the state
# after a checkpoint) runs as many transactions under strace; its images are counted from its WAL writes
# alone: the bytes the writes add to each segment (the 1 MiB zero-fills left out), less txn_log_bytes a
# transaction, over the 8 kB page. The two within 25 %. Without the checkpoint the real run follows the
# warm-up's images (~0.01 a transaction) and its commit is compared with a model that logs many.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "a real PostgreSQL runs as user postgres: needs root"
command -v strace >/dev/null || skip "strace is not installed"
[ -x /usr/lib/postgresql/15/bin/postgres ] || skip "postgresql-15 is not installed (tools/deps --with fidelity)"
[ -x /usr/lib/postgresql/15/bin/pgbench ] || skip "pgbench is not installed (postgresql-contrib)"
chmod 711 "$TMP"	# user postgres reaches its data directory below
mkdir -p "$TMP/pg"
res=$(/usr/bin/python3 - "$REPO" "$TMP/pg" <<'EOF'
import os
import sys
import types
repo, work = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(repo, "python"))
from dbfio import labtool  # noqa: E402
from dbfio.servers import PG_BIN, Fail, Postgres, run  # noqa: E402
tc = labtool.load(repo, "txncalib")
srv = Postgres(work, work, ["synchronous_commit=off"])
try:
    srv.setup()
    srv.start()
    run([PG_BIN + "/pgbench", "-i", "-q", "-s", "2"], "pgbench -i", 300, log=srv.log, env=srv.env())
    srv.settle()
    r = tc.measure(srv, types.SimpleNamespace(seconds=4), tc.pg_run, tc.pg_counters, seconds=4, warm=2)
    print("%d %.4f" % (r["transactions"], r["fpi_per_txn"]))
except Fail as e:
    print("FAIL %s" % e)
finally:
    srv.stop()
EOF
)
case $res in
"" | FAIL*) fail "the real PostgreSQL run failed: ${res#FAIL }" ;;
esac
read -r n real <<<"$res"
mkdir -p "$TMP/d" "$TMP/w"
LOGB=100
strace -f -y -qq -o "$TMP/st" -e trace=pwrite64,pwritev "$FIO_BIN" --name=m --ioengine="external:$B/txn.so" \
	--calibration=postgres15 --txn_log_bytes=$LOGB --directory="$TMP/d" --waldir="$TMP/w" --rw=write \
	--scale=2 --txn_prewarm=1 --number_ios="$n" --output-format=json --output="$TMP/o.json" 2>"$TMP/err" ||
	{ tail -3 "$TMP/err"; fail "the txn engine failed"; }
done_n=$(json "$TMP/o.json" 'd["jobs"][0]["write"]["total_ios"]')
[ "$done_n" = "$n" ] || fail "the txn engine ran $done_n transactions, not $n"
model=$(/usr/bin/python3 - "$REPO" "$TMP/st" "$TMP/w" "$n" $LOGB <<'EOF'
import os
import sys
sys.path.insert(0, os.path.join(sys.argv[1], "python"))
from dbfio import strace  # noqa: E402
trace, wal, n, logb = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
hw, new = {}, 0
with open(trace) as f:
    for c in strace.calls(f):
        seg = c.path or ""
        if c.call != "pwrite64" or os.path.dirname(seg) != wal or not os.path.basename(seg).startswith("0000"):
            continue
        size, off = c.ints(2, 3)
        if c.ret is None or c.ret < 0 or size >= 1 << 20:     # the segment's zero-fill
            continue
        start = hw.get(seg, off)
        new += max(0, off + size - max(start, off))
        hw[seg] = max(start, off + size)
print("%.4f %d" % ((new / n - logb) / 8192, new))
EOF
)
read -r mfpi bytes <<<"$model"
echo "real PostgreSQL 15 after txncalib's checkpoint: $n transactions, $real full-page images each" \
	"(pg_stat_wal.wal_fpi); the model: $bytes WAL bytes written (strace), $mfpi images each"
# From a checkpoint every page's first change logs an image: at scale 2 (~3,300 account pages) a 4 s
# run logs over 1000 of them, or over 0.2 a transaction when it makes few; without the checkpoint
# ~0.01 a transaction. A fast host's many transactions dilute the share, not the count.
py check "$real >= 0.2 or $real * $n >= 1000" ||
	fail "the real run logged $real full-page images a transaction ($n transactions): it did not start from a checkpoint"
py check "abs($mfpi / $real - 1) <= 0.25" ||
	fail "full-page images a transaction: the model's $mfpi, real PostgreSQL's $real: more than 25 % apart"
ok "full-page images a transaction from a checkpoint: real $real, model $mfpi ($n transactions)"
