#!/bin/bash
# Description: every engine exports only 'ioengine', matches fio's ABI version and lists its options
. "$(dirname "$0")/lib.sh"
cd "$REPO"
ioops=$(sed -n 's/^FIO_IOOPS_VERSION := //p' build/config.mk)
n=0
for so in build/*.so; do
	[ -e "$so" ] || fail "no engine built"
	syms=$(nm -D --defined-only "$so" | awk '{print $3}')
	[ "$syms" = ioengine ] || fail "$so exports more than ioengine: $syms"
	name=$(basename "$so" .so)
	help=$($FIO --enghelp="$so" 2>&1) || fail "fio --enghelp=$so failed: $help"
	echo "$help" | grep -q "^store *:" || [ "$name" = rbdsnap ] || fail "$name: --enghelp lists no store option"
	n=$((n + 1))
done
# The struct ioengine_ops version must equal the installed fio's.
cat >"$TMP/v.c" <<C
#include <dlfcn.h>
#include <stdio.h>
struct ops { void *l[2]; const char *name; int version; };
int main(int c, char **v) {
	void *h = dlopen(v[1], RTLD_LAZY);
	struct ops *o = h ? dlsym(h, "ioengine") : NULL;
	if (!o) { printf("%s\n", dlerror()); return 1; }
	printf("%d\n", o->version); return 0;
}
C
gcc -o "$TMP/v" "$TMP/v.c" -ldl || fail "cannot build the version probe"
for so in build/*.so; do
	v=$("$TMP/v" "$so") || fail "dlopen $so: $v"
	[ "$v" = "$ioops" ] || fail "$so has ioops version $v, fio has $ioops"
done
ok "$n engines"
