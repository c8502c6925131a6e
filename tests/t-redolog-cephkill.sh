#!/bin/bash
# Description: redolog SIGKILL on store=cephfs (libcephfs client cache dies with the process): logverify finds every acknowledged record; with debug_skip_flush=1 it reports the loss
# Timeout: 300
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend LIBCEPHFS || fail "cephfs backend not built"
E=$B/redolog.so
ROOT=/redolog-test-kill-$$
cleanup() {
	for r in flushed skipped; do
		/usr/bin/python3 - "$ROOT-$r" >/dev/null 2>&1 <<'PY'
import cephfs, os, sys
fs = cephfs.LibCephFS(conffile=os.environ['CEPH_CONF']); fs.mount()
d = fs.opendir(sys.argv[1]); names = []
while True:
    e = fs.readdir(d)
    if not e: break
    if e.d_name not in (b'.', b'..'): names.append(e.d_name.decode())
fs.closedir(d)
for n in names: fs.unlink(sys.argv[1] + '/' + n)
fs.rmdir(sys.argv[1]); fs.shutdown()
PY
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
# dirty data stays in the client's object cache up to 30 s (default 5 s):
# what the killed process did not fsync dies with it
export CEPH_ARGS="--client_oc_max_dirty_age=30"

# evict the dead client's session so the MDS hands its caps to logverify at once
evict() {	# evict PID
	local id
	id=$(ceph tell mds.0 session ls --format=json 2>/dev/null | python3 -c "
import json, sys
for s in json.load(sys.stdin):
    if str(s.get('client_metadata', {}).get('pid')) == sys.argv[1]: print(s['id'])" "$1")
	[ -n "$id" ] && ceph tell mds.0 client evict id="$id" >/dev/null 2>&1
}

crash() {	# crash NAME EXTRA...: run, SIGKILL once commits were acknowledged, logverify
	local name=$1 i ack; shift
	"$FIO" --name="$name" --ioengine="external:$E" --store=cephfs --store_root="$ROOT-$name" \
		--flavor=mysql --innodb_log_file_size=8m --bs=4k --iodepth=4 --rw=write --size=1g \
		--time_based --runtime=60 --lsn_file="$TMP/$name.lsn" "$@" >"$TMP/$name.out" 2>&1 &
	local pid=$!
	for i in $(seq 1 600); do
		ack=$([ -s "$TMP/$name.lsn" ] && od -An -tu8 -j8 -N8 "$TMP/$name.lsn" | tr -d ' ')
		[ "${ack:-0}" -gt 1000000 ] && break
		kill -0 $pid 2>/dev/null || { cat "$TMP/$name.out"; fail "$name: fio exited early"; }
		sleep 0.1
	done
	kill -KILL $pid; wait $pid 2>/dev/null
	[ "${ack:-0}" -gt 0 ] || fail "$name: nothing acknowledged before the kill"
	evict $pid
	timeout 150 "$B/logverify" --store=cephfs --store-root="$ROOT-$name" "$TMP/$name.lsn" >"$TMP/$name.lv" 2>&1
	echo $? >"$TMP/$name.rc"
}

crash flushed
rc=$(cat "$TMP/flushed.rc")
[ "$rc" = 0 ] || { cat "$TMP/flushed.lv"; fail "after SIGKILL, logverify exit $rc with flushes on"; }
ok "SIGKILL with flushes: $(cat "$TMP/flushed.lv")"

crash skipped --debug_skip_flush=1
rc=$(cat "$TMP/skipped.rc")
[ "$rc" = 1 ] || { cat "$TMP/skipped.lv"; fail "after SIGKILL without flushes, logverify exit $rc (expected 1: loss)"; }
ok "SIGKILL with debug_skip_flush=1: $(cat "$TMP/skipped.lv")"
