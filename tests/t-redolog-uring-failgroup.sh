#!/bin/bash
# Description: redolog store=uring, a write failing in a group straddling two log files: error, no use-after-free (ASan)
# Timeout: 300
# In full: redolog store=uring, a write failing in a group that straddles two log files (ib_logfile1
# made immutable mid-run: the kernel fails its writes with EPERM while ib_logfile0's linked fdatasync
# is still running) - under ASan the job ends with the error and no heap-use-after-free (the group's
# other requests are reaped before the log's buffers are freed)
. "$(dirname "$0")/lib.sh"
have_backend LIBURING || skip "uring backend not built"
[ "$(id -u)" = 0 ] || skip "needs root (chattr +i)"
command -v chattr >/dev/null || skip "no chattr"
# the sanitized engine (tests/run with SANITIZE=1 already points B at one)
AB=$B
if ! nm -D "$B/redolog.so" 2>/dev/null | grep -q __asan_; then
	AB=$REPO/build/asan
	make -C "$REPO" --no-print-directory -j2 B="$AB" SANITIZE=1 "$AB/redolog.so" >"$TMP/make.log" 2>&1 ||
		{ tail -20 "$TMP/make.log"; fail "the sanitized build failed"; }
fi
ASAN=$(gcc -print-file-name=libasan.so)
[ -f "$ASAN" ] || skip "no libasan.so"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:detect_odr_violation=0
D=$TMP/d
mkdir -p "$D"
touch "$D/ib_logfile1"
chattr +i "$D/ib_logfile1" 2>/dev/null || skip "$TMP's file system has no immutable flag"
chattr -i "$D/ib_logfile1"; rm -f "$D/ib_logfile1"
unfreeze() { chattr -i "$D"/ib_logfile* 2>/dev/null; }
at_exit unfreeze

# 2 files of 8 MiB, 4 KiB commits at <= 2000/s: the log is in ib_logfile0 for
# ~1 s after set-up. ib_logfile1 turns immutable (ext4 then fails every
# write to it with EPERM, at submission) once set-up has written it: the
# first group to reach it straddles both files, a linked write+fdatasync on
# each, and the ib_logfile1 pair fails while ib_logfile0's is in flight.
(
	for i in $(seq 3000); do
		f=$D/ib_logfile1
		if [ -f "$f" ] && [ "$(stat -c %s "$f")" -ge 8388608 ]; then
			sleep 0.2
			chattr +i "$f" && echo frozen >"$TMP/frozen"
			break
		fi
		sleep 0.01
	done
) &
W=$!
LD_PRELOAD=$ASAN "$FIO_BIN" --name=fg --ioengine="external:$AB/redolog.so" --directory="$D" \
	--store=uring --flavor=mysql --innodb_use_fdatasync=1 --innodb_log_files_in_group=2 \
	--innodb_log_file_size=8m --bs=4k --iodepth=16 --rw=write --number_ios=4000 --rate_iops=2000 \
	--output-format=json --output="$TMP/fg.json" >"$TMP/fg.out" 2>&1
rc=$?
wait $W
if grep -q "ERROR: AddressSanitizer" "$TMP/fg.out"; then
	grep -A20 "ERROR: AddressSanitizer" "$TMP/fg.out" | head -30
	fail "ASan report after the failed group (fio exit $rc)"
fi
((rc < 128)) || { tail -20 "$TMP/fg.out"; fail "fio crashed (exit $rc)"; }
[ -f "$TMP/frozen" ] || fail "ib_logfile1 was never made immutable"
line=$(grep -m1 "^redolog: pwrite+fdatasync(ib_logfile1) failed: Operation not permitted" "$TMP/fg.out") ||
	{ tail -20 "$TMP/fg.out"; fail "no failed linked write to ib_logfile1 (fio exit $rc): the log reached it before it was frozen?"; }
[ "$rc" != 0 ] || fail "fio exit 0 after a failed log write"
ok "fio exit $rc, no sanitizer report: $line"
