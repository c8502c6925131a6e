#!/bin/bash
# tools/install.d/deb.sh - what make deb runs: dbfio_<version>_<arch>.deb in $B.
#
# The package is built by debhelper (debian/) in a copy of the tree under
# $B/deb (the files git knows and the new ones it does not ignore), never in
# the tree itself: dpkg-buildpackage cleans and builds in place and writes
# beside its source, and other builds share build/. The Makefile passes B,
# VERSION and FIO_SRC (fio's configured source, for ./configure there).
set -euo pipefail
die() { echo "deb.sh: $*" >&2; exit 1; }
for v in B VERSION FIO_SRC; do
	[ -n "${!v:-}" ] || die "$v is not set (run make deb)"
done
command -v dpkg-buildpackage >/dev/null && [ -f /usr/share/perl5/Debian/Debhelper/Dh_Lib.pm ] ||
	die "dpkg-buildpackage and debhelper are missing: apt-get install debhelper dpkg-dev"
W=$(realpath -m "$B/deb")
S=$W/dbfio-$VERSION
rm -rf "$W"
mkdir -p "$S"
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
		[ -f "$f" ] && printf '%s\0' "$f"; done | tar --null -T - -cf - | tar -C "$S" -xf -
else
	tar --exclude=./build --exclude=./.git -cf - . | tar -C "$S" -xf -
fi
rm -rf "$S/build"
# the version make computed (with the commit), as the package's
cat >"$S/debian/changelog" <<EOT
dbfio ($VERSION) unstable; urgency=medium

  * Built by make deb.

 -- dbfio developers <dbfio@localhost>  $(date -R)
EOT
# the copy has no .git: its Makefile must compute the same version
sed -i "s|^DBFIO_VERSION = .*|DBFIO_VERSION = $VERSION|" "$S/Makefile"
# make's command-line variables (B=, PREFIX=, ...) reach every sub-make through
# MAKEFLAGS: the package's own make must not see them (B= would build into this tree)
(cd "$S" && env -u MAKEFLAGS -u MFLAGS -u MAKEOVERRIDES -u MAKELEVEL -u B -u DBFIO_BUILD \
	FIO_SRC="$FIO_SRC" dpkg-buildpackage -b -us -uc -j"$(nproc)") >"$W/build.log" 2>&1 ||
	die "dpkg-buildpackage failed: $(tail -5 "$W/build.log") (all of it in $W/build.log)"
deb=$(ls "$W"/dbfio_*.deb)
mv -f "$deb" "$B/"
echo "$B/$(basename "$deb")"
