# shellcheck shell=bash
# tests/loopfs.sh - sourced by tests after lib.sh: a scratch ext4 on a loop
# device of its own, and the block layer's flush counter of that device
# (an oracle that shares no code with the engines).
#
#   loopfs_up SIZE_MB   loop device over $TMP/loop.img, ext4, mounted at $LFS
#                       (sets LOOPDEV, LFS; skips without root or loop devices)
#   loop_flushes        flush requests the device completed so far
#   loopfs_down         unmount and detach (at exit: lib.sh's at_exit); lib.sh
#                       removes $TMP only when nothing is mounted under it
LOOPDEV=
LFS=
loopfs_up() {
	[ "$(id -u)" = 0 ] || skip "needs root (loop device, mount)"
	command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"
	truncate -s "${1}M" "$TMP/loop.img" || fail "cannot create $TMP/loop.img"
	LOOPDEV=$(losetup -f --show "$TMP/loop.img") || skip "no free loop device"
	at_exit loopfs_down
	mkfs.ext4 -q -F "$LOOPDEV" >"$TMP/mkfs.log" 2>&1 || { cat "$TMP/mkfs.log"; fail "mkfs.ext4 $LOOPDEV failed"; }
	LFS=$TMP/lfs
	mkdir -p "$LFS"
	mount "$LOOPDEV" "$LFS" || fail "cannot mount $LOOPDEV"
	# field 16 of /sys/block/<dev>/stat is "flush I/Os" (Documentation/block/stat.rst)
	[ "$(wc -w <"/sys/block/${LOOPDEV#/dev/}/stat")" -ge 17 ] || skip "kernel has no flush counters in /sys/block/*/stat"
}
loop_flushes() { awk '{ print $16 }' "/sys/block/${LOOPDEV#/dev/}/stat"; }
loopfs_down() {
	if [ -n "$LFS" ] && mountpoint -q "$LFS"; then
		umount "$LFS" || umount -l "$LFS"
	fi
	[ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV"
	LOOPDEV=
}
