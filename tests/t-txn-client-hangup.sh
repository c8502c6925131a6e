#!/bin/bash
# Description: txn client thread: a failed hand-over or a killed clients' process ends the run with an error, not a hang
# Tier: quick
# Timeout: 300
# In full: a connection and its client hand each statement over and back; if one side's send fails
# or the clients' process dies, the other side must not wait for ever. Faults come from outside the
# engine: an LD_PRELOAD shim fails 8-byte sends from the Nth on (ECONNRESET), of the connection's side or of
# the client's (client_tcp=1, the client a thread of fio's or of the clients' process), and SIGKILL
# ends the clients' process mid-run (client_process=1, over eventfds and over TCP). The oracle:
# fio ends within 30 s of a 30 s run, fails with a line "client thread: <the errno's text>", does not
# crash, and no process of the run is left behind. Sanitized, only the thread cases run (below).
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
cat >"$TMP/failsend.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
/* FAILSEND_AT=N: from the Nth 8-byte send on (a broken connection stays broken), of a process on
   the side FAILSEND_IN (host: the session leader) */
static int calls;
ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	static ssize_t (*real)(int, const void *, size_t, int);
	const char *at = getenv("FAILSEND_AT"), *in = getenv("FAILSEND_IN");
	int host = getsid(0) == getpid();
	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, int))dlsym(RTLD_NEXT, "send");
	if (at && in && len == 8 && host == !strcmp(in, "host") &&
	    __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST) >= atoi(at)) {
		errno = ECONNRESET;
		return -1;
	}
	return real(fd, buf, len, flags);
}
C
gcc -shared -fPIC -O2 -o "$TMP/failsend.so" "$TMP/failsend.c" -ldl || fail "cannot build the shim"

# run NAME ENV... -- ARGS...: fio (a 30 s run, one connection) in the background; FIO_PID
run() {
	local n=$1 envs=()
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	mkdir -p "$TMP/$n"
	env "${envs[@]}" DBFIO_HANGUP_RUN="$$-$n" timeout -s KILL 60 "$FIO" --name="$n" \
		--ioengine="external:$E" --directory="$TMP/$n" --rw=write --calibration=none \
		--flavor=mariadb --txn_profile=read_only --table_size=1000 --numjobs=1 \
		--time_based --runtime=30 --client_cpu_per_stmt=10us "$@" >"$TMP/$n.out" 2>&1 &
	FIO_PID=$!
	T0=$SECONDS
}
# procs NAME: pids of processes left from run NAME (its environment marks them)
procs() { grep -lsz "^DBFIO_HANGUP_RUN=$$-$1\$" /proc/[0-9]*/environ | cut -d/ -f3; }
# ended NAME ERRNO-TEXTS: fio ended in time with the error line, nothing left behind
ended() {
	local n=$1 want=$2 rc
	wait "$FIO_PID"
	rc=$?
	[ $rc = 137 ] && fail "$n: fio hung (killed after 60 s)"
	crash_check "$n" $rc "$TMP/$n.out"
	[ $rc != 0 ] || { cat "$TMP/$n.out"; fail "$n: fio succeeded after the fault"; }
	grep -Eq "client thread: ($want)" "$TMP/$n.out" ||
		{ cat "$TMP/$n.out"; fail "$n: no line 'client thread: $want'"; }
	((SECONDS - T0 < 30)) || fail "$n: fio took $((SECONDS - T0)) s: it ran out its 30 s instead of failing"
	local left
	left=$(procs "$n")
	[ -z "$left" ] || { ps -o pid,sid,args -p "$left"; fail "$n: processes left behind: $left"; }
	ok "$n: fio exit $rc after $((SECONDS - T0)) s: $(grep -m1 "client thread: " "$TMP/$n.out")"
}

shim=(LD_PRELOAD="$TMP/failsend.so${LD_PRELOAD:+:$LD_PRELOAD}")
# one connection: its sends are 1, 3, 5..., its client's 2, 4, 6 (a client thread shares the count)
run conn-thread "${shim[@]}" FAILSEND_AT=5 FAILSEND_IN=fio -- --client_tcp=1
ended conn-thread "Connection reset by peer"
run client-thread "${shim[@]}" FAILSEND_AT=6 FAILSEND_IN=fio -- --client_tcp=1
ended client-thread "Broken pipe"
# client_process=1 forks the clients' process from fio's threads. glibc's fork() leaves malloc
# usable in the child, GCC 12's libasan does not: its allocator's lock, held by another of fio's
# threads at the fork, stays held in the child, whose first client thread then waits on it for ever
# (gdb: SizeClassAllocator64::GetFromAllocator under pthread_getattr_np). Sanitized (make check
# SANITIZE=1), only the thread cases run; the plain build runs them all.
if [ "${SANITIZE:-0}" = 1 ]; then
	echo "skip: client_process=1 cases: GCC 12's libasan allocator is not fork-safe (the plain build runs them)"
	exit 0
fi
run conn-process "${shim[@]}" FAILSEND_AT=3 FAILSEND_IN=fio -- --client_tcp=1 --client_process=1
ended conn-process "Connection reset by peer"
run client-process "${shim[@]}" FAILSEND_AT=3 FAILSEND_IN=host -- --client_tcp=1 --client_process=1
ended client-process "Broken pipe"

# SIGKILL the clients' process: the run's session leader that is not fio
for tcp in 0 1; do
	n=kill-host-tcp$tcp
	run $n -- --client_process=1 --client_tcp=$tcp
	host=
	for _ in $(seq 100); do
		for p in $(procs $n); do
			[ "$(ps -o sid= -p "$p" | tr -d ' ')" = "$p" ] && host=$p
		done
		[ -n "$host" ] && break
		sleep 0.1
	done
	[ -n "$host" ] || { kill -KILL "$FIO_PID"; fail "$n: no clients' process found"; }
	sleep 2
	kill -KILL "$host"
	# a socket closed with data unread resets the connection rather than ending it
	ended $n "Broken pipe$([ $tcp = 1 ] && echo "|Connection reset by peer")"
done
