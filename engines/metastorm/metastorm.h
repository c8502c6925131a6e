/*
 * metastorm.h - state shared by the metastorm engine (metastorm.c: fio
 * hooks, options, report) and its DDL recipes (metastorm_ddl.c), and the
 * recipes' store calls with their error lines. Only store.h/latstat.h/
 * dbtime.h types here (fio-free), so both halves see one definition. The
 * store layer counts and times every call, per phase (store_set_phase).
 */
#ifndef DBFIO_METASTORM_H
#define DBFIO_METASTORM_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dbtime/dbtime.h"
#include "store/store.h"

#define MS_PREFIX	"dbfio_ms_"

enum ms_flavor {
	MS_MYSQL,
	MS_MARIADB,
	MS_POSTGRES,
};

/*
 * Phases: the four DDL types an io_u can be, then the work done around them
 * (never part of an io_u's latency): setup (shared files, the initial
 * tables), alter_copy (the copy a copying ALTER makes before its final
 * swap), checkpoint (PostgreSQL's deferred unlinks) and cleanup.
 */
enum ms_phase {
	MS_CREATE,
	MS_DROP,
	MS_OPEN,
	MS_RENAME,
	MS_NR_DDL,
	MS_SETUP = MS_NR_DDL,
	MS_ALTER_COPY,
	MS_CHECKPOINT,
	MS_CLEANUP,
	MS_NR_PHASE,
};

/*
 * The calls of the per-syscall table, in its order, named as strace names
 * their syscalls' work: the store layer counts and times them per phase
 * (store_phases_init); the report reads them from there.
 */
#define MC_NR	16
extern const enum store_op ms_calls[MC_NR];

/* A table: its name number and the number of the file that holds it now */
struct ms_table {
	uint32_t name;
	uint32_t file;
	struct store_file *ibd;		/* mariadb: the tablespace stays open until DROP */
};

/* A shared log the DDL appends to: redo, binlog, DDL recovery log, WAL */
struct ms_log {
	struct store_file *f;
	char path[96];
	uint64_t off;		/* next write */
	uint64_t wrap;		/* circular within this size; 0: grows */
	unsigned int unit;	/* whole blocks of this size, the last one rewritten; 0: bytes */
};

enum { MS_LOG_A, MS_LOG_B, MS_NR_LOG };

struct ms_data {
	struct store *store;
	enum ms_flavor flavor;
	unsigned int page_size;
	unsigned int init_pages;
	unsigned int log_bytes;
	unsigned int dirsync;
	unsigned int redo_block;	/* mariadb: ib_logfile0 O_DIRECT in this block (0: buffered) */
	unsigned int ckpt_ops;
	int account;			/* time every call */
	int keep;

	struct latstat oplat[MS_NR_PHASE];
	/* non-storage time per statement (dbtime.h): round trip, parse/catalog CPU */
	uint64_t rtt_ns;
	uint64_t cpu_ns[MS_NR_DDL];	/* as the options say */
	struct dbtime_scale scale;	/* this host's CPU against the profile's */
	uint64_t burn_ns[MS_NR_DDL];	/* cpu_ns x scale.factor: what is burned */
	struct dbtime dt;
	uint64_t ops[MS_NR_PHASE];

	unsigned int mix[MS_NR_DDL];	/* weights */
	unsigned int mix_total;
	uint64_t rnd;

	struct ms_table *tables;
	unsigned int ntables, tables_cap;
	uint32_t *tombs;		/* postgres: truncated, unlinked at the checkpoint */
	unsigned int ntombs, tombs_cap;
	unsigned int since_ckpt;
	uint32_t next_name, next_file;
	unsigned int pick;		/* table of the pending ALTER */
	uint32_t shadow;		/* file number of its copy */
	int have_shadow;

	struct ms_log log[MS_NR_LOG];
	char dir[64];			/* "dbfio_ms_<job>" */
	int made_dir, made_db;
	char *buf;			/* zeroed pages, header magic in page 0 */
	size_t buflen;
	char err[256];			/* what failed, for the log line */
};

extern const char *const ms_phase_names[MS_NR_PHASE];

/* The phase the store charges calls to now (the store keeps it). */
static inline enum ms_phase ms_phase(const struct ms_data *md)
{
	return (enum ms_phase)store_phase(md->store);
}

static inline void ms_set_phase(struct ms_data *md, enum ms_phase p)
{
	store_set_phase(md->store, p);
}

static inline uint32_t ms_rand(struct ms_data *md)
{
	/* xorshift64*: reproducible per job, no locks */
	md->rnd ^= md->rnd >> 12;
	md->rnd ^= md->rnd << 25;
	md->rnd ^= md->rnd >> 27;
	return (uint32_t)((md->rnd * 0x2545F4914F6CDD1DULL) >> 32);
}

