#!/bin/bash
# Description: redolog and pgpage never overwrite a database's file they did not create (ib_logfile0, WAL segment, #ib_redo, relation)
# In full: redolog and pgpage never overwrite a database's file they did not create (ib_logfile0, WAL
# segment, #ib_redo, relation): one line naming it, checksum unchanged; SIGKILL then rerun works;
# unlink=1 leaves no file
. "$(dirname "$0")/lib.sh"
RL="--ioengine=external:$B/redolog.so --bs=4k --rw=write"
PG="--ioengine=external:$B/pgpage.so --relations=2 --relation_size=8m --segment_size=4m --bs=8k --rw=randwrite --checkpoint_timeout=1"
n=0
# refuse DIR FILE ARGS...: FILE (a foreign file in DIR) must make the run fail
# naming it, and keep its checksum
refuse() {
	local dir=$1 file=$2 sum; shift 2
	n=$((n + 1))
	sum=$(md5sum "$dir/$file" | cut -d' ' -f1)
	"$FIO" --name=r$n --directory="$dir" "$@" >"$TMP/r$n.out" 2>&1 && { cat "$TMP/r$n.out"; fail "$file: the run did not refuse"; }
	grep -q "$file exists and dbfio did not create it" "$TMP/r$n.out" || { cat "$TMP/r$n.out"; fail "$file: no line naming it"; }
	[ "$(md5sum "$dir/$file" | cut -d' ' -f1)" = "$sum" ] || fail "$file: overwritten (checksum changed)"
	ok "$file refused, checksum unchanged: $(grep -m1 "exists and dbfio" "$TMP/r$n.out")"
}
foreign() { mkdir -p "$(dirname "$1")"; head -c "${2:-65536}" /dev/urandom >"$1"; }

for be in posix uring aio; do
	case $be in uring) have_backend LIBURING || continue ;; aio) have_backend LIBAIO || continue ;; esac
	foreign "$TMP/my-$be/ib_logfile0"
	refuse "$TMP/my-$be" ib_logfile0 $RL --store=$be --innodb_log_file_size=4m --size=1m
done
foreign "$TMP/my1/ib_logfile1"
refuse "$TMP/my1" ib_logfile1 $RL --innodb_log_file_size=4m --size=1m
foreign "$TMP/maria/ib_logfile0"
refuse "$TMP/maria" ib_logfile0 $RL --flavor=mariadb --innodb_log_file_size=4m --innodb_log_file_buffering=1 --size=1m
foreign "$TMP/pg/000000010000000000000001"
refuse "$TMP/pg" 000000010000000000000001 $RL --flavor=postgres --wal_segment_size=1m --wal_buffers=1m --size=1m
# a segment the run reaches only by recycling (PostgreSQL stat()s the new name too)
foreign "$TMP/pg9/000000010000000000000009"
refuse "$TMP/pg9" 000000010000000000000009 $RL --flavor=postgres --wal_segment_size=1m \
	--wal_segments=4 --wal_buffers=1m --size=20m
foreign "$TMP/r8030/#innodb_redo/#ib_redo0"
foreign "$TMP/r8030/#innodb_redo/#ib_redo1"
refuse "$TMP/r8030" "#innodb_redo/#ib_redo0" $RL --innodb_redo_log_capacity=8m --size=1m
[ -s "$TMP/r8030/#innodb_redo/#ib_redo1" ] || fail "#ib_redo1 (not ours) was removed"
foreign "$TMP/rel/16384"
refuse "$TMP/rel" 16384 $PG --number_ios=100
foreign "$TMP/rel1/16385.1"
refuse "$TMP/rel1" 16385.1 $PG --number_ios=100
[ ! -e "$TMP/rel1/16384" ] || fail "pgpage created 16384 before refusing 16385.1"

# SIGKILL, then a rerun in the same directory: the marker says the files are dbfio's
killrun() {	# killrun NAME FILE ARGS...: kill once FILE exists, rerun (short) in the same dir
	local name=$1 file=$2 pid i; shift 2
	mkdir -p "$TMP/$name"
	"$FIO" --name=$name --directory="$TMP/$name" "$@" --time_based --runtime=60 >"$TMP/$name.out" 2>&1 &
	pid=$!
	for i in $(seq 1 100); do [ -s "$TMP/$name/$file" ] && break; sleep 0.1; done
	sleep 1	# past the first recycles and checkpoints
	kill -KILL $pid
	fio_wait $pid "$name" KILL "$TMP/$name.out"
	[ -s "$TMP/$name/$file" ] || fail "$name: $file never appeared"
	run_fio $name-2 --name=$name-2 --directory="$TMP/$name" "$@" --runtime=1 --time_based || { cat "$TMP/$name-2.err"; fail "$name: rerun after SIGKILL refused"; }
	ok "$name: rerun after SIGKILL works"
}
killrun kmy ib_logfile1 $RL --innodb_log_file_size=4m --size=1g
killrun kpg redolog-postgres.meta $RL --flavor=postgres --wal_segment_size=1m --wal_segments=4 --wal_buffers=1m --size=1g
killrun krel 16385 $PG --size=1g

# unlink=1: nothing left behind
gone() {	# gone NAME ARGS...
	local name=$1; shift
	mkdir -p "$TMP/$name"
	run_fio $name --name=$name --directory="$TMP/$name" --unlink=1 "$@" || { cat "$TMP/$name.err"; fail "$name: unlink=1 run"; }
	left=$(ls -A "$TMP/$name")
	[ -z "$left" ] || fail "$name: unlink=1 left: $left"
	ok "$name: unlink=1 left no file"
}
gone umy $RL --innodb_log_file_size=4m --size=1m
gone umaria $RL --flavor=mariadb --innodb_log_file_size=4m --innodb_log_file_buffering=1 --size=1m
gone upg $RL --flavor=postgres --wal_segment_size=1m --wal_segments=4 --wal_buffers=1m --size=20m
gone u8030 $RL --innodb_redo_log_capacity=8m --size=20m
gone urel $PG --number_ios=500
# three jobs sharing the directory (and the marker), each removing its own
gone unj $RL --innodb_log_file_size=4m --size=1m --numjobs=3
gone unjrel $PG --number_ios=100 --numjobs=3
# and a run without unlink=1 followed by one with it in the same directory
mkdir -p "$TMP/u2"
run_fio u2a --name=u2a --directory="$TMP/u2" $RL --innodb_log_file_size=4m --size=1m || fail "u2a"
gone u2 $RL --innodb_log_file_size=4m --size=1m
