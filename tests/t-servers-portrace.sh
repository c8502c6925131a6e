#!/bin/bash
# Description: a real server started on a port another server took meanwhile moves on: ss names its own pid
# Timeout: 300
# In full: dbfio.servers picks a free port, then the server binds it; another engineer's or test's
# server can take the port in between. Two real PostgreSQL 15 servers: A starts normally; B is told
# (free_port patched) that A's port is free. B's postmaster must fail its bind, be restarted on a later
# port, and be ready only when the server answering is B itself. Oracle: ss -ltnp, which names the pid
# listening on each port (A's postmaster on A's port, B's on B's), and psql's SHOW data_directory on each.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "a real PostgreSQL runs as user postgres: needs root"
[ -x /usr/lib/postgresql/15/bin/postgres ] || skip "postgresql-15 is not installed (tools/deps --with fidelity)"
command -v ss >/dev/null || skip "ss (iproute2) is not installed"
chmod 711 "$TMP"
mkdir -p "$TMP/a" "$TMP/b"

out=$(/usr/bin/python3 - "$REPO/python" "$TMP" <<'EOF'
import subprocess, sys
sys.path.insert(0, sys.argv[1])
from dbfio import servers                 # noqa: E402
tmp = sys.argv[2]
a = servers.Postgres(tmp + "/a", tmp + "/a", [])
b = servers.Postgres(tmp + "/b", tmp + "/b", [])
for s in (a, b):
    s.setup()
a.start()
try:
    real = servers.free_port
    calls = []

    def taken(start=54329):
        calls.append(start)
        return a.port if len(calls) == 1 else real(start)
    servers.free_port = taken
    b.start()
    servers.free_port = real
    try:
        ss = subprocess.run(["ss", "-Hltnp"], capture_output=True, text=True).stdout
        for s, name in ((a, "A"), (b, "B")):
            pids = sorted({int(p) for line in ss.splitlines() if ":%d " % s.port in line
                           for p in __import__("re").findall(r"pid=(\d+)", line)})
            print(name, s.port, s.proc.pid, ",".join(map(str, pids)) or "-",
                  s.sql("SHOW data_directory").strip())
        print("ports-tried", len(calls))
    finally:
        b.stop()
finally:
    a.stop()
EOF
) || fail "the two servers did not run: $out"
echo "$out"
read -r _ pa pida lista dira <<<"$(grep '^A ' <<<"$out")"
read -r _ pb pidb listb dirb <<<"$(grep '^B ' <<<"$out")"
[ "$pa" != "$pb" ] || fail "B was left on A's port $pa"
[ "$lista" = "$pida" ] || fail "ss: port $pa is held by pid $lista, not A's postmaster $pida"
[ "$listb" = "$pidb" ] || fail "ss: port $pb is held by pid $listb, not B's postmaster $pidb"
[ "$dira" = "$TMP/a/data" ] || fail "A's port answers for $dira"
[ "$dirb" = "$TMP/b/data" ] || fail "B's port answers for $dirb"
grep -q "already in use" "$TMP/b/postgres.log" || fail "B's log shows no lost bind: the race was not staged"
ok "B lost the bind on $pa and runs on $pb (ss: pid $listb, its own data directory)"
