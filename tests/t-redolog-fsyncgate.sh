#!/bin/bash
# Description: redolog fsyncgate on posix: one injected fsync/fdatasync failure (LD_PRELOAD shim)
# Timeout: 120
# In full: redolog fsyncgate on posix: one injected fsync/fdatasync failure (LD_PRELOAD shim) - the
# job errors and nothing is acknowledged after it, neither by later groups (continue_on_error) nor by
# the shutdown flush
. "$(dirname "$0")/lib.sh"
E=$B/redolog.so
[ -f "$E" ] || fail "build/redolog.so missing (run make)"
# The shim fails the Nth fsync/fdatasync of the process with EIO (as Linux
# reports a failed writeback once, then the next fsync succeeds) and notes
# the sidecar's acknowledged LSN at that moment. It shares no code with the engine.
cat >"$TMP/failsync.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static int calls;
static int fail_now(void)
{
	const char *at = getenv("FAILSYNC_AT"), *side = getenv("FAILSYNC_SIDE"), *note = getenv("FAILSYNC_NOTE");
	unsigned long long ack = 0;
	FILE *f;
	int fd;
	if (!at || __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST) != atoi(at))
		return 0;
	fd = open(side, O_RDONLY);
	if (fd >= 0 && pread(fd, &ack, 8, 8) != 8)
		ack = ~0ull;
	if (fd >= 0)
		close(fd);
	f = fopen(note, "w");
	if (f) {
		fprintf(f, "%llu\n", ack);
		fclose(f);
	}
	errno = EIO;
	return 1;
}
int fsync(int fd)
{
	static int (*real)(int);
	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	return fail_now() ? -1 : real(fd);
}
int fdatasync(int fd)
{
	static int (*real)(int);
	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	return fail_now() ? -1 : real(fd);
}
C
gcc -shared -fPIC -O2 -o "$TMP/failsync.so" "$TMP/failsync.c" -ldl || fail "cannot build the shim"
# fio writes its io_u error lines into --output ahead of the JSON
jerr() { py json-text "$1" "$2"; }

gate() {	# gate NAME FLAVOR ARGS...
	local n=$1 fl=$2; shift 2
	mkdir -p "$TMP/$n"
	FAILSYNC_AT=60 FAILSYNC_SIDE="$TMP/$n.lsn" FAILSYNC_NOTE="$TMP/$n.note" \
		LD_PRELOAD="$TMP/failsync.so${LD_PRELOAD:+:$LD_PRELOAD}" \
		"$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" --ioengine="external:$E" \
		--directory="$TMP/$n" --rw=write --flavor=$fl --bs=512 --number_ios=2000 --iodepth=4 \
		--innodb_log_file_size=4m --wal_segment_size=1m --lsn_file="$TMP/$n.lsn" "$@" 2>"$TMP/$n.err"
	local rc=$? err before after
	[ -s "$TMP/$n.note" ] || { cat "$TMP/$n.err"; fail "$n: the shim never failed a flush"; }
	((rc < 128)) || fail "$n: fio crashed (exit $rc)"
	err=$(jerr "$TMP/$n.json" "d['jobs'][0]['error']")
	[ "$err" != 0 ] || fail "$n: fio reported no error after a failed flush"
	before=$(cat "$TMP/$n.note")
	after=$(lsn_acked "$TMP/$n.lsn")
	[ "$after" = "$before" ] ||
		fail "$n: acknowledged LSN moved from $before (at the failed flush) to $after: records the failed flush covered were acknowledged"
	grep -q "^redolog: .*failed: Input/output error" "$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: no error line naming the failed flush"; }
	ok "$n: fio error $err; acknowledged LSN stays $before after the failed flush; $(grep -m1 '^redolog: .*failed' "$TMP/$n.err")"
}
gate mysql mysql
gate postgres postgres
# fio carries on past errors: every later group must fail too, nothing acknowledged
gate mysql-continue mysql --continue_on_error=all
n=$(jerr "$TMP/mysql-continue.json" "d['jobs'][0]['total_err']")
((n > 100)) || fail "mysql-continue: only $n commits failed after the failed flush"
ok "mysql-continue: $n later commits failed"
