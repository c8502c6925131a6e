#!/bin/bash
# Description: storeio locks directory= (not fio's working directory): two runs on one directory started from different cwds
# Timeout: 120
# In full: storeio locks directory= (not fio's working directory): two runs on one directory started
# from different cwds - the second is refused naming the first's pid; two runs on different
# directories from one cwd both run; a run from a read-only cwd works and leaves nothing there; a
# relative directory= is not doubled (rel/sub/rel/sub)
. "$(dirname "$0")/lib.sh"
E=$B/storeio.so
[ -f "$E" ] || fail "build/storeio.so missing (run make)"
[ "$(id -u)" = 0 ] || skip "needs root (a read-only tmpfs as the working directory)"
mkdir -p "$TMP/cwd1" "$TMP/cwd2" "$TMP/x" "$TMP/y" "$TMP/ro"
S=(--ioengine="external:$E" --store=posix --bs=4k --size=1m --rw=write --time_based)

# one directory, two cwds: the second is refused with the first's pid
(cd "$TMP/cwd1" && exec "$FIO" --name=a "${S[@]}" --directory="$TMP/x" --runtime=4 --rate_iops=100) \
	>"$TMP/a.out" 2>&1 &
a=$!
for _ in $(seq 100); do [ -e "$TMP/x/.dbfio-lock" ] && break; sleep 0.1; done
[ -e "$TMP/x/.dbfio-lock" ] || { cat "$TMP/a.out"; fail "no .dbfio-lock in directory= while the first run runs"; }
[ ! -e "$TMP/cwd1/.dbfio-lock" ] || fail "a lock file in fio's working directory"
(cd "$TMP/cwd2" && exec "$FIO" --name=b "${S[@]}" --directory="$TMP/x" --runtime=1) >"$TMP/b.out" 2>&1 &&
	{ cat "$TMP/b.out"; fail "a second run on $TMP/x (other cwd) was accepted"; }
line=$(grep -m1 "is in use by .*pid $a " "$TMP/b.out") || { cat "$TMP/b.out"; fail "the refusal does not name pid $a"; }
ok "same directory, other cwd: refused: $line"
wait $a || { cat "$TMP/a.out"; fail "the first run failed"; }

# two directories, one cwd: both run at once
(cd "$TMP/cwd1" && exec "$FIO" --name=c "${S[@]}" --directory="$TMP/x" --runtime=3 --rate_iops=100) \
	>"$TMP/c.out" 2>&1 &
c=$!
for _ in $(seq 100); do [ -e "$TMP/x/.dbfio-lock" ] && break; sleep 0.1; done
(cd "$TMP/cwd1" && exec "$FIO" --name=d "${S[@]}" --directory="$TMP/y" --runtime=1) >"$TMP/d.out" 2>&1 ||
	{ cat "$TMP/d.out"; fail "a run on $TMP/y was refused while another ran on $TMP/x from the same cwd"; }
wait $c || { cat "$TMP/c.out"; fail "the run on $TMP/x failed"; }
[ -s "$TMP/y/d.0.0" ] || fail "no data file d.0.0 in $TMP/y"
ok "different directories, one cwd: both ran"

# a read-only cwd; a relative directory= lands once (not dir/dir)
mount -t tmpfs -o ro,size=1m tmpfs "$TMP/ro" || skip "cannot mount a read-only tmpfs"
at_exit "umount $TMP/ro"
(cd "$TMP/ro" && exec "$FIO" --name=e "${S[@]}" --directory="$TMP/x" --runtime=1) >"$TMP/e.out" 2>&1 ||
	{ cat "$TMP/e.out"; fail "a run from a read-only cwd failed"; }
[ -z "$(ls -A "$TMP/ro")" ] || fail "files in the read-only cwd: $(ls -A "$TMP/ro")"
ok "read-only cwd: ran, data in $TMP/x: $(ls "$TMP/x" | tr '\n' ' ')"
mkdir -p "$TMP/rel/sub"
(cd "$TMP" && exec "$FIO" --name=f "${S[@]}" --directory=rel/sub --runtime=1) >"$TMP/f.out" 2>&1 ||
	{ cat "$TMP/f.out"; fail "a relative directory= failed"; }
[ -s "$TMP/rel/sub/f.0.0" ] && [ ! -e "$TMP/rel/sub/rel" ] ||
	fail "relative directory=rel/sub: files at $(cd "$TMP" && find rel -type f)"
ok "relative directory=rel/sub: $(cd "$TMP" && find rel -type f)"
