# tests/lib.sh - sourced by every test: paths, verdicts, the cluster, JSON.
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${DBFIO_BUILD:-$REPO/build}
FIO=${FIO:-fio}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dbfio-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# make check SANITIZE=1: the engines carry ASan+UBSan, the installed fio does
# not, so its runtime must be loaded first (as SPDK's test helper does). fio's
# own leaks are not ours; any sanitizer report aborts (non-zero exit).
if [ "${SANITIZE:-0}" = 1 ]; then
	export DBFIO_FIO_ASAN=$(gcc -print-file-name=libasan.so)
	printf '#!/bin/sh\nLD_PRELOAD=%s${LD_PRELOAD:+:$LD_PRELOAD} exec %s "$@"\n' \
		"$DBFIO_FIO_ASAN" "$(command -v "$FIO")" >"$TMP/fio-asan"
	chmod +x "$TMP/fio-asan"
	FIO=$TMP/fio-asan
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:allocator_may_return_null=1}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
fi

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
ok() { echo "ok: $*"; }

# Start (or join) the project's cluster and export CEPH_CONF. In CI a
# cluster that cannot start is a failure, never a skip.
need_cluster() {
	if [ -n "${DBFIO_TEST_CEPH_CONF:-}" ]; then	# an existing cluster, e.g. a developer's
		export CEPH_CONF=$DBFIO_TEST_CEPH_CONF
		return
	fi
	if ! "$REPO/tools/cluster" up >"$TMP/cluster-up.log" 2>&1; then
		cat "$TMP/cluster-up.log"
		[ "${CI:-}" = true ] && fail "the test cluster did not start"
		skip "the test cluster did not start (see log)"
	fi
	eval "$("$REPO/tools/cluster" env)"
	[ -n "${CEPH_CONF:-}" ] || fail "tools/cluster env printed no CEPH_CONF"
}

# Need the cluster's POSIX mounts (ceph-fuse CephFS, ext4 on rbd-fuse).
need_mounts() {
	need_cluster
	"$REPO/tools/cluster" mount >"$TMP/mounts" 2>&1 || { cat "$TMP/mounts"; fail "tools/cluster mount failed"; }
	CEPHFS_MNT=$(dirname "$CEPH_CONF")/mnt/cephfs
	EXT4RBD_MNT=$(dirname "$CEPH_CONF")/mnt/ext4rbd
	mountpoint -q "$CEPHFS_MNT" || fail "no CephFS mount at $CEPHFS_MNT"
	mountpoint -q "$EXT4RBD_MNT" || fail "no ext4-on-RBD mount at $EXT4RBD_MNT"
}

# Is a backend built in? (configure may have left it out)
have_backend() { grep -q "^CONFIG_$1 := y" "$B/config.mk"; }

# json FILE EXPR: evaluate a python expression on the parsed JSON (as d).
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# run_fio NAME ARGS...: fio with JSON output into $TMP/NAME.json, stderr into $TMP/NAME.err.
run_fio() {
	local name=$1; shift
	"$FIO" --output-format=json --output="$TMP/$name.json" "$@" 2>"$TMP/$name.err"
}
cd "$TMP" || exit 1
