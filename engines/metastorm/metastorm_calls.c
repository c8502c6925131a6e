/*
 * metastorm_calls.c - the accounted calls the DDL recipes are made of: one
 * store call each, counted (always) and timed (unless syscall_table=0) into
 * the (phase, call) cell of the job's table. No allocation per sample.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "metastorm.h"

const char *const ms_phase_names[MS_NR_PHASE] = {
	[MS_CREATE]	= "create",
	[MS_DROP]	= "drop",
	[MS_OPEN]	= "open",
	[MS_RENAME]	= "rename",
	[MS_SETUP]	= "setup",
	[MS_ALTER_COPY]	= "alter_copy",
	[MS_CHECKPOINT]	= "checkpoint",
	[MS_CLEANUP]	= "cleanup",
};

const char *const ms_call_names[MC_NR] = {
	[MC_OPEN]	= "open",
	[MC_CLOSE]	= "close",
	[MC_FSYNC]	= "fsync",
	[MC_FDATASYNC]	= "fdatasync",
	[MC_WRITE]	= "write",
	[MC_READ]	= "read",
	[MC_UNLINK]	= "unlink",
	[MC_RENAME]	= "rename",
	[MC_MKDIR]	= "mkdir",
	[MC_FSTAT]	= "fstat",
	[MC_TRUNCATE]	= "truncate",
	[MC_RMDIR]	= "rmdir",
	[MC_SIZE]	= "lseek_end",
	[MC_FALLOCATE]	= "fallocate",
};

uint32_t ms_rand(struct ms_data *md)
{
	/* xorshift64*: reproducible per job, no locks */
	md->rnd ^= md->rnd >> 12;
	md->rnd ^= md->rnd << 25;
	md->rnd ^= md->rnd >> 27;
	return (uint32_t)((md->rnd * 0x2545F4914F6CDD1DULL) >> 32);
}

/* ---- accounted calls: one count (and one sample) per store call ---- */

static inline uint64_t t_start(const struct ms_data *md)
{
	return md->account ? latstat_now_ns() : 0;
}

static inline void t_end(struct ms_data *md, enum ms_call c, uint64_t t0)
{
	md->count[md->phase][c]++;
	if (md->account)
		latstat_add(&md->lat[md->phase][c], latstat_now_ns() - t0);
}

int ms_fail(struct ms_data *md, const char *call, const char *path, int ret)
{
	snprintf(md->err, sizeof(md->err), "%s(%s) failed: %s", call, path,
		 store_strerror(md->store, ret));
	return ret;
}

int ms_open(struct ms_data *md, const char *path, int flags,
		   struct store_file **f)
{
	uint64_t t0 = t_start(md);
	int ret = store_open(md->store, path, flags, 0640, 0, f);

	t_end(md, MC_OPEN, t0);
	return ret < 0 ? ms_fail(md, "open", path, ret) : 0;
}

int ms_close(struct ms_data *md, struct store_file *f, const char *path)
{
	uint64_t t0 = t_start(md);
	int ret = store_close(md->store, f);

	t_end(md, MC_CLOSE, t0);
	return ret < 0 ? ms_fail(md, "close", path, ret) : 0;
}

int ms_write(struct ms_data *md, struct store_file *f, const char *path,
		    size_t len, uint64_t off)
{
	uint64_t t0 = t_start(md);
	ssize_t ret = store_pwrite(md->store, f, md->buf, len, off);

	t_end(md, MC_WRITE, t0);
	if (ret >= 0 && (size_t)ret != len) {
		/* the store continues short writes: this one made no progress, gave no error */
		snprintf(md->err, sizeof(md->err), "pwrite(%s) wrote %zd of %zu bytes at "
			 "offset %llu (no error given)", path, ret, len, (unsigned long long)off);
		return -EIO;
	}
	return ret < 0 ? ms_fail(md, "pwrite", path, ret) : 0;
}

