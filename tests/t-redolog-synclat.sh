#!/bin/bash
# Description: redolog sync.lat_ns is what docs/redolog.md says per backend (posix: the flush; uring linked: writes + flush)
# Timeout: 120
# In full: redolog sync.lat_ns is what docs/redolog.md says per backend (postgres, 1 MiB records,
# iodepth 1, on a tmpfs where fdatasync is a no-op and a write is a 1 MiB copy): posix - the flush
# alone, far below one pwrite64 as strace -T times it; uring linked mode - writes + flush, at least
# half that pwrite64 time
. "$(dirname "$0")/lib.sh"
E=$B/redolog.so
have_backend LIBURING || skip "uring backend not built"
[ "$(id -u)" = 0 ] || skip "needs root (a tmpfs)"
command -v strace >/dev/null || skip "no strace"
T=$TMP/shm
mkdir -p "$T"
mount -t tmpfs -o size=64m tmpfs "$T" || skip "cannot mount a tmpfs"
at_exit "umount $T"
J=(--ioengine="external:$E" --directory="$T" --flavor=postgres --wal_segment_size=4m --wal_segments=4
	--bs=1m --iodepth=1 --rw=write --number_ios=100)
clean() { rm -rf "${T:?}"/* "$T"/.dbfio*; }

# the oracle: how long one >= 1 MiB pwrite64 to this tmpfs takes (strace -T, posix store)
clean
strace -f -T -e trace=pwrite64 -o "$TMP/st" "$FIO_BIN" --name=st "${J[@]}" --store=posix >/dev/null 2>&1 ||
	fail "the strace'd posix run failed"
wr_us=$(awk '/pwrite64\(/ { n = $0; sub(/.*, /, "", n); split(n, a, ")"); if (a[1] + 0 >= 1048576) {
	t = $NF; gsub(/[<>]/, "", t); s += t; c++ } } END { if (c) printf "%d", s / c * 1e6 }' "$TMP/st")
[ -n "$wr_us" ] && [ "$wr_us" -gt 0 ] || fail "no >= 1 MiB pwrite64 in the strace of the posix run"

sync_us() { json "$TMP/$1.json" "round(d['jobs'][0]['sync']['lat_ns']['mean'] / 1000)"; }
for st in posix uring; do
	clean
	run_fio $st --name=$st "${J[@]}" --store=$st || { cat "$TMP/$st.err"; fail "$st run failed"; }
	[ "$(json "$TMP/$st.json" "d['jobs'][0]['sync']['lat_ns']['N']")" = 100 ] || fail "$st: not 100 flushes"
done
p=$(sync_us posix) u=$(sync_us uring)
((p * 2 < wr_us)) || fail "posix: sync.lat_ns mean ${p} us is not below half a 1 MiB pwrite64 (${wr_us} us): it is not the flush alone"
((u * 2 >= wr_us)) || fail "uring: sync.lat_ns mean ${u} us is under half a 1 MiB pwrite64 (${wr_us} us): it does not cover the writes as documented"
ok "1 MiB pwrite64 (strace -T): ${wr_us} us; sync.lat_ns mean: posix ${p} us (flush alone), uring ${u} us (writes + flush)"
