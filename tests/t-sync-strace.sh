#!/bin/bash
# Description: posix syncs seen by strace, not by the store's counters: storeio's fsync=/fdatasync=, redolog's group commit
# Timeout: 120
# In full: posix syncs seen by strace, not by the store's counters: storeio's fsync=/fdatasync=,
# redolog's group commit (and a flush per commit at iodepth 1), pgpage's checkpoint fsyncs
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed"
for e in storeio redolog pgpage; do [ -f "$B/$e.so" ] || fail "$B/$e.so is missing (run make)"; done

# st NAME FILE-REGEX ARGS...: fio under strace; prints "fsyncs fdatasyncs" made on
# files whose path matches FILE-REGEX (strace -y names each descriptor's file)
st() {
	local name=$1 re=$2; shift 2
	strace -f -y -qq -e trace=fsync,fdatasync -o "$TMP/$name.strace" \
		"$FIO_BIN" --output-format=json --output="$TMP/$name.json" --aux-path="$TMP" \
		--name="$name" "$@" 2>"$TMP/$name.err"
	crash_check "$name" $? "$TMP/$name.err" || return 1
	[ "$(json "$TMP/$name.json" "d['jobs'][0]['error']")" = 0 ] || { cat "$TMP/$name.err"; fail "$name: fio error"; }
	py strace-syncs "$TMP/$name.strace" "$re"
}
# under SANITIZE=1 fio needs the ASan runtime first (strace follows the exec)
[ "${SANITIZE:-0}" = 1 ] && FIO_BIN=$FIO

# 1. storeio: 256 writes of 4 KiB; fsync=8 -> fio issues 31 fsyncs (none after
#    the last write, as with its own psync engine), fdatasync=4 -> 63. Each must
#    be one fsync(2)/fdatasync(2) on the file.
mkdir -p "$TMP/st"
ST=(--ioengine="external:$B/storeio.so" --directory="$TMP/st" --rw=write --bs=4k --size=1m --filename=data)
read -r fs fds < <(st st-fsync "/st/data$" "${ST[@]}" --fsync=8) || fail "st-fsync"
want=$(json "$TMP/st-fsync.json" "d['jobs'][0]['sync']['total_ios']")
[ "$want" = 31 ] || fail "storeio fsync=8: fio issued $want fsyncs for 256 writes, expected 31"
[ "$fs" = 31 ] || fail "storeio fsync=8: fio issued 31 fsyncs, strace saw $fs fsync(2) on the file"
read -r fs fds < <(st st-fdatasync "/st/data$" "${ST[@]}" --fdatasync=4) || fail "st-fdatasync"
want=$(json "$TMP/st-fdatasync.json" "d['jobs'][0]['sync']['lat_ns']['N']")
[ "$want" = 63 ] || fail "storeio fdatasync=4: fio issued $want fdatasyncs for 256 writes, expected 63"
[ "$fds" = 63 ] || fail "storeio fdatasync=4: fio issued 63 fdatasyncs, strace saw $fds fdatasync(2) on the file"
ok "storeio: fsync=8 -> 31 fsync(2), fdatasync=4 -> 63 fdatasync(2) (strace)"

# 2. redolog: 2000 commits of 512 B; at iodepth 1 every commit waits for its own
#    flush of the log, at iodepth 16 commits share flushes (group commit)
for qd in 1 16; do
	mkdir -p "$TMP/rl$qd"
	read -r fs fds < <(st "rl$qd" "/rl$qd/ib_logfile[0-9]+$" --ioengine="external:$B/redolog.so" \
		--directory="$TMP/rl$qd" --rw=write --flavor=mysql --bs=512 --number_ios=2000 --iodepth=$qd \
		--innodb_log_file_size=4m) || fail "rl$qd"
	n=$((fs + fds))
	commits=$(json "$TMP/rl$qd.json" "d['jobs'][0]['write']['total_ios']")
	[ "$commits" = 2000 ] || fail "redolog iodepth $qd: $commits commits, expected 2000"
	if [ $qd = 1 ]; then
		# one flush per commit (plus the log files' creation)
		[ "$n" -ge 2000 ] || fail "redolog iodepth 1: 2000 commits acknowledged, strace saw only $n log flushes"
	else
		[ "$n" -ge 20 ] || fail "redolog iodepth 16: strace saw only $n log flushes for 2000 commits"
		[ $((n * 4)) -lt 2000 ] || fail "redolog iodepth 16: $n log flushes for 2000 commits: no group commit"
	fi
	ok "redolog iodepth $qd: 2000 commits, strace saw $n flushes of ib_logfile*"
done

# 3. pgpage: 32 sequential pages, a checkpoint every 8 dirtied pages: each of
#    the 4 requests covers 2 segment files (t-pgpage-checkpoint), 8 fsyncs
mkdir -p "$TMP/pg"
read -r fs fds < <(st pg "/pg/1638[45](\.[0-9]+)?$" --ioengine="external:$B/pgpage.so" --directory="$TMP/pg" \
	--bs=8k --relations=2 --relation_size=128k --segment_size=32k --relfilenode=16384 \
	--rw=write --rate_iops=200 --checkpoint_timeout=0 --checkpoint_pages=8 \
	--checkpoint_completion_target=0 --checkpoint_log="$TMP/pg.ckpt") || fail "pg"
cat "$TMP/pg.ckpt"
[ $((fs + fds)) = 8 ] || fail "pgpage: strace saw $fs fsync(2) + $fds fdatasync(2) of segment files, 4 checkpoints x 2 segments = 8"
ok "pgpage: 4 checkpoints, strace saw the 8 segment fsyncs"
