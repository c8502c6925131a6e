#!/bin/bash
# Description: store_reap on a dead io_uring ring / aio context returns -errno instead of 0 forever
# Tier: quick
# Timeout: 60
# In full: store_reap on a dead io_uring ring / aio context (killed from outside: ring fd replaced,
# io_destroy) returns -errno instead of 0 forever
. "$(dirname "$0")/lib.sh"
T=$B/tests/store_dead_test
[ -x "$T" ] || fail "$T missing (run make)"
n=0
for st in uring aio; do
	case $st in
	uring) have_backend LIBURING || continue ;;
	aio) have_backend LIBAIO || continue ;;
	esac
	mkdir -p "$TMP/$st"
	out=$(timeout 20 "$T" --store=$st --dir="$TMP/$st"); rc=$?
	case $rc in
	0) ok "$out"; n=$((n + 1)) ;;
	77) echo "$out" ;;
	*) fail "$st (exit $rc): $out" ;;
	esac
done
[ $n -ge 1 ] || skip "neither uring nor aio could run here"
