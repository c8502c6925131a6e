#!/bin/bash
# tools/install.d/install.sh install|uninstall - what make install and make uninstall run.
#
# The Makefile passes the places in the environment: DESTDIR (may be empty),
# ENGDIR (engines and libdbfio.so), BINDIR, JOBDIR, PYDIR, MAN7DIR, SHAREDIR,
# B (the build directory), ENGINES (the engines built), ENGMAN (man/engman,
# which writes each engine's page from its option table), VERSION.
#
# install writes every file and every directory it creates into
# $SHAREDIR/MANIFEST (paths without DESTDIR, itself last); uninstall removes
# exactly those files, then those directories when empty, so nothing that
# was there before (a man7/ or bin/ of the system) is ever removed. A second
# install first uninstalls the first, so a file the tree no longer has does
# not stay behind.
#
# Installed job files get the engine folder written in place of ${DBFIO_LIB}
# (and of the tree's build/), so they run from any directory; the Python
# commands get the installed package folder and engine folder in place of
# the tree's (a path into the tree left in them stops the install).
set -euo pipefail
die() { echo "install.sh: $*" >&2; exit 1; }
for v in ENGDIR BINDIR JOBDIR PYDIR MAN7DIR SHAREDIR B ENGINES ENGMAN VERSION; do
	[ -n "${!v:-}" ] || die "$v is not set (run make install / make uninstall)"
done
D=${DESTDIR:-}
MANIFEST=$SHAREDIR/MANIFEST

uninstall() {
	local f dirs=()
	[ -f "$D$MANIFEST" ] || die "nothing to uninstall: no $D$MANIFEST"
	while IFS= read -r f; do
		case $f in
		dir\ *) dirs=("${f#dir }" "${dirs[@]}") ;;	# newest first
		file\ *) rm -f -- "$D${f#file }" ;;
		esac
	done <"$D$MANIFEST"
	rm -f -- "$D$MANIFEST"
	for f in "${dirs[@]}"; do
		rmdir -- "$D$f" 2>/dev/null || true	# kept when something else is in it
	done
}

LIST=
# mkd DIR: create DIR and its missing parents, recording each one created
mkd() {
	[ "$1" = / ] && { mkdir -p -- "$D/"; return 0; }
	[ -d "$D$1" ] && return 0
	mkd "$(dirname "$1")"
	mkdir -- "$D$1"
	echo "dir $1" >>"$LIST"
}
# put MODE SRC DST [SED-SCRIPT]
put() {
	mkd "$(dirname "$3")"
	if [ -n "${4:-}" ]; then
		sed "$4" "$2" >"$D$3.tmp"
		chmod "$1" "$D$3.tmp"
		mv -f -- "$D$3.tmp" "$D$3"
	else
		install -m "$1" "$2" "$D$3"
	fi
	echo "file $3" >>"$LIST"
}
# a Python command: the package and the engines from where they are installed;
# Debian's python3, and no __pycache__ written beside the package (an
# uninstall or a purge would leave it behind)
put_py() {
	put 0755 "$1" "$2" "1s|^#!.*python.*|#!/usr/bin/python3 -B|;
		s|os.path.join(REPO, \"python\")|\"$PYDIR\"|;
		s|os.path.join(REPO, \"build\")|\"$ENGDIR\"|;
		s|^\\( *\\)REPO, \"results\", \"runs\", |\\1\"dbfio-runs\", |"
	if grep -nE 'os\.path\.join\(REPO|^ *REPO,' "$D$2" >&2; then
		die "$1: a path into the source tree is left in $D$2 (teach install.sh where it goes)"
	fi
}

install_all() {
	local f e so jobsed
	LIST=$(mktemp)
	PAGES=$(mktemp -d)
	trap 'rm -rf "$LIST" "$PAGES"' EXIT
	mkd "$SHAREDIR"
	put 0644 "$B/libdbfio.so" "$ENGDIR/libdbfio.so"
	for e in $ENGINES; do
		put 0644 "$B/$e.so" "$ENGDIR/$e.so"
	done
	# the engine folder in place of ${DBFIO_LIB} and of the tree's build/; the
	# header's Run line sets no DBFIO_LIB and names the installed file
	jobsed="s|\\\${DBFIO_LIB}|$ENGDIR|g; s|external:build/|external:$ENGDIR/|g
		/^# Run:/{ s| DBFIO_LIB=[^ ]*||; s| fio jobs/| fio $JOBDIR/|; }"
	while IFS= read -r f; do
		put 0644 "jobs/$f" "$JOBDIR/$f" "$jobsed"
	done < <(cd jobs && find . -name '*.fio' -type f | sed 's|^\./||' | sort)
	put 0755 "$B/logverify" "$BINDIR/dbfio-logverify"
	put_py tools/sweep "$BINDIR/dbfio-sweep"
	put_py tools/snapregress "$BINDIR/dbfio-snapregress"
	put_py tools/clientcheck "$BINDIR/dbfio-clientcheck"
	for f in python/dbfio/*.py; do
		put 0644 "$f" "$PYDIR/dbfio/$(basename "$f")"
	done
	put 0644 man/dbfio.7.in "$MAN7DIR/dbfio.7" \
		"s|@ENGDIR@|$ENGDIR|g; s|@JOBDIR@|$JOBDIR|g; s|@VERSION@|$VERSION|g"
	for e in $ENGINES; do
		"$ENGMAN" "$B/$e.so" "$VERSION" "$ENGDIR" >"$PAGES/dbfio-$e.7" ||
			die "$ENGMAN could not write the page of $B/$e.so"
		put 0644 "$PAGES/dbfio-$e.7" "$MAN7DIR/dbfio-$e.7"
	done
	echo "file $MANIFEST" >>"$LIST"
	install -m 0644 "$LIST" "$D$MANIFEST"
}

case ${1:-} in
install)
	[ -f "$D$MANIFEST" ] && uninstall
	install_all ;;
uninstall) uninstall ;;
*) die "usage: install.sh install|uninstall" ;;
esac
