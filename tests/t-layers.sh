#!/bin/bash
# Description: layering: no engine outside the store layer names a backend kind (STORE_RBD...) or includes a backend's header; no store file includes fio.h
. "$(dirname "$0")/lib.sh"
# The store layer is engines/store.[ch] and engines/store_*.[ch]; storeio.c is
# an fio engine over it (it must include fio.h, it must not name a backend).
E="$REPO/engines"
[ -f "$E/store.h" ] || fail "no $E/store.h"
# the kinds, read from the enum itself, so a sixth backend is covered too
kinds=$(sed -n '/^enum store_backend {/,/^};/p' "$E/store.h" |
	grep -o '\bSTORE_[A-Z0-9_]*' | grep -vx 'STORE_NR_BACKENDS' | paste -sd'|')
[ -n "$kinds" ] && [ "$(echo "$kinds" | tr '|' '\n' | wc -l)" -ge 5 ] ||
	fail "could not read the backend kinds from enum store_backend in store.h (got '$kinds')"
ops=$(grep -o '\bstore_[a-z0-9]*_ops\b' "$E/store.h" | sort -u | paste -sd'|')
layer() { case "$(basename "$1")" in store.[ch]|store_*.[ch]) return 0 ;; esac; return 1; }
bad=0
for f in "$E"/*.[ch]; do
	layer "$f" && continue
	if grep -nwE "$kinds|$ops" "$f"; then
		echo "FAIL: $(basename "$f") names a backend kind: ask store_caps()/store_backend_caps() instead"
		bad=1
	fi
	if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"store_[a-z0-9_]*\.h"' "$f"; then
		echo "FAIL: $(basename "$f") includes a backend's private header"
		bad=1
	fi
done
for f in "$E"/store.c "$E"/store_*.c "$E"/store.h "$E"/store_*.h; do
	[ -f "$f" ] || continue
	if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](fio|optgroup)\.h[>"]' "$f"; then
		echo "FAIL: $(basename "$f") is store layer and includes fio's headers"
		bad=1
	fi
done
[ $bad = 0 ] || exit 1
ok "engines ask capabilities (kinds: $kinds); the store layer is fio-free"
