#!/bin/bash
# Description: layering: engines/store/ is the store layer (fio-free); no file outside it names a backend kind
# Tier: quick
# In full: layering: engines/store/ is the store layer (fio-free); no file outside it names a backend
# kind (STORE_RBD...) or includes a backend's header; every engine lives in its own folder
. "$(dirname "$0")/lib.sh"
# engines/store/: the store layer and its backends (no fio header);
# engines/glue/: the fio glue; engines/<engine>/: one engine each.
E="$REPO/engines"
[ -f "$E/store/store.h" ] || fail "no $E/store/store.h"
# the kinds, read from the enum itself, so a sixth backend is covered too
kinds=$(sed -n '/^enum store_backend {/,/^};/p' "$E/store/store.h" |
	grep -o '\bSTORE_[A-Z0-9_]*' | grep -vx 'STORE_NR_BACKENDS' | paste -sd'|')
[ -n "$kinds" ] && [ "$(echo "$kinds" | tr '|' '\n' | wc -l)" -ge 5 ] ||
	fail "could not read the backend kinds from enum store_backend in store/store.h (got '$kinds')"
ops=$(grep -o '\bstore_[a-z0-9]*_ops\b' "$E/store/store.h" | sort -u | paste -sd'|')
bad=0
loose=$(find "$E" -maxdepth 1 -type f -name '*.[ch]')
[ -z "$loose" ] || { echo "FAIL: sources outside a folder: $loose"; bad=1; }
while IFS= read -r f; do
	if grep -nwE "$kinds|$ops" "$f"; then
		echo "FAIL: ${f#$E/} names a backend kind: ask store_caps()/store_backend_caps() instead"
		bad=1
	fi
	if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"(store/)?store_[a-z0-9_]*\.h"' "$f"; then
		echo "FAIL: ${f#$E/} includes a backend's private header"
		bad=1
	fi
done < <(find "$E" -mindepth 2 -name '*.[ch]' ! -path "$E/store/*")
for f in "$E"/store/*.[ch]; do
	if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](fio|optgroup)\.h[>"]' "$f"; then
		echo "FAIL: store/$(basename "$f") is store layer and includes fio's headers"
		bad=1
	fi
done
# an engine is a folder with <name>/<name>.c, and build/<name>.so is what users type
for d in "$E"/*/; do
	n=$(basename "$d")
	case $n in store|glue) continue ;; esac
	[ -f "$d/$n.c" ] || { echo "FAIL: engines/$n/ has no $n.c (the fio hooks)"; bad=1; }
done
[ $bad = 0 ] || exit 1
ok "engines ask capabilities (kinds: $kinds); engines/store/ is fio-free; one folder per engine"
