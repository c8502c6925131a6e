#!/bin/bash
# Description: metastorm: its per-syscall counts, per phase (DDL type, setup, alter_copy, checkpoint, cleanup) and in all
# Timeout: 120
# In full: metastorm: its per-syscall counts, per phase (DDL type, setup, alter_copy, checkpoint,
# cleanup) and in all, equal what strace sees under the test directory, every flavor
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed"
[ -f "$B/metastorm.so" ] || fail "build/metastorm.so is missing (run make)"
TRACE=access,faccessat,faccessat2,openat,open,close,fsync,fdatasync,pwrite64,pread64,unlinkat,unlink,renameat,renameat2,rename,mkdirat,mkdir,newfstatat,fstat,truncate,ftruncate,rmdir,lseek,fallocate
for flavor in mysql mariadb postgres; do
	d=$TMP/$flavor
	mkdir -p "$d"
	# the store marks each change of phase with access("/dbfio-phase/<name>"):
	# strace's own lines say which phase every call was made in
	DBFIO_STORE_PHASE_MARK=1 strace -f -y -qq -o "$TMP/$flavor.strace" -e trace=$TRACE \
		"$FIO" --output-format=json --output="$TMP/$flavor.json" --name="ms-$flavor" \
		--ioengine="external:$B/metastorm.so" --directory="$d" --flavor=$flavor \
		--number_ios=120 --tables=8 --checkpoint_ops=16 \
		--ddl_mix=create:40,drop:20,open:20,rename:20 \
		--table_json="$TMP/$flavor.tbl.json" 2>"$TMP/$flavor.err" ||
		{ cat "$TMP/$flavor.err"; fail "$flavor: fio failed under strace"; }
	[ "$(json "$TMP/$flavor.json" "d['jobs'][0]['error']")" = 0 ] || fail "$flavor: fio reported an error"
	# the engine's calls are the traced lines naming its files (fio's own do not)
	py metastorm-counts "$TMP/$flavor.strace" "$TMP/$flavor.tbl.json" "$flavor" ||
		fail "$flavor: counts (per phase or in all) differ from strace"
	# directory fsyncs: the engine may not count what it skipped, so the number
	# is the recipe's (docs/metastorm.md): MySQL and MariaDB sync the schema
	# directory once per CREATE and once per ALTER's rename (at least: the set-up
	# creates tables too); PostgreSQL never
	py metastorm-dirsyncs "$TMP/$flavor.strace" "$TMP/$flavor.tbl.json" "$flavor" || fail "$flavor: directory fsyncs differ from the recipe"
	ops=$(json "$TMP/$flavor.tbl.json" "' '.join(f'{k}={v[\"ops\"]}' for k, v in d['phases'].items() if v['ops'])")
	ok "$flavor: every call matches strace ($ops)"
	[ -z "$(ls -A "$d")" ] || fail "$flavor: the directory is not empty after the run: $(ls -A "$d")"
done
