#!/bin/bash
# Description: txn flavor=mariadb creates ib_logfile0 as MariaDB 10.11 does — its 12 KiB header written, the rest fallocate'd
# Timeout: 120
# In full: txn flavor=mariadb creates ib_logfile0 as MariaDB 10.11 does — its 12 KiB header written,
# the rest fallocate'd (strace: one fallocate of the rest, far fewer bytes written than the file's
# size; filefrag shows the unwritten extent on ext4/xfs), so a commit's fdatasync into a fresh block
# also commits the file system's journal; flavor=mysql still zero-fills the whole file
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v strace >/dev/null || fail "strace is not installed (tools/deps installs it)"
SZ=$((2 * 1024 * 1024))
run() {	# run FLAVOR: 20 commits under strace, fd paths shown
	local n=$1
	mkdir -p "$TMP/$n"
	strace -f -qq -y -e trace=fallocate,pwrite64 -o "$TMP/$n.strace" "$FIO" --output=/dev/null \
		--name=$n --ioengine="external:$E" --calibration=none --directory="$TMP/$n" --rw=write --flavor=$n \
		--innodb_log_file_size=2m --txn_profile=oltp_read_write --table_size=1000 \
		--number_ios=20 2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
}
# bytes pwritten to ib_logfile0: pwrite64(fd</path/ib_logfile0>, "..."..., LEN, OFF) = LEN
bytes() { grep "^[0-9]* *pwrite64(.*/ib_logfile0>" "$TMP/$1.strace" |
	sed -E 's/.* = ([0-9]+)$/\1/' | awk '{ s += $1 } END { print s + 0 }'; }

run mariadb
fa=$(grep -c "^[0-9]* *fallocate(.*/ib_logfile0>, 0, 12288, $((SZ - 12288))) = 0" "$TMP/mariadb.strace")
wb=$(bytes mariadb)
[ "$fa" = 1 ] || { grep fallocate "$TMP/mariadb.strace"; fail "mariadb: $fa fallocate(ib_logfile0, 0, 12288, $((SZ - 12288))) calls, expected 1"; }
# header (12 KiB) + 20 commits of ~2.6 kB (each rewrites its partial block): far below 2 MiB
[ "$wb" -lt $((SZ / 4)) ] || fail "mariadb: $wb bytes written to ib_logfile0 (a $SZ-byte file zero-filled?)"
ok "mariadb: ib_logfile0 fallocate'd after its 12 KiB header, $wb bytes written in all (strace)"
case $(stat -f -c %T "$TMP/mariadb") in
ext2/ext3|xfs)	# ext4 reports ext2/ext3
	command -v filefrag >/dev/null || fail "filefrag (e2fsprogs) is not installed"
	filefrag -v "$TMP/mariadb/ib_logfile0" | grep -q unwritten ||
		{ filefrag -v "$TMP/mariadb/ib_logfile0"; fail "mariadb: no unwritten extent in ib_logfile0"; }
	ok "mariadb: filefrag shows the unwritten extent";;
*)	echo "note: $TMP is $(stat -f -c %T "$TMP"): no extent check";;
esac

run mysql
fa=$(grep -c "^[0-9]* *fallocate(.*/ib_logfile" "$TMP/mysql.strace")
wb=$(bytes mysql)
[ "$fa" = 0 ] || fail "mysql: $fa fallocate calls on ib_logfile0/1 (MySQL zero-fills)"
[ "$wb" -ge "$SZ" ] || fail "mysql: $wb bytes written to ib_logfile0, less than its $SZ bytes (not zero-filled)"
ok "mysql: ib_logfile0 zero-filled, $wb bytes written (strace)"
