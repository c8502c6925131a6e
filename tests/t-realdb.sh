#!/bin/bash
# Description: realdb: real MariaDB on ceph-fuse and PostgreSQL's WAL on ext4-on-RBD, rows and mounts checked from outside
# Timeout: 300
# In full: lab/experiment.d/realdb.py, the real database beside the model: seed 000's recipe (install,
# CREATE/DROP, record stages, sysbench) by a real MariaDB on the ceph-fuse mount and seed 001's pgbench
# by a real PostgreSQL with its WAL on ext4 on RBD, each run as lab/experiment does. The oracle is the
# servers themselves, watched from this script: the mariadbd and postgres command lines and
# /proc/PID/mountinfo give the data directory's and the WAL's file system, the mariadb client counts the
# rows of each record stage's table and psql pgbench's accounts while the servers run; the figures land
# under real:TARGET/METRIC (the ceph-fuse ones also under real:cephfs), nothing is left behind.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "the real servers need root"
if ! command -v mariadbd >/dev/null || ! command -v sysbench >/dev/null || [ ! -x /usr/lib/postgresql/15/bin/postgres ]; then
	skip "MariaDB, sysbench or PostgreSQL 15 not installed (tools/deps --with fidelity)"
fi
need_mounts
LOCAL=$TMP/local
mkdir -p "$LOCAL" && chmod 755 "$TMP" "$LOCAL"

# arg PID NAME: the value of --NAME=V (mariadbd) or of the argument after -NAME (postgres -D)
arg() { tr '\0' '\n' 2>/dev/null <"/proc/$1/cmdline" | awk -v n="$2" 'f { print; exit } $0 ~ "^--" n "=" { sub("^--" n "=", ""); print; exit } $0 == "-" n { f = 1 }'; }

PYTHONPATH=$REPO/lab/experiment.d:$REPO/python /usr/bin/python3 - "$TMP" "$CEPHFS_MNT" "$LOCAL" "$EXT4RBD_MNT" \
	>"$TMP/py.out" 2>"$TMP/py.err" <<'EOF' &
import argparse, json, sys
import common, realdb
tmp, cephfs, local, ext4rbd = sys.argv[1:5]
ctx = common.Ctx(argparse.Namespace(out=tmp, repeats=1), "seed000")
realdb.seed000(ctx, 0, "cephfs-fuse", {"STORE": "posix", "MOUNT": cephfs}, 2, 3)
ctx.seed = "seed001"
realdb.seed001(ctx, 0, "ext4rbd", local, ext4rbd, 1, "16m", [2], 3)
json.dump({"m": ctx.m, "notes": ctx.notes}, sys.stdout)
EOF
PYPID=$!

declare -A ROWS=() SEEN=()
while kill -0 "$PYPID" 2>/dev/null; do
	for p in $(pgrep -x mariadbd); do
		dd=$(arg "$p" datadir)
		case "$dd" in "$CEPHFS_MNT"/realdb-mariadb-*) ;; *) continue ;; esac
		fs=$(fstype "$p" "$dd" 2>/dev/null)
		# a server that ended while it was read leaves nothing to trust: the next one's read is
		[ -n "$fs" ] && kill -0 "$p" 2>/dev/null && SEEN[mariadb]="$dd $fs"
		for t in 1k 10k 100k; do
			n=$(mariadb --no-defaults -h 127.0.0.1 -P "$(arg "$p" port)" -u root -N -B \
				-e "SELECT COUNT(*) FROM dbtrace.realdb_rec$t" 2>/dev/null) || continue
			[ "${n:-0}" -gt "${ROWS[$t]:-0}" ] && ROWS[$t]=$n
		done
	done
	for p in $(pgrep -x postgres); do
		dd=$(arg "$p" D)
		case "$dd" in "$LOCAL"/realdb-pg-*) ;; *) continue ;; esac
		wal=$(readlink "$dd/pg_wal")
		fs=$(fstype "$p" "$dd" 2>/dev/null) wfs=$(fstype "$p" "$wal" 2>/dev/null)
		[ -n "$fs" ] && [ -n "$wfs" ] && kill -0 "$p" 2>/dev/null && SEEN[postgres]="$dd $fs $wal $wfs"
		n=$(/usr/lib/postgresql/15/bin/psql -X -A -t -h 127.0.0.1 \
			-p "$(tr '\0' '\n' <"/proc/$p/cmdline" | sed -n 's/^port=//p')" -U postgres \
			-c "SELECT count(*) FROM pgbench_accounts" 2>/dev/null)
		[ "${n:-0}" -gt "${ROWS[accounts]:-0}" ] 2>/dev/null && ROWS[accounts]=$n
	done
	sleep 0.3
done
wait "$PYPID" || { cat "$TMP/py.err"; fail "realdb run failed"; }

read -r dd fs <<<"${SEEN[mariadb]:-}"
[ -n "$dd" ] || fail "no mariadbd with its data directory under $CEPHFS_MNT was seen"
[ "$fs" = fuse.ceph-fuse ] || fail "mariadbd's data directory $dd is on '$fs', not ceph-fuse"
for t in 1k:1000 10k:10000 100k:100000; do
	[ "${ROWS[${t%%:*}]:-0}" = "${t#*:}" ] ||
		fail "realdb_rec${t%%:*}: the server held ${ROWS[${t%%:*}]:-no} rows, not ${t#*:}"
done
read -r dd fs wal wfs <<<"${SEEN[postgres]:-}"
[ -n "$dd" ] || fail "no postgres with its data directory under $LOCAL was seen"
case "$wal" in "$EXT4RBD_MNT"/realdb-pgwal-*) ;; *) fail "pg_wal points to '$wal', not under $EXT4RBD_MNT" ;; esac
[ "$wfs" = ext4 ] || fail "the WAL ($wal) is on '$wfs', not ext4 (on RBD)"
[ "${ROWS[accounts]:-0}" = 100000 ] || fail "pgbench_accounts held ${ROWS[accounts]:-no} rows, not 100000 (scale 1)"

# mval FILE KEY: the first repeat's value of measurement KEY in the run's JSON
mval() { /usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["m"][sys.argv[2]][0])' "$1" "$2" 2>/dev/null; }
py=$TMP/py.out
for k in install create drop rec-1k rec-10k rec-100k oltp-txps; do
	for t in cephfs-fuse cephfs; do
		v=$(mval "$py" "real:$t/$k") || fail "no real:$t/$k in the measurements: $(cat "$py")"
		awk -v v="$v" 'BEGIN { exit !(v > 0) }' || fail "real:$t/$k = $v"
	done
done
v=$(mval "$py" "real:ext4rbd/tps-2") || fail "no real:ext4rbd/tps-2: $(cat "$py")"
awk -v v="$v" 'BEGIN { exit !(v > 0) }' || fail "real:ext4rbd/tps-2 = $v"
[ -f "$TMP/runs/seed000/cephfs-fuse/real/r1/real.json" ] || fail "no real.json in the run folder"
left=$(find "$CEPHFS_MNT" "$EXT4RBD_MNT" "$LOCAL" -maxdepth 1 -name 'realdb-*' 2>/dev/null)
[ -z "$left" ] || fail "left behind: $left"
for p in $(pgrep -x mariadbd) $(pgrep -x postgres); do
	case "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" in *realdb-*) fail "server left running: $p" ;; esac
done
ok "real MariaDB on ceph-fuse (${ROWS[1k]}/${ROWS[10k]}/${ROWS[100k]} rows), PostgreSQL's WAL on ext4 on RBD"
