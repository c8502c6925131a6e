#!/bin/bash
# Description: redolog SIGKILL on store=rbd with librbd write-back cache: logverify finds every acknowledged record
# Timeout: 300
# In full: redolog SIGKILL on store=rbd with librbd write-back cache: logverify finds every
# acknowledged record; with debug_skip_flush=1 it reports the loss
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "rbd backend not built"
IMG=redolog-test-crash-$$
# a killed client's watch on the image: rbd_rm blocklists it
rbd_cleanup "$IMG"
# librbd write-back cache (Pacific defaults to writearound) from the first write,
# dirty data kept up to 30 s:
# what a killed process did not flush dies with it
export CEPH_ARGS="--rbd_cache=true --rbd_cache_policy=writeback --rbd_cache_writethrough_until_flush=false --rbd_cache_max_dirty_age=30"

crash_store() { CRASH_STORE=(--store=rbd --rbdname=$IMG --rbd_size=256m); }
crash_verify() { timeout 120 "$B/logverify" --store=rbd --rbdname=$IMG "$TMP/$1.lsn"; }
redolog_crash_pair 2000000 300
