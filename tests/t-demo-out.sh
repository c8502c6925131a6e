#!/bin/bash
# Description: tools/demo --out DIR removes only a directory it made (its marker inside), an empty or a new one
# Timeout: 60
# In full: tools/demo --out DIR removes only a directory it made (its marker inside), an empty or a
# new one: a directory with a sentinel file, or a symlink to one, is refused in one line before
# anything runs and the sentinel survives (md5sum); a marked directory is emptied and marked again
. "$(dirname "$0")/lib.sh"
DEMO=$REPO/tools/demo
# a cluster directory that cannot be made: tools/cluster up fails at once, so
# no cluster is started or touched and a demo that got past --out stops there
: >"$TMP/notadir"
export DBFIO_CLUSTER_DIR=$TMP/notadir/cluster DBFIO_CLUSTER_PORT=39950
demo() { "$DEMO" --no-gluster --out "$@" >"$TMP/demo.out" 2>"$TMP/demo.err"; }

# refused OUT: one line naming --out, nothing else run, the sentinel intact
refused() {
	local what=$1 out=$2 sentinel=$3 sum
	sum=$(md5sum <"$sentinel")
	demo "$out" && { cat "$TMP/demo.err"; fail "$what: tools/demo accepted --out $out"; }
	[ "$(md5sum <"$sentinel" 2>/dev/null)" = "$sum" ] || fail "$what: the sentinel $sentinel is gone or changed"
	[ "$(wc -l <"$TMP/demo.err")" = 1 ] && grep -q "^demo: --out $out: .*refusing to remove it" "$TMP/demo.err" ||
		{ cat "$TMP/demo.err"; fail "$what: not one line refusing --out $out"; }
	ok "$what: $(cat "$TMP/demo.err")"
}
mkdir "$TMP/mine"
head -c 4096 /dev/urandom >"$TMP/mine/sentinel"
refused "a directory of the user's" "$TMP/mine" "$TMP/mine/sentinel"
ln -s "$TMP/mine" "$TMP/link"
refused "a symlink to one" "$TMP/link" "$TMP/mine/sentinel"
# a marker that is a symlink is not one tools/demo wrote
ln -s "$TMP/mine/sentinel" "$TMP/mine/.dbfio-demo-out"
refused "a directory with a symlinked marker" "$TMP/mine" "$TMP/mine/sentinel"
rm "$TMP/mine/.dbfio-demo-out"

# ours: emptied and marked again (then the cluster step fails, as arranged)
demo "$TMP/new"
grep -q "did not start" "$TMP/demo.err" || { cat "$TMP/demo.err"; fail "a new --out: demo did not reach the cluster step"; }
[ -f "$TMP/new/.dbfio-demo-out" ] || fail "a new --out: no marker written"
echo "an old page" >"$TMP/new/old.md"
demo "$TMP/new"
grep -q "did not start" "$TMP/demo.err" || { cat "$TMP/demo.err"; fail "a marked --out was refused"; }
[ ! -e "$TMP/new/old.md" ] && [ -f "$TMP/new/.dbfio-demo-out" ] || fail "a marked --out was not emptied and marked again"
ok "a directory tools/demo made is emptied and marked again"
mkdir "$TMP/empty"
demo "$TMP/empty"
grep -q "did not start" "$TMP/demo.err" && [ -f "$TMP/empty/.dbfio-demo-out" ] ||
	{ cat "$TMP/demo.err"; fail "an empty --out was refused"; }
ok "an empty directory is taken"
