#!/bin/bash
# Description: redolog SIGKILL on store=cephfs: logverify finds every acknowledged record (the loss with debug_skip_flush=1)
# Timeout: 300
# In full: redolog SIGKILL on store=cephfs (libcephfs client cache dies with the process): logverify
# finds every acknowledged record; with debug_skip_flush=1 it reports the loss
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend LIBCEPHFS || fail "cephfs backend not built"
ROOT=/redolog-test-kill-$$
cephfs_cleanup "$ROOT-flushed" "$ROOT-skipped"
# dirty data stays in the client's object cache up to 30 s (default 5 s):
# what the killed process did not fsync dies with it
export CEPH_ARGS="--client_oc_max_dirty_age=30"

crash_store() { CRASH_STORE=(--store=cephfs --store_root="$ROOT-$1"); }
crash_after() { cephfs_evict "$1"; }	# the MDS hands the dead client's caps to logverify at once
crash_verify() { timeout 150 "$B/logverify" --store=cephfs --store-root="$ROOT-$1" "$TMP/$1.lsn"; }
redolog_crash_pair 1000000 600
