#!/bin/bash
# Description: every engine refuses, in one line naming itself, the two fio modes that run its hooks outside the job's thread
# Tier: quick
# In full: every engine refuses, in one line naming itself, the two fio modes that run its hooks
# outside the job's thread: io_submit_mode=offload (fio's workers run init/queue/cleanup on copies of
# the job, cleanup without td->eo) and create_serialize=0 (setup after init, in a forked process); no
# crash
. "$(dirname "$0")/lib.sh"
D=$TMP/d; mkdir -p "$D"
n=0
for so in "$B"/*.so; do
	[ "$(basename "$so")" = libdbfio.so ] && continue	# the store layer, not an engine
	[ -e "$so" ] || fail "no engine built in $B"
	e=$(basename "$so" .so)
	common=(--name=x --ioengine="external:$so" --directory="$D" --filename=f --size=64k --bs=4k --rw=write --number_ios=4)
	# refused in setup, before the parent job or any worker ran init
	run_fio "$e-offload" "${common[@]}" --io_submit_mode=offload --iodepth=2 &&
		fail "$e: io_submit_mode=offload accepted"
	grep -q "^$e: .*offload" "$TMP/$e-offload.err" || { cat "$TMP/$e-offload.err"; fail "$e: offload not refused in a line naming $e"; }
	for thr in 0 1; do
		run_fio "$e-cs$thr" "${common[@]}" --create_serialize=0 --thread=$thr &&
			fail "$e: create_serialize=0 thread=$thr accepted"
		grep -q "^$e: create_serialize=0" "$TMP/$e-cs$thr.err" ||
			{ cat "$TMP/$e-cs$thr.err"; fail "$e: create_serialize=0 thread=$thr not refused in a line naming $e"; }
	done
	n=$((n + 1))
done
[ ! -e "$D/f" ] || fail "a refused job wrote $D/f"
ok "$n engines refuse io_submit_mode=offload and create_serialize=0 (thread=0 and 1) in one line, without a crash"