int ms_read(struct ms_data *md, struct store_file *f, const char *path,
		   size_t len, uint64_t off)
{
	uint64_t t0 = t_start(md);
	ssize_t ret = store_pread(md->store, f, md->buf + md->buflen - len, len, off);

	t_end(md, MC_READ, t0);
	return ret < 0 ? ms_fail(md, "pread", path, ret) : 0;
}

int ms_sync(struct ms_data *md, struct store_file *f, const char *path,
		   int datasync)
{
	uint64_t t0 = t_start(md);
	int ret = datasync ? store_fdatasync(md->store, f) : store_fsync(md->store, f);

	t_end(md, datasync ? MC_FDATASYNC : MC_FSYNC, t0);
	return ret < 0 ? ms_fail(md, datasync ? "fdatasync" : "fsync", path, ret) : 0;
}

int ms_fstat(struct ms_data *md, struct store_file *f, const char *path)
{
	uint64_t t0 = t_start(md), size;
	int ret = store_fstat(md->store, f, &size);

	t_end(md, MC_FSTAT, t0);
	return ret < 0 ? ms_fail(md, "fstat", path, ret) : 0;
}

int ms_truncate(struct ms_data *md, struct store_file *f, const char *path)
{
	uint64_t t0 = t_start(md);
	int ret = store_truncate(md->store, f, 0);

	t_end(md, MC_TRUNCATE, t0);
	return ret < 0 ? ms_fail(md, "ftruncate", path, ret) : 0;
}

int ms_size(struct ms_data *md, struct store_file *f, const char *path)
{
	uint64_t t0 = t_start(md), size;
	int ret = store_size(md->store, f, &size);

	t_end(md, MC_SIZE, t0);
	return ret < 0 ? ms_fail(md, "lseek(SEEK_END)", path, ret) : 0;
}

int ms_fallocate(struct ms_data *md, struct store_file *f, const char *path, size_t len)
{
	uint64_t t0 = t_start(md);
	int ret = store_fallocate(md->store, f, 0, len);

	t_end(md, MC_FALLOCATE, t0);
	return ret < 0 ? ms_fail(md, "fallocate", path, ret) : 0;
}

int ms_unlink(struct ms_data *md, const char *path)
{
	uint64_t t0 = t_start(md);
	int ret = store_unlink(md->store, path);

	t_end(md, MC_UNLINK, t0);
	return ret < 0 ? ms_fail(md, "unlink", path, ret) : 0;
}

int ms_rename(struct ms_data *md, const char *from, const char *to)
{
	uint64_t t0 = t_start(md);
	int ret = store_rename(md->store, from, to);

	t_end(md, MC_RENAME, t0);
	return ret < 0 ? ms_fail(md, "rename", from, ret) : 0;
}

int ms_mkdir(struct ms_data *md, const char *path)
{
	uint64_t t0 = t_start(md);
	int ret = store_mkdir(md->store, path, 0750);

	t_end(md, MC_MKDIR, t0);
	return ret < 0 ? ms_fail(md, "mkdir", path, ret) : 0;
}

int ms_rmdir(struct ms_data *md, const char *path)
{
	uint64_t t0 = t_start(md);
	int ret = store_rmdir(md->store, path);

	t_end(md, MC_RMDIR, t0);
	return ret < 0 ? ms_fail(md, "rmdir", path, ret) : 0;
}

/* A directory fsync is open + fsync + close, and counted as such (as strace sees it) */
int ms_dirsync(struct ms_data *md, const char *dir)
{
	struct store_file *f;
	int ret;

	if (!md->dirsync)
		return 0;
	ret = ms_open(md, dir, O_RDONLY | O_DIRECTORY, &f);
	if (ret)
		return ret;
	/* MariaDB syncs directories with my_sync() = fdatasync, as its files */
	ret = ms_sync(md, f, dir, md->flavor == MS_MARIADB);
	ms_close(md, f, dir);
	return ret;
}

