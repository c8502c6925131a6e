#!/bin/bash
# Description: store layer on all five backends (local dir and the project's cluster): data, counts, errors, async, threads
# Timeout: 400
. "$(dirname "$0")/lib.sh"
need_cluster
rbd_cleanup "dbfio-test-store-$$"
cephfs_cleanup "/dbfio-test-store-$$"
n=0
run() {
	local be=$1; shift
	"$B/tests/store_backend_test" --store="$be" "$@"
	case $? in
	0) n=$((n + 1)) ;;
	77) fail "store=$be skipped: every backend must run here" ;;
	*) fail "store_backend_test --store=$be failed" ;;
	esac
}
for be in posix uring aio; do
	have_backend "$(case $be in uring) echo LIBURING;; aio) echo LIBAIO;; *) echo X;; esac)" || [ $be = posix ] || continue
	mkdir -p "$TMP/$be"
	run "$be" --root="$TMP/$be"
done
have_backend LIBCEPHFS && run cephfs --root="/dbfio-test-store-$$"
have_backend RBD && run rbd --rbdname="dbfio-test-store-$$" --rbd-size=268435456
[ "$n" -eq 5 ] || fail "only $n of 5 backends ran"
ok "$n backends"
