#!/bin/bash
# Description: no engine writes through a symlink at any name it uses, nor outside directory= via log_prefix: victims' md5 unchanged
# Tier: quick
. "$(dirname "$0")/lib.sh"
# A symlink (dangling or not) placed at a name an engine uses - its lock, its
# ownership marker, a log file, a WAL segment's next name, a relation, a
# metastorm schema directory, MySQL 8.0.30's #innodb_redo - must never make
# it create, truncate, write or remove the file the link points to; nor may
# log_prefix= put a file outside the directory. Oracles: md5sum of each
# victim before and after, a dangling link's target still absent, find(1)
# of the parent directory; and the engine's one-line refusal.
VICTIM=$TMP/victim
mkdir -p "$VICTIM/dir"
head -c 65536 /dev/urandom >"$VICTIM/file"
echo "not dbfio's" >"$VICTIM/dir/keep"
sums() { find "$VICTIM" -type f -print0 | sort -z | xargs -0 md5sum; find "$VICTIM" | sort; }
sums >"$TMP/victim.before"
check_victim() {	# check_victim CASE: every victim file and name as before
	sums >"$TMP/victim.after"
	diff "$TMP/victim.before" "$TMP/victim.after" >/dev/null || { diff "$TMP/victim.before" "$TMP/victim.after"; fail "$1: the victim changed"; }
}
REDO="--ioengine=external:$B/redolog.so --rw=write --bs=4k --number_ios=200 --innodb_log_file_size=1m"
PG="--ioengine=external:$B/redolog.so --rw=write --bs=8k --number_ios=600 --flavor=postgres --wal_segment_size=1m --wal_segments=2"
# refused CASE DIR ARGS...: the engine refuses (fio fails, the job wrote nothing), the victim intact
refused() {
	local c=$1 dir=$2; shift 2
	run_fio "$c" --name="$c" --directory="$dir" "$@" && { cat "$TMP/$c.err"; fail "$c: ran through a symlink"; }
	grep -q "symbolic link\|Too many levels of symbolic links" "$TMP/$c.err" ||
		{ cat "$TMP/$c.err"; fail "$c: the refusal does not say it is a symbolic link"; }
	check_victim "$c"
	ok "$c: $(grep -m1 "symbolic link" "$TMP/$c.err")"
}

# the run lock and the ownership marker
mkdir -p "$TMP/lock" && ln -s "$VICTIM/file" "$TMP/lock/.dbfio-lock"
refused lock "$TMP/lock" $REDO
mkdir -p "$TMP/marker" && ln -s "$VICTIM/file" "$TMP/marker/.dbfio-owned"
refused marker "$TMP/marker" $REDO
# a log file dbfio made and claimed, replaced by a link after the run
mkdir -p "$TMP/log"
run_fio log0 --name=log0 --directory="$TMP/log" $REDO || { cat "$TMP/log0.err"; fail "log: the first run failed"; }
rm "$TMP/log/ib_logfile0" && ln -s "$VICTIM/file" "$TMP/log/ib_logfile0"
refused log "$TMP/log" $REDO
# a dangling link at the name a WAL segment is recycled to
mkdir -p "$TMP/wal"
ln -s "$VICTIM/made-by-recycle" "$TMP/wal/000000010000000000000003"
refused wal "$TMP/wal" $PG
[ ! -e "$VICTIM/made-by-recycle" ] || fail "wal: the dangling link's target was created"
# a relation of pgpage, and of txn, replaced by a link after a first run
mkdir -p "$TMP/rel"
PGPAGE="--ioengine=external:$B/pgpage.so --rw=randwrite --bs=8k --relations=2 --relation_size=1m --number_ios=100"
run_fio rel0 --name=rel0 --directory="$TMP/rel" $PGPAGE || { cat "$TMP/rel0.err"; fail "rel: the first run failed"; }
rm "$TMP/rel/16385" && ln -s "$VICTIM/file" "$TMP/rel/16385"
refused rel "$TMP/rel" $PGPAGE
mkdir -p "$TMP/txn"
TXN="--ioengine=external:$B/txn.so --calibration=none --rw=write --thread=1 --number_ios=50 --txn_profile=tpcb --flavor=postgres --scale=1 --shared_buffers=16m --rtt=0 --cpu_per_stmt=0"
run_fio txn0 --name=txn0 --directory="$TMP/txn" $TXN || { cat "$TMP/txn0.err"; fail "txn: the first run failed"; }
rm "$TMP/txn/16384" && ln -s "$VICTIM/file" "$TMP/txn/16384"
refused txn "$TMP/txn" $TXN
# a directory an engine makes and writes into: metastorm's schema, MySQL 8.0.30's #innodb_redo
mkdir -p "$TMP/ms" && ln -s "$VICTIM/dir" "$TMP/ms/dbfio_ms_1"
run_fio ms --name=ms --directory="$TMP/ms" --ioengine="external:$B/metastorm.so" --rw=write --number_ios=20 --thread=1
check_victim ms
ok "metastorm: a linked dbfio_ms_1 ($(grep -m1 . "$TMP/ms.err" || echo "no message"))"
mkdir -p "$TMP/r30" && ln -s "$VICTIM/dir" "$TMP/r30/#innodb_redo"
refused r30 "$TMP/r30" $REDO --innodb_redo_log_capacity=8m
# fio's own file names (storeio): never above directory=, never through a link
mkdir -p "$TMP/sio/d"
ln -s "$VICTIM/file" "$TMP/sio/d/linked"
for f in ../outside linked; do
	c=storeio-$(echo "$f" | tr -c 'a-z' x)
	run_fio "$c" --name="$c" --ioengine="external:$B/storeio.so" --directory="$TMP/sio/d" --filename="$f" \
		--size=64k --bs=4k --rw=write && fail "storeio filename=$f: accepted"
	grep -q "storeio: open(.*) failed: '$f' is \(outside the store's directory\|a symbolic link\)" "$TMP/$c.err" ||
		{ cat "$TMP/$c.err"; fail "storeio filename=$f: no one-line refusal saying why"; }
	[ ! -e "$TMP/sio/outside" ] || fail "storeio filename=$f: a file was made above directory="
	check_victim "$c"
	ok "storeio filename=$f refused: $(grep -m1 "storeio: open" "$TMP/$c.err")"
done
# log_prefix: a prefix of names in the directory, never a path out of it
mkdir -p "$TMP/pfx/d"
for p in ../ /tmp/ sub/; do
	c=prefix-$(echo "$p" | tr -c 'a-z' x)
	run_fio "$c" --name="$c" --directory="$TMP/pfx/d" $REDO --log_prefix="$p" && fail "log_prefix=$p: accepted"
	grep -q "log_prefix=$p: .*may not contain '/'" "$TMP/$c.err" || { cat "$TMP/$c.err"; fail "log_prefix=$p: no one-line refusal"; }
	[ -z "$(find "$TMP/pfx" -name '*ib_logfile*')" ] || fail "log_prefix=$p: a log file was created"
	ok "log_prefix=$p refused: $(grep -m1 log_prefix "$TMP/$c.err")"
done
exit 0
