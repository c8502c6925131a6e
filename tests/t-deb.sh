#!/bin/bash
# Description: make deb, apt-get install: README's quick start and a job run anywhere, man dbfio; purge leaves nothing
# Timeout: 900
# In full: make deb builds dbfio_<version>_<arch>.deb (debhelper, in a copy of the tree); its control
# file depends on the installed fio's exact version and on the Ceph, libaio and liburing libraries;
# apt-get install ./dbfio_*.deb; the installed pgpage-with-redolog.fio runs from a scratch directory
# with only its own variables, its engines loaded from the package's folder (strace); man dbfio and
# every engine's page (against fio --enghelp); the tree's engines still load the tree's libdbfio
# (ldd) and libdbfio is not on the system's library path (ldconfig -p); apt-get purge leaves no file
# the package had (dpkg -L before) and no new path naming dbfio (find before/after). The package is
# purged on every exit; a dbfio installed before the test is never touched (the test refuses).
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-install.sh"
[ "$(id -u)" = 0 ] || skip "needs root (apt-get install)"
command -v dpkg-buildpackage >/dev/null && [ -d /usr/share/perl5/Debian/Debhelper ] ||
	fail_or_skip "debhelper/dpkg-dev missing (tools/deps installs them)"
command -v man >/dev/null && command -v strace >/dev/null || fail_or_skip "man-db or strace missing"
if dpkg-query -W -f='${db:Status-Abbrev}' dbfio 2>/dev/null | grep -q '^.i'; then
	fail "a dbfio package is already installed: this test would remove it (apt-get purge dbfio first)"
fi
ARCH=$(dpkg --print-architecture) MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
E=/usr/lib/$MA/dbfio J=/usr/share/dbfio/jobs
# what names dbfio outside the build and the tests' temporary files, before
listing() { find /usr /etc /opt /var/lib/dpkg/info -xdev -iname '*dbfio*' 2>/dev/null | sort; }
listing >"$TMP/before"

t0=$SECONDS
md5sum "$B"/*.so >"$TMP/tree.md5" || fail "no engines in $B (make B=$B first)"
make -C "$REPO" --no-print-directory -s B="$B" deb >"$TMP/deb.log" 2>&1 || fail "make deb: $(tail -5 "$TMP/deb.log")"
md5sum --quiet -c "$TMP/tree.md5" >"$TMP/md5.out" 2>&1 || fail "make deb changed the tree's build: $(head -3 "$TMP/md5.out")"
deb=$(tail -1 "$TMP/deb.log")
case $deb in /*) ;; *) deb=$REPO/$deb ;; esac
[ -f "$deb" ] || fail "make deb printed no package: $(tail -3 "$TMP/deb.log")"
case $(basename "$deb") in dbfio_*_"$ARCH".deb) ;; *) fail "not dbfio_<version>_$ARCH.deb: $deb" ;; esac
dep=$(dpkg-deb -f "$deb" Depends)
fio_v=$(dpkg-query -W -f='${Version}' fio)
for want in "fio (= $fio_v)" librados2 librbd1 libcephfs2 libaio1 liburing2 python3; do
	grep -qF "$want" <<<"$dep" || fail "Depends lacks $want: $dep"
done
ok "make deb: $(basename "$deb") in $((SECONDS - t0)) s, $B untouched (md5sum), Depends: $dep"

# from here on the package is purged on every exit
at_exit "DEBIAN_FRONTEND=noninteractive apt-get purge -y -q dbfio >/dev/null 2>&1"
t0=$SECONDS
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$deb" >"$TMP/apt.log" 2>&1 ||
	fail "apt-get install $deb: $(tail -5 "$TMP/apt.log")"
dpkg -L dbfio >"$TMP/files" || fail "dpkg -L dbfio after the install"
ok "apt-get install: $(wc -l <"$TMP/files") paths in $((SECONDS - t0)) s"

installed_job_runs "$E" "$J/pgpage-with-redolog.fio"
ok "the installed pgpage-with-redolog.fio ran from a scratch directory: engines from $E (strace), WAL and relations on disk"

# README's quick start as a newcomer follows it, on the installed package: its txn-pgbench lines
# (a directory at 1 and 16 clients, CephFS, RBD), each run as written from a scratch directory but
# for RUNTIME (3 s) and /mnt/db (a scratch directory). Oracle: fio's own JSON (one job per client,
# transactions done, no error) against the summary the engine prints in pgbench's words.
need_cluster
mapfile -t QS < <(sed -n '/^## Quick start/,/^## /p' "$REPO/README.md" | grep -E '^DIR=[^ ]+ CLIENTS=[0-9]+ .*fio \$J/txn-pgbench\.fio$')
[ "${#QS[@]}" -ge 4 ] || fail "README's quick start has ${#QS[@]} 'DIR=... fio \$J/txn-pgbench.fio' lines, expected 4 (a directory at 1 and 16 clients, CephFS, RBD)"
grep -q 'STORE=cephfs' <<<"${QS[*]}" && grep -q 'STORE=rbd' <<<"${QS[*]}" || fail "README's quick start lacks its CephFS or RBD line"
sed -n '/^## Quick start/,/^## /p' "$REPO/README.md" | grep -qxF "J=$J" || fail "README's quick start does not set J=$J"
rbd_cleanup txn-pgbench
cephfs_cleanup /txn-pgbench
mkdir -p "$TMP/qs/db" || fail "mkdir"
i=0
for l in "${QS[@]}"; do
	i=$((i + 1))
	cmd=${l//\/mnt\/db/$TMP/qs/db}
	cmd=${cmd/RUNTIME=30/RUNTIME=3}
	(cd "$TMP/qs" && J=$J bash -c "$cmd --output-format=json --output=$TMP/qs/$i.json" 2>"$TMP/qs/$i.err") ||
		fail "README line '$l': fio failed: $(tail -3 "$TMP/qs/$i.err")"
	want=$(sed -n 's/.*CLIENTS=\([0-9]*\).*/\1/p' <<<"$l")
	# group_reporting: one entry for all the job's clones; fio's numjobs is the number it ran
	jobs=$(py json "$TMP/qs/$i.json" "sum(int(j['job options'].get('numjobs', 1)) for j in d['jobs'])") ||
		fail "README line '$l': fio wrote no JSON"
	ios=$(py json "$TMP/qs/$i.json" "sum(j['write']['total_ios'] for j in d['jobs'])")
	err=$(py json "$TMP/qs/$i.json" "max(j['error'] for j in d['jobs'])")
	[ "$jobs" = "$want" ] && [ "$err" = 0 ] && [ "$ios" -gt 0 ] ||
		fail "README line '$l': fio ran $jobs jobs (CLIENTS=$want), $ios transactions, error $err"
	grep -qx "number of clients: $want" "$TMP/qs/$i.err" && grep -qx "number of transactions actually processed: $ios" "$TMP/qs/$i.err" &&
		grep -q '^tps = [0-9]' "$TMP/qs/$i.err" && grep -q '^calibration: postgres15' "$TMP/qs/$i.err" ||
		fail "README line '$l': the summary does not match fio's $want jobs and $ios transactions: $(grep -A12 'summary of database' "$TMP/qs/$i.err")"
	ok "README: $l -> $(grep '^tps = ' "$TMP/qs/$i.err") ($want clients, $ios transactions as fio counted)"
