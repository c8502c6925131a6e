/*
 * redolog_opts.c - the log model's shared options (redolog_opts.h) into the
 * log writer's configuration: one translator for every engine that writes
 * the log (redolog, txn), so that an option means the same in each. No fio
 * headers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "redolog_opts.h"

/*
 * InnoDB's classic block layout: 512-byte blocks; mysql: 2 files, 12-byte
 * block header, 4-byte trailer, 2048-byte file header; mariadb: 1 file,
 * 12288-byte file header. file_size 0: 48M mysql, 96M mariadb.
 */
static void rl_innodb_geo(struct rl_cfg *c, int flavor, unsigned long long file_size,
			  unsigned int trx_commit)
{
	int mariadb = flavor == RL_MARIADB;

	c->g.flavor = flavor;
	c->trx_commit = trx_commit;
	c->g.file_size = file_size ? file_size : mariadb ? 96 << 20 : 48 << 20;
	c->g.unit = 512;
	if (mariadb) {
		c->g.file_hdr = 12288;	/* file header + two checkpoint blocks */
		c->g.nfiles = 1;
	} else {
		c->g.hdr = 12;
		c->g.trl = 4;
		c->g.file_hdr = 2048;	/* LOG_FILE_HDR_SIZE: header + checkpoint blocks */
		c->g.nfiles = 2;
	}
}

/* /sys/dev/block/MAJ:MIN/<rel>queue/physical_block_size as a number; 0 if unreadable */
static unsigned int sys_block_size(const struct stat *st, const char *rel)
{
	char path[96], buf[16];
	unsigned long v;
	ssize_t n;
	char *end;
	int fd;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%squeue/physical_block_size",
		 major(st->st_dev), minor(st->st_dev), rel);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	v = strtoul(buf, &end, 10);
	return end != buf && *end == '\n' && v <= 4096 ? (unsigned int)v : 0;
}

unsigned int rl_mariadb_log_block(const char *dir)
{
	struct stat st;
	unsigned int b;

	if (stat(dir, &st))
		return 0;
	b = sys_block_size(&st, "");
	if (!b)
		b = sys_block_size(&st, "../");		/* a partition: its disk's queue */
	return b >= 64 && !(b & (b - 1)) ? b : 0;
}

unsigned int rl_mariadb_store_block(unsigned int caps, const char *dir)
{
	if (caps & STORE_CAP_LOCAL_DIR)
		return caps & STORE_CAP_DIRECT ? rl_mariadb_log_block(dir && *dir ? dir : ".") : 0;
	return caps & STORE_CAP_IMAGE ? 512 : 0;
}

/* PostgreSQL WAL: 8k pages with a 24-byte header, segments kept and recycled. */
static void rl_pg_cfg(struct rl_cfg *c, enum rl_wal_method method, unsigned long long seg_size,
		      unsigned int segs)
{
	switch (method) {
	case RL_WM_FDATASYNC:		c->flush = RL_FLUSH_FDATASYNC; break;
	case RL_WM_FSYNC:		c->flush = RL_FLUSH_FSYNC; break;
	case RL_WM_OPEN_DATASYNC:	c->open_flags = O_DSYNC; break;
	case RL_WM_OPEN_SYNC:		c->open_flags = O_SYNC; break;
	}
	c->g.flavor = RL_POSTGRES;
	c->g.unit = 8192;
	c->g.hdr = 24;
	c->g.file_size = seg_size;
	c->g.nfiles = segs;
	c->trx_commit = 1;
}

/*
 * innodb_flush_method: O_DSYNC opens the log O_SYNC (MariaDB: O_DSYNC) and
 * never flushes; O_DIRECT (and O_DIRECT_NO_FSYNC, whose NO_FSYNC spares the
 * data files only) opens it O_DIRECT and flushes; fsync keeps it buffered.
 * Not given: MySQL's fsync; MariaDB 10.11 opens ib_logfile0 O_DIRECT where it
 * can (env). MariaDB flushes with fdatasync, and writes in env's block.
 */
static void rl_innodb_method(const struct rl_opts *o, const struct rl_opts_env *env,
			     struct rl_cfg *c, int mariadb)
{
	c->flush = mariadb ? RL_FLUSH_FDATASYNC : RL_FLUSH_FSYNC;
	switch (o->flush_method) {
	case RL_IM_O_DSYNC:
		c->flush = RL_FLUSH_NONE;
		c->open_flags = mariadb ? O_DSYNC : O_SYNC;
		break;
	case RL_IM_O_DIRECT:
	case RL_IM_O_DIRECT_NO_FSYNC:
		c->open_flags = O_DIRECT;
		break;
	case RL_IM_DEFAULT:
		if (mariadb && env->mariadb_direct)
			c->open_flags = O_DIRECT;
		break;
	}
	if (mariadb && env->mariadb_block)
		c->g.unit = env->mariadb_block;	/* its writes are rounded to the device's block */
}

int rl_opts_to_cfg(const struct rl_opts *o, const struct rl_opts_env *env, struct rl_cfg *c,
		   char *err, size_t len)
{
	int flavor = rl_opts_flavor(o, env->flavor);

	memset(c, 0, sizeof(*c));
	c->bufsize = 16 << 20;		/* innodb_log_buffer_size's and wal_buffers' default */
	if (flavor == RL_POSTGRES) {
		unsigned long long segs = o->min_wal_size ? o->min_wal_size / o->wal_segment_size :
					  o->wal_segments;

		if (segs < 2 || segs > 1024) {	/* PostgreSQL's ConvertToXSegs: whole segments */
			snprintf(err, len, "min_wal_size=%llu: must hold 2..1024 WAL segments of %llu "
				 "(wal_segment_size), not %llu", o->min_wal_size, o->wal_segment_size, segs);
			return -EINVAL;
		}
		rl_pg_cfg(c, o->wal_sync_method, o->wal_segment_size, (unsigned int)segs);
		c->wal_init_zero = o->wal_init_zero;
		c->wal_recycle = o->wal_recycle;
		return 0;
	}
	rl_innodb_geo(c, flavor, o->log_file_size, o->trx_commit);
	rl_innodb_method(o, env, c, flavor == RL_MARIADB);
	if (flavor == RL_MYSQL)
		c->wa = 8192;		/* innodb_log_write_ahead_size's default */
	if (c->g.file_size % c->g.unit || c->g.file_size < c->g.file_hdr + 16 * c->g.unit) {
		snprintf(err, len, "innodb_log_file_size=%llu: must be a multiple of the %u-byte block "
			 "and hold 16 blocks", (unsigned long long)c->g.file_size, c->g.unit);
		return -EINVAL;
	}
	return 0;
}
