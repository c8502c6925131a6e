#!/bin/bash
# Description: make install/uninstall into a temp prefix: an installed job runs from anywhere (strace, ls), pages = enghelp
# Tier: quick
# In full: make install with PREFIX in $TMP (so the engine path written into the job files is where
# the engines are), then: an installed job file runs from a scratch directory with only its own
# variables, its engines and libdbfio.so loaded from the installed folder (strace), its files on
# disk (ls), I/O in fio's JSON; every engine's man page lists every option fio --enghelp lists, with
# its default, range and choices, and man reads it without a warning; the dbfio-* commands run from
# anywhere. make uninstall leaves nothing (find) and keeps a file it did not install. With DESTDIR
# (as Debian packaging does) the files land under DESTDIR and the job files name the final path.
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/lib-install.sh"
command -v strace >/dev/null || skip "no strace"
command -v man >/dev/null || skip "no man (man-db)"

mk() { make -C "$REPO" --no-print-directory -s B="$B" "$@" >"$TMP/make.log" 2>&1 ||
	fail "make $*: $(tail -5 "$TMP/make.log")"; }

# 1. PREFIX into $TMP; a man page of another package already there must survive uninstall
R=$TMP/root P=$TMP/root/usr
mkdir -p "$R" "$P/share/man/man7"
echo ".TH OTHER 7" >"$P/share/man/man7/other.7"
mk install PREFIX="$P"
E=$P/lib/dbfio J=$P/share/dbfio/jobs
for f in "$E/libdbfio.so" "$E/txn.so" "$E/redolog.so" "$P/bin/dbfio-logverify" "$P/bin/dbfio-sweep" \
	"$P/bin/dbfio-snapregress" "$P/share/man/man7/dbfio.7" "$J/pgpage-with-redolog.fio" \
	"$J/txn-profiles/postgres15.fio"; do
	[ -f "$f" ] || fail "make install PREFIX=$P: no $f"
done
# no job file names an engine anywhere but the installed folder
bad=$(grep -rhoE 'external:[^ ;,)]*' "$J" | grep -v "^external:$E/[a-z]*\.so$" | sort -u)
[ -z "$bad" ] || fail "installed job files name engines outside $E: $bad"
# each header's Run line sets no DBFIO_LIB and names the installed file itself
while IFS= read -r l; do
	f=${l%%:*} run=${l#*:}
	case $run in *DBFIO_LIB=*) fail "$f: the installed Run line sets DBFIO_LIB: $run" ;; esac
	[ "$(sed -n 's/.* fio \([^ ]*\.fio\).*/\1/p' <<<"$run")" = "$f" ] || fail "$f: the Run line does not name it: $run"
done < <(grep -r '^# Run:' "$J")
n=$(grep -rlE 'ioengine=external:' "$J" | wc -l)
ok "make install PREFIX=$P: $(find "$R" -type f | wc -l) files, $n job files name their engines in $E"

pages_match_enghelp "$E" "$P/share/man/man7"
t=$(LC_ALL=C MANWIDTH=200 man -l "$P/share/man/man7/dbfio.7" 2>&1)
grep -qF "$E" <<<"$t" && grep -qF "$J" <<<"$t" || fail "dbfio(7) does not name $E and $J"
ok "man pages: $PAGES_OPTIONS options of $(ls "$E" | grep -vc libdbfio) engines as fio --enghelp lists them; dbfio(7) names the folders"

installed_job_runs "$E" "$J/pgpage-with-redolog.fio"
ok "the installed pgpage-with-redolog.fio ran from a scratch directory: engines from $E (strace), WAL and relations on disk"

# the commands, from a scratch directory: the Python ones import the installed package
mkdir -p "$TMP/cmd" && cd "$TMP/cmd" || fail "cd"
unset PYTHONDONTWRITEBYTECODE	# the command itself must write no __pycache__ (uninstall would leave it)
"$P/bin/dbfio-sweep" --help >"$TMP/sweep.out" 2>&1 || fail "dbfio-sweep --help: $(tail -3 "$TMP/sweep.out")"
"$P/bin/dbfio-sweep" --dry-run "$J/pgpage-with-redolog.fio" RUNTIME=1,2 DIR=. >"$TMP/sweep.out" 2>&1 ||
	fail "dbfio-sweep --dry-run: $(tail -3 "$TMP/sweep.out")"
grep -qF "$TMP/cmd/dbfio-runs/" "$TMP/sweep.out" || fail "dbfio-sweep: runs not under ./dbfio-runs: $(head -3 "$TMP/sweep.out")"
"$P/bin/dbfio-snapregress" "$TMP/none.json" >"$TMP/snap.out" 2>&1
[ $? = 2 ] && grep -q "^snapregress: " "$TMP/snap.out" || fail "dbfio-snapregress on a missing file: $(cat "$TMP/snap.out")"
"$P/bin/dbfio-clientcheck" "$TMP/none.json" host1 >"$TMP/cc.out" 2>&1
[ $? = 2 ] && grep -q "^clientcheck: " "$TMP/cc.out" || fail "dbfio-clientcheck on a missing file: $(cat "$TMP/cc.out")"
"$P/bin/dbfio-logverify" --help >"$TMP/lv.out" 2>&1 || fail "dbfio-logverify --help: $(head -3 "$TMP/lv.out")"
ok "dbfio-sweep, dbfio-snapregress, dbfio-clientcheck and dbfio-logverify run from a scratch directory"

# 2. uninstall: nothing of dbfio left, the other package's page kept
mk uninstall PREFIX="$P"
left=$(find "$R" -mindepth 1 ! -path "$P" ! -path "$P/share" ! -path "$P/share/man" ! -path "$P/share/man/man7" \
	! -path "$P/share/man/man7/other.7")
[ -z "$left" ] || fail "make uninstall left: $(head -5 <<<"$left")"
[ -f "$P/share/man/man7/other.7" ] || fail "make uninstall removed a file it did not install"
ok "make uninstall: nothing left (find), another package's man page kept"

# 3. DESTDIR, as Debian packaging installs: files under DESTDIR, job files name the final path
D=$TMP/dest L=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
mk install DESTDIR="$D" PREFIX=/usr LIBDIR="$L"
[ -f "$D$L/dbfio/txn.so" ] && [ -f "$D/usr/share/dbfio/jobs/txn-pgbench.fio" ] && [ -f "$D/usr/bin/dbfio-sweep" ] ||
	fail "make install DESTDIR: not under $D$L/dbfio, $D/usr/share/dbfio, $D/usr/bin"
grep -q "ioengine=external:$L/dbfio/txn.so$" "$D/usr/share/dbfio/jobs/txn-pgbench.fio" ||
	fail "DESTDIR install: txn-pgbench.fio does not name $L/dbfio/txn.so: $(grep ioengine "$D/usr/share/dbfio/jobs/txn-pgbench.fio")"
! grep -rqF "$D" "$D/usr/share/dbfio" "$D/usr/bin" "$D/usr/share/man" || fail "DESTDIR written into an installed file"
mk uninstall DESTDIR="$D" PREFIX=/usr LIBDIR="$L"
[ -z "$(find "$D" -mindepth 1)" ] || fail "make uninstall DESTDIR left: $(find "$D" -mindepth 1 | head -5)"
ok "DESTDIR=$D PREFIX=/usr LIBDIR=$L: engines in $L/dbfio named so in the jobs; uninstall left nothing"
