#!/bin/bash
# Description: store layer on the local backends (posix, uring, aio) in a temporary directory: data, counts, errors
# Tier: quick
# store_backend_test on each local backend configure found; t-store-backends adds the Ceph ones.
. "$(dirname "$0")/lib.sh"
T=$B/tests/store_backend_test
[ -x "$T" ] || fail "$T missing (run make)"
n=0
for be in posix uring aio; do
	case $be in uring) k=LIBURING ;; aio) k=LIBAIO ;; *) k= ;; esac
	[ -z "$k" ] || have_backend "$k" || continue
	mkdir -p "$TMP/$be"
	"$T" --store="$be" --root="$TMP/$be" >"$TMP/$be.log" 2>&1
	rc=$?
	[ $rc = 0 ] || { cat "$TMP/$be.log"; fail "store_backend_test --store=$be exit $rc"; }
	n=$((n + 1))
done
ok "$n local backends"
