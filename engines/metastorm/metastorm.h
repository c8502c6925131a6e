/*
 * metastorm.h - state shared by the metastorm engine (metastorm.c: fio
 * hooks, options, report) and its DDL recipes (metastorm_ddl.c). Only
 * store.h/latstat.h types here, so both halves see one definition.
 */
#ifndef DBFIO_METASTORM_H
#define DBFIO_METASTORM_H

#include <stddef.h>
#include <stdint.h>

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

/* The calls of the per-syscall table, named as strace names their syscalls' work */
enum ms_call {
	MC_OPEN,
	MC_CLOSE,
	MC_FSYNC,
	MC_FDATASYNC,
	MC_WRITE,
	MC_READ,
	MC_UNLINK,
	MC_RENAME,
	MC_MKDIR,
	MC_FSTAT,
	MC_TRUNCATE,
	MC_RMDIR,
	MC_SIZE,		/* lseek(SEEK_END): a size probe */
	MC_FALLOCATE,
	MC_NR,
};

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
};

enum { MS_LOG_A, MS_LOG_B, MS_NR_LOG };

struct ms_data {
	struct store *store;
	enum ms_flavor flavor;
	unsigned int page_size;
	unsigned int init_pages;
	unsigned int log_bytes;
	unsigned int dirsync;
	unsigned int ckpt_ops;
	int account;			/* time every call */
	int keep;

	enum ms_phase phase;		/* where calls are charged now */
	uint64_t count[MS_NR_PHASE][MC_NR];
	struct latstat (*lat)[MC_NR];	/* [MS_NR_PHASE][MC_NR], one allocation */
	struct latstat oplat[MS_NR_PHASE];
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
extern const char *const ms_call_names[MC_NR];

/* metastorm_calls.c: accounted store calls, -errno with md->err set on failure */
uint32_t ms_rand(struct ms_data *md);
int ms_fail(struct ms_data *md, const char *call, const char *path, int ret);
int ms_open(struct ms_data *md, const char *path, int flags, struct store_file **f);
int ms_close(struct ms_data *md, struct store_file *f, const char *path);
int ms_write(struct ms_data *md, struct store_file *f, const char *path,
	     size_t len, uint64_t off);
int ms_read(struct ms_data *md, struct store_file *f, const char *path,
	    size_t len, uint64_t off);
int ms_sync(struct ms_data *md, struct store_file *f, const char *path, int datasync);
int ms_fstat(struct ms_data *md, struct store_file *f, const char *path);
int ms_truncate(struct ms_data *md, struct store_file *f, const char *path);
int ms_size(struct ms_data *md, struct store_file *f, const char *path);
int ms_fallocate(struct ms_data *md, struct store_file *f, const char *path, size_t len);
int ms_unlink(struct ms_data *md, const char *path);
int ms_rename(struct ms_data *md, const char *from, const char *to);
int ms_mkdir(struct ms_data *md, const char *path);
int ms_rmdir(struct ms_data *md, const char *path);
int ms_dirsync(struct ms_data *md, const char *dir);

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
