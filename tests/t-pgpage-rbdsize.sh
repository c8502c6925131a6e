#!/bin/bash
# Description: pgpage on store=rbd checks the geometry against the existing image's real size, not rbd_size
# Timeout: 300
# In full: pgpage on store=rbd checks the geometry against the existing image's real size, not
# rbd_size: a too small image is refused at start-up in one line, a large one runs whatever rbd_size
# says
. "$(dirname "$0")/lib.sh"
need_cluster
have_backend RBD || skip "rbd backend not built"
SMALL=dbfio-test-pgsmall-$$ BIG=dbfio-test-pgbig-$$
rbd_cleanup $SMALL $BIG	# a watch still held: rbd_rm blocklists it
# the images exist before the runs (the rbd CLI made them): their size is what counts
rbd create -p rbd --size 64M $SMALL || fail "rbd create $SMALL"
rbd create -p rbd --size 512M $BIG || fail "rbd create $BIG"
# 8 relations of 16 MiB: 8 x 16 MiB extents + the table > 64 MiB, < 512 MiB
PG=(--ioengine="external:$B/pgpage.so" --store=rbd --relations=8 --relation_size=16m --segment_size=16m
    --bs=8k --rw=randwrite --number_ios=2000 --checkpoint_timeout=0)

# the small image with the default rbd_size (4G): refused before any I/O, in one line
run_fio small --name=small "${PG[@]}" --rbdname=$SMALL && fail "$SMALL (64 MiB): the run was not refused"
[ "$(grep -c '^pgpage: ' "$TMP/small.err")" = 1 ] && grep -q "image rbd/$SMALL has no room" "$TMP/small.err" ||
	{ cat "$TMP/small.err"; fail "$SMALL: not one line saying the image is too small"; }
w=$(json "$TMP/small.json" "d['jobs'][0]['write']['total_ios']" 2>/dev/null || echo 0)
[ "$w" = 0 ] || fail "$SMALL: $w page writes before the refusal (expected none)"
ok "64 MiB image refused at start-up: $(grep '^pgpage: ' "$TMP/small.err")"

# the big image with rbd_size=64m (only used to create an image): runs
run_fio big --name=big "${PG[@]}" --rbdname=$BIG --rbd_size=64m || { cat "$TMP/big.err"; fail "$BIG (512 MiB) with rbd_size=64m refused"; }
[ "$(json "$TMP/big.json" "d['jobs'][0]['write']['total_ios']")" = 2000 ] || fail "$BIG: not 2000 page writes"
ok "512 MiB image with rbd_size=64m: 2000 page writes"