/*
 * The recipes' store calls (metastorm_ddl.c): the store counts and times
 * them; a failed one sets md->err ("<call>(<path>) failed: <cause>") and
 * returns -errno.
 */
static inline int ms_fail(struct ms_data *md, const char *call, const char *path, int ret)
{
	snprintf(md->err, sizeof(md->err), "%s(%s) failed: %s", call, path,
		 store_strerror(md->store, ret));
	return ret;
}


/* 0, or ms_fail's -errno: the one place a recipe's store call is checked */
static inline int ms_chk(struct ms_data *md, const char *call, const char *path, long ret)
{
	return ret < 0 ? ms_fail(md, call, path, (int)ret) : 0;
}

static inline int ms_open(struct ms_data *md, const char *path, int flags,
			  struct store_file **f)
{
	return ms_chk(md, "open", path, store_open(md->store, path, flags, 0640, 0, f));
}

static inline int ms_close(struct ms_data *md, struct store_file *f, const char *path)
{
	return ms_chk(md, "close", path, store_close(md->store, f));
}

static inline int ms_read(struct ms_data *md, struct store_file *f, const char *path,
			  size_t len, uint64_t off)
{
	/* reads land behind the written pages, at the end of the buffer */
	return ms_chk(md, "pread", path,
		      store_pread(md->store, f, md->buf + md->buflen - len, len, off));
}

static inline int ms_sync(struct ms_data *md, struct store_file *f, const char *path,
			  int datasync)
{
	return datasync ? ms_chk(md, "fdatasync", path, store_fdatasync(md->store, f)) :
			  ms_chk(md, "fsync", path, store_fsync(md->store, f));
}

static inline int ms_fstat(struct ms_data *md, struct store_file *f, const char *path)
{
	uint64_t size;

	return ms_chk(md, "fstat", path, store_fstat(md->store, f, &size));
}

/* a file emptied by its name (truncate(2)), as PostgreSQL's DROP does */
static inline int ms_truncate(struct ms_data *md, const char *path)
{
	return ms_chk(md, "truncate", path, store_truncate_path(md->store, path, 0));
}

static inline int ms_size(struct ms_data *md, struct store_file *f, const char *path)
{
	uint64_t size;

	return ms_chk(md, "lseek(SEEK_END)", path, store_size(md->store, f, &size));
}

static inline int ms_fallocate(struct ms_data *md, struct store_file *f, const char *path,
			       size_t len)
{
	return ms_chk(md, "fallocate", path, store_fallocate(md->store, f, 0, len));
}

/*
 * A name the database looks up and expects absent (a new relation's path,
 * a fork or segment that was never made): access(F_OK) or stat, ENOENT the
 * usual answer. Present is not an error either (a lookup changes nothing).
 */
static inline int ms_probe(struct ms_data *md, const char *path, int access)
{
	int ret = access ? store_access(md->store, path) : store_stat(md->store, path);

	return ret == -ENOENT ? 0 : ms_chk(md, access ? "access" : "stat", path, ret);
}

static inline int ms_unlink(struct ms_data *md, const char *path)
{
	return ms_chk(md, "unlink", path, store_unlink(md->store, path));
}

static inline int ms_rename(struct ms_data *md, const char *from, const char *to)
{
	return ms_chk(md, "rename", from, store_rename(md->store, from, to));
}

static inline int ms_mkdir(struct ms_data *md, const char *path)
{
	return ms_chk(md, "mkdir", path, store_mkdir(md->store, path, 0750));
}

static inline int ms_rmdir(struct ms_data *md, const char *path)
{
	return ms_chk(md, "rmdir", path, store_rmdir(md->store, path));
}

static inline int ms_write(struct ms_data *md, struct store_file *f, const char *path,
		    size_t len, uint64_t off)
{
	ssize_t ret = store_pwrite(md->store, f, md->buf, len, off);

	if (ret >= 0 && (size_t)ret != len) {
		/* the store continues short writes: this one made no progress, gave no error */
		snprintf(md->err, sizeof(md->err), "pwrite(%s) wrote %zd of %zu bytes at "
			 "offset %llu (no error given)", path, ret, len, (unsigned long long)off);
		return -EIO;
	}
	return ms_chk(md, "pwrite", path, ret);
}

/* A directory fsync is open + fsync + close, and counted as such (as strace sees it) */
static inline int ms_dirsync(struct ms_data *md, const char *dir)
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

/* metastorm_ddl.c */
int ms_ddl_setup(struct ms_data *md, unsigned int tables);
int ms_ddl_prepare(struct ms_data *md, enum ms_phase ddl);
int ms_ddl_run(struct ms_data *md, enum ms_phase ddl);
int ms_ddl_checkpoint(struct ms_data *md);
int ms_ddl_cleanup(struct ms_data *md);

/* metastorm_report.c: the table on stderr, the JSON sidecar */
struct thread_data;
void ms_report(struct thread_data *td, struct ms_data *md, int table,
	       const char *json_path);

#endif