done

t=$(LC_ALL=C MANWIDTH=200 man dbfio 2>&1) || fail "man dbfio: $t"
grep -qF "$E" <<<"$t" && grep -qF "$J" <<<"$t" || fail "man dbfio does not name $E and $J"
pages_match_enghelp "$E" /usr/share/man/man7
ok "man dbfio names the folders; $PAGES_OPTIONS options on the engines' pages as fio --enghelp lists them"

# the tree's engines keep the tree's libdbfio; the package's is on no library path
l=$(ldd "$B/txn.so" | grep libdbfio)
grep -qF "=> $B/libdbfio.so" <<<"$l" || fail "with the package installed, $B/txn.so loads: $l"
l=$(ldd "$E/txn.so" | grep libdbfio)
grep -qF "=> $E/libdbfio.so" <<<"$l" || fail "the package's txn.so loads: $l"
! ldconfig -p | grep -q libdbfio || fail "libdbfio is on the system's library path: $(ldconfig -p | grep libdbfio)"
# an engine without a libdbfio beside it finds none: the package's is on no search path
mkdir -p "$TMP/lone" && cp "$B/txn.so" "$TMP/lone/" || fail "cp $B/txn.so"
l=$(ldd "$TMP/lone/txn.so" | grep libdbfio)
grep -q "not found" <<<"$l" || fail "an engine alone finds a libdbfio on the system's path: $l"
bad=$(grep -E '\.so(\.|$)' "$TMP/files" | grep -v "^$E/")
[ -z "$bad" ] || fail "the package has shared objects outside $E: $bad"
ok "ldd: $B/txn.so -> $B/libdbfio.so, $E/txn.so -> $E/libdbfio.so, a lone txn.so: not found; ldconfig -p has no libdbfio"

t0=$SECONDS
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q dbfio >"$TMP/purge.log" 2>&1 || fail "apt-get purge dbfio: $(tail -3 "$TMP/purge.log")"
left=$(while IFS= read -r f; do [ -f "$f" ] || [ -L "$f" ] && echo "$f"; done <"$TMP/files")
[ -z "$left" ] || fail "apt-get purge left files of the package: $(head -5 <<<"$left")"
listing >"$TMP/after"
diff "$TMP/before" "$TMP/after" >"$TMP/diff" || fail "paths naming dbfio differ after the purge: $(head -5 "$TMP/diff")"
ok "apt-get purge in $((SECONDS - t0)) s: none of the package's files and no new path naming dbfio left"
