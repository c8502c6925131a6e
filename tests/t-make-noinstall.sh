#!/bin/bash
# Description: plain make, ./configure, make install/clean/distclean never call apt-get or dpkg
# Timeout: 600
# In full: plain make, ./configure, make install/clean/distclean never call apt-get or dpkg (make
# without a configuration stops with one line); make -n check still reaches tools/deps
. "$(dirname "$0")/lib.sh"

# The oracle: apt-get, apt, dpkg and dpkg-query shadowed on PATH by a script
# that records its call and fails (so tools/deps, if it ran, would find every
# package missing and call apt-get).
SH=$TMP/shadow CALLS=$TMP/calls
mkdir -p "$SH"
for c in apt-get apt dpkg dpkg-query; do
	printf '#!/bin/sh\necho "%s $*" >>"%s"\nexit 1\n' "$c" "$CALLS" >"$SH/$c"
	chmod +x "$SH/$c"
done
: >"$CALLS"
export PATH="$SH:$PATH"
no_calls() { [ ! -s "$CALLS" ] || fail "$1 called: $(head -3 "$CALLS" | tr '\n' ';')"; }

# scratch copies of the source (tracked and new files, as `make` would see them)
copy() {
	mkdir -p "$1"
	(cd "$REPO" && git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
		[ -f "$f" ] && printf '%s\0' "$f"; done | tar --null -T - -cf -) | tar -C "$1" -xf - ||
		fail "cannot copy the source to $1"
}
S=$TMP/src
copy "$S"
[ -f "$S/Makefile" ] && [ ! -e "$S/build" ] || fail "the scratch copy is not a clean tree"

# 1. No configuration: make, make all, make install stop with one line naming ./configure.
for goal in "" all install; do
	out=$(make -C "$S" --no-print-directory $goal DESTDIR="$TMP/dest" 2>&1) &&
		fail "make $goal without build/config.mk succeeded: $out"
	no_calls "make $goal without build/config.mk"
	[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "make $goal without a configuration: not one line: $out"
	grep -q "run ./configure" <<<"$out" || fail "make $goal: the line does not say to run ./configure: $out"
	[ ! -e "$TMP/dest" ] || fail "make $goal installed something without a configuration"
done
ok "no configuration: make, make all, make install stop with: $out"

# 2. ./configure alone, fio's source not cached: one line naming what is missing and the command.
out=$(cd "$S" && DBFIO_CACHE="$TMP/nocache" ./configure 2>&1) && fail "configure without fio's source succeeded"
no_calls "./configure (no fio source cached)"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "configure without fio's source: not one line: $out"
grep -q -- "--fetch-fio-source" <<<"$out" && grep -q "no source of the installed fio" <<<"$out" ||
	fail "configure: the line does not name what is missing and the command: $out"
ok "configure, no fio source: $out"

# 3. make -n check reaches tools/deps (the set-up is still there), runs nothing.
out=$(make -C "$S" -n check 2>&1)
no_calls "make -n check"
grep -q "tools/deps" <<<"$out" || fail "make -n check does not reach tools/deps: $out"
ok "make -n check (no configuration) reaches tools/deps and calls nothing"

# 4. With a configuration: make builds every engine and calls nothing.
mkdir -p "$S/build"
cp "$REPO/build/config.mk" "$REPO/build/config.h" "$S/build/" || fail "no build/config.{mk,h} in $REPO (run ./configure)"
make -C "$S" -j2 -s >"$TMP/make.log" 2>&1 || { tail -20 "$TMP/make.log"; fail "make with a configuration failed"; }
no_calls "make (configured)"
for so in "$B"/*.so; do
	[ -f "$S/build/$(basename "$so")" ] || fail "make did not build $(basename "$so")"
done
[ -x "$S/build/logverify" ] || fail "make did not build build/logverify"
out=$(make -C "$S" -n check 2>&1)
grep -q "tools/deps" <<<"$out" || fail "make -n check (configured) does not reach tools/deps: $out"
make -C "$S" -s install DESTDIR="$TMP/dest" >"$TMP/install.log" 2>&1 || { cat "$TMP/install.log"; fail "make install"; }
libdir=$(sed -n 's/^LIBDIR := //p' "$S/build/config.mk")
[ -f "$TMP/dest$libdir/dbfio/storeio.so" ] || fail "make install put no storeio.so in \$DESTDIR$libdir/dbfio"
no_calls "make -n check / make install (configured)"
ok "configured: make built $(ls "$S"/build/*.so | wc -l) engines, make install installed them, nothing installed as a package"

# 5. clean removes every engine; distclean stops both clusters (none here) and removes build/.
touch "$S/build/rbdsnap.so"	# as if a configuration with librbd had built it
make -C "$S" -s clean >/dev/null 2>&1 || fail "make clean failed"
[ -z "$(ls "$S"/build/*.so 2>/dev/null)" ] && [ ! -e "$S/build/obj" ] || fail "make clean left $(ls "$S"/build/*.so "$S/build/obj" 2>/dev/null)"
out=$(make -C "$S" -n distclean 2>&1)
grep -q "cluster-seed003.*tools/cluster down" <<<"$out" || fail "make distclean does not stop the seed-like cluster: $out"
DBFIO_CLUSTER_DIR= DBFIO_SEED003_CLUSTER_DIR= make -C "$S" -s distclean >"$TMP/distclean.log" 2>&1 ||
	{ cat "$TMP/distclean.log"; fail "make distclean failed"; }
[ ! -e "$S/build" ] || fail "make distclean left build/"
no_calls "make clean/distclean"
ok "make clean removes every engine; make distclean stops build/cluster and build/cluster-seed003, removes build/"
