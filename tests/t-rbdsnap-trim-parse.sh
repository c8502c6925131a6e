#!/bin/bash
# Description: rbdsnap reads a pool's removed-but-untrimmed snapshots from hand-written osd dump JSON
# Tier: quick
# In full: tests/unit/rbdsnap_trim_test: the osdmap's removed_snaps_queue in the layout of Ceph's
# OSDMap::dump, the counts summed by hand: the asked pool's intervals only (not another pool's, not
# new_removed_snaps'), an empty queue 0, a dump without the list -ENOTSUP, a truncated one -EINVAL.
. "$(dirname "$0")/lib.sh"
unit_test rbdsnap_trim_test
