#!/bin/bash
# Description: txn client_tcp=1: each statement goes to the client and back over a 127.0.0.1 TCP connection (strace -yy)
# Tier: quick
# Timeout: 200
# In full: sysbench and pgbench reach their servers here over TCP on 127.0.0.1, and the kernel's
# loopback TCP path (the send, the receiver's wake-up on another core) is much of what a statement
# costs the real server beyond its own work, growing with connections (lab/journal.md). With
# client_tcp=1 the hand-over between a connection and its client thread takes that path. The
# oracle is strace -f -yy of fio: with 2 connections x 50 read_only transactions (16 statements
# each) there are at least 2 sends a statement (the statement to the client, back to the
# connection), each on a socket strace names TCP:[127.0.0.1:P->127.0.0.1:Q], and no eventfd is
# made; the same with client_process=1 (the client's end passed to the clients' process); and
# client_tcp=0 keeps the eventfds: no TCP socket at all.
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v strace >/dev/null || fail_or_skip "no strace"
stmts=$((2 * 50 * 16))
run() {	# run NAME ARGS...: strace of fio in $TMP/NAME.strace
	local n=$1; shift
	mkdir -p "$TMP/$n"
	strace -f -qq -yy -o "$TMP/$n.strace" -e trace=sendto,write,eventfd2,socket,connect,accept4 \
		"$FIO" --output-format=json --output="$TMP/$n.json" --name="$n" --ioengine="external:$E" \
		--directory="$TMP/$n" --rw=write --calibration=none --flavor=mariadb --txn_profile=read_only \
		--table_size=1000 --numjobs=2 --number_ios=50 --client_cpu_per_stmt=10us "$@" 2>"$TMP/$n.err" ||
		{ cat "$TMP/$n.err"; fail "$n: fio failed"; }
	[ "$(json "$TMP/$n.json" "sum(j['write']['total_ios'] for j in d['jobs'])")" = 100 ] ||
		fail "$n: fio did not complete 100 transactions"
}
tcp_sends() { grep -cE '(sendto|write)\([0-9]+<TCP:\[127\.0\.0\.1:[0-9]+->127\.0\.0\.1:[0-9]+\]>' "$TMP/$1.strace"; }
for mode in thread process; do
	run "tcp-$mode" --client_tcp=1 --client_process=$([ $mode = process ] && echo 1 || echo 0)
	s=$(tcp_sends "tcp-$mode")
	e=$(grep -c 'eventfd2(' "$TMP/tcp-$mode.strace")
	[ "$s" -ge $((2 * stmts)) ] ||
		fail "client_tcp=1 ($mode): $s sends on 127.0.0.1 TCP sockets for $stmts statements, want at least $((2 * stmts))"
	[ "$e" = 0 ] || fail "client_tcp=1 ($mode): $e eventfd2 calls, the hand-over must not use eventfds"
	ok "client_tcp=1, client as a $mode: $s sends on 127.0.0.1 TCP for $stmts statements, no eventfd"
done
run efd --client_tcp=0
s=$(tcp_sends efd)
e=$(grep -c 'eventfd2(' "$TMP/efd.strace")
[ "$s" = 0 ] && [ "$e" -ge 4 ] || fail "client_tcp=0: $s TCP sends, $e eventfd2 calls: want none and 2 a connection"
ok "client_tcp=0: $e eventfds, no TCP"
