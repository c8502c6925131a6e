#!/bin/bash
# Description: an engine built against another fio version refuses to load with one line
# Timeout: 300
# In full: an engine built against another fio version refuses to load with one line (load-time check;
# configure-time is t-configure)
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-fault.sh"
VB=$REPO/build/vcheck	# only ever built with the fake version below
make -C "$REPO" --no-print-directory -j2 B="$VB" ENGINE_FIO_VERSION=fio-0.0 "$VB/storeio.so" \
	$(have_backend RBD && echo "$VB/rbdsnap.so") >"$TMP/make.log" 2>&1 || { tail -20 "$TMP/make.log"; fail "build"; }
running=$("$FIO" --version)
refuse v-storeio "storeio: fio version $running: this engine was built against fio-0.0" \
	--ioengine="external:$VB/storeio.so" --directory="$TMP" --size=1m --rw=write
[ "$(grep -c '^storeio: ' "$TMP/v-storeio.out")" = 1 ] || fail "not one line"
if have_backend RBD; then
	refuse v-rbdsnap "rbdsnap: fio version $running: this engine was built against fio-0.0" \
		--ioengine="external:$VB/rbdsnap.so" --pool=rbd --rbdname=none --rw=write --size=1m
fi
# and the real build accepts the running fio
run_fio same --name=same --ioengine="external:$B/storeio.so" --directory="$TMP" --size=1m --rw=write ||
	{ cat "$TMP/same.err"; fail "the engine built against $running refused it"; }
ok "version mismatch refused at load; matching version runs"
