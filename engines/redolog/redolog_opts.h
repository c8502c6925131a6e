/*
 * redolog_opts.h - the log model's options, declared once: the InnoDB redo
 * log and PostgreSQL WAL settings that every engine writing the log (redolog,
 * txn) exposes, and their one translator into the log writer's struct rl_cfg
 * (redolog_opts.c). An engine embeds a struct rl_opts in its options struct
 * and splices RL_OPTIONS(its_struct, member) into its option table, so fio
 * shows and checks the same option (type, choices, range, default, help) in
 * both. The settings only one engine has stay in that engine's table.
 *
 * No fio headers: RL_OPTIONS() expands to FIO_ENGINE_* entries
 * (glue/fio_store.h) only where an engine's option table uses it.
 */
#ifndef DBFIO_REDOLOG_OPTS_H
#define DBFIO_REDOLOG_OPTS_H

#include <stddef.h>
#include "redolog.h"

struct rl_opts {
	unsigned int flavor;		/* RL_OPT_FLAVOR(enum rl_flavor); 0: not given */
	unsigned long long log_file_size;	/* innodb_log_file_size; 0: the flavor's */
	unsigned int flush_method;	/* enum rl_innodb_method; 0: not given */
	unsigned int trx_commit;	/* innodb_flush_log_at_trx_commit */
	unsigned int wal_sync_method;	/* enum rl_wal_method */
	unsigned long long wal_segment_size;
	unsigned int wal_segments;
	unsigned long long min_wal_size;	/* 0: wal_segments' worth */
	unsigned int wal_init_zero;	/* postgres: a created segment zero-filled */
	unsigned int wal_recycle;	/* postgres: freed segments renamed ahead, else removed */
};

/*
 * flavor= as fio stores it: enum rl_flavor + 1, so that 0 is "not given".
 * Not given, each engine keeps the database it has always modelled (its
 * help says which): redolog InnoDB's redo log (mysql), txn pgbench's
 * transaction on PostgreSQL.
 */
#define RL_OPT_FLAVOR(f)	((f) + 1)
static inline int rl_opts_flavor(const struct rl_opts *o, int engine_default)
{
	return o->flavor ? (int)o->flavor - 1 : engine_default;
}

/* The choices' names, for messages. */
static inline const char *rl_innodb_method_name(unsigned int m)
{
	return m == RL_IM_FSYNC ? "fsync" : m == RL_IM_O_DSYNC ? "O_DSYNC" :
	       m == RL_IM_O_DIRECT ? "O_DIRECT" : m == RL_IM_O_DIRECT_NO_FSYNC ? "O_DIRECT_NO_FSYNC" : "";
}
static inline const char *rl_wal_method_name(unsigned int m)
{
	return m == RL_WM_FDATASYNC ? "fdatasync" : m == RL_WM_FSYNC ? "fsync" :
	       m == RL_WM_OPEN_DATASYNC ? "open_datasync" : "open_sync";
}

#define RL_FLAVOR_HELP	"Database whose log is modelled (not given: mysql in redolog, postgres in txn)"

/* wal_sync_method's choices (fio's struct value_pair) */
#define RL_WAL_METHODS									\
	{ .ival = "fdatasync", .oval = RL_WM_FDATASYNC, .help = "write, then fdatasync" },	\
	{ .ival = "fsync", .oval = RL_WM_FSYNC, .help = "write, then fsync" },		\
	{ .ival = "open_datasync", .oval = RL_WM_OPEN_DATASYNC, .help = "segments opened O_DSYNC" }, \
	{ .ival = "open_sync", .oval = RL_WM_OPEN_SYNC, .help = "segments opened O_SYNC" }

/* The shared options, for an engine's fio option table (T its options struct, m the member). */
#define RL_OPTIONS(T, m)								\
	FIO_ENGINE_CHOICE(T, "flavor", m.flavor, RL_FLAVOR_HELP, NULL,			\
		{ .ival = "mysql", .oval = RL_OPT_FLAVOR(RL_MYSQL),			\
		  .help = "MySQL 8.0: InnoDB redo log (txn: 16k pages)" },		\
		{ .ival = "mariadb", .oval = RL_OPT_FLAVOR(RL_MARIADB),			\
		  .help = "MariaDB 10.11: InnoDB redo log (txn: 16k pages)" },		\
		{ .ival = "postgres", .oval = RL_OPT_FLAVOR(RL_POSTGRES),		\
		  .help = "PostgreSQL 15: WAL (txn: 8k pages)" }),			\
	FIO_ENGINE_RANGE(T, "innodb_log_file_size", FIO_OPT_ULL, m.log_file_size,	\
		"mysql/mariadb: size of each redo log file (0: 48M mysql x2, 96M mariadb; "	\
		"else a multiple of the log block holding 16 blocks, at most 512G)",	\
		"0", 0, 512ull << 30),							\
	FIO_ENGINE_CHOICE(T, "innodb_flush_method", m.flush_method,			\
		"mysql/mariadb: how the log is made durable (not given: fsync for mysql; "	\
		"mariadb as 10.11 decides: O_DIRECT in the physical block size where the log "	\
		"sits on a block device, else buffered; redolog: innodb_log_file_buffering "	\
		"and innodb_log_write_size say which)", NULL,				\
		{ .ival = "fsync", .oval = RL_IM_FSYNC,					\
		  .help = "buffered log, write then fsync (mariadb: fdatasync)" },	\
		{ .ival = "O_DSYNC", .oval = RL_IM_O_DSYNC,				\
		  .help = "log opened O_SYNC (mariadb: O_DSYNC), no flush" },		\
		{ .ival = "O_DIRECT", .oval = RL_IM_O_DIRECT,				\
		  .help = "log opened O_DIRECT, then fsync (mariadb: fdatasync)" },	\
		{ .ival = "O_DIRECT_NO_FSYNC", .oval = RL_IM_O_DIRECT_NO_FSYNC,		\
		  .help = "as O_DIRECT for the log (NO_FSYNC spares data files only)" }),	\
	FIO_ENGINE_RANGE(T, "innodb_flush_log_at_trx_commit", FIO_OPT_INT, m.trx_commit,	\
		"mysql/mariadb: 1 write+flush per commit (grouped), 2 write per commit + "	\
		"flush each second, 0 both each second", "1", 0, 2),			\
	FIO_ENGINE_CHOICE(T, "wal_sync_method", m.wal_sync_method,			\
		"postgres: how the WAL is made durable", "fdatasync", RL_WAL_METHODS),	\
	FIO_ENGINE_POW2(T, "wal_segment_size", FIO_OPT_ULL, m.wal_segment_size,		\
		"postgres: WAL segment size", "16M", 1 << 20, 1 << 30),			\
	FIO_ENGINE_RANGE(T, "wal_segments", FIO_OPT_INT, m.wal_segments,		\
		"postgres: WAL segments kept and recycled (min_wal_size / wal_segment_size)",	\
		"5", 2, 1024),								\
	FIO_ENGINE_RANGE(T, "min_wal_size", FIO_OPT_ULL, m.min_wal_size,		\
		"postgres: WAL kept and recycled, in whole segments (0: wal_segments of them; "	\
		"given: wal_segments = min_wal_size / wal_segment_size, 2..1024)", "0", 0, 1ull << 40), \
	FIO_ENGINE_BOOL(T, "wal_init_zero", m.wal_init_zero,				\
		"postgres: a WAL segment created during the run is zero-filled (0: one byte "	\
		"written at its end)", "1"),						\
	FIO_ENGINE_BOOL(T, "wal_recycle", m.wal_recycle,				\
		"postgres: segments a checkpoint frees are renamed to future ones (0: removed, "	\
		"every new segment created)", "1")

/*
 * What the engine knows beside the shared options: the flavor it models when
 * flavor= is not given, and a mariadb log's device as MariaDB 10.11 sees it at
 * start-up (redolog: its innodb_log_file_buffering and innodb_log_write_size;
 * txn: the file system under the log, rl_mariadb_log_block).
 */
struct rl_opts_env {
	int flavor;			/* enum rl_flavor when flavor= is not given */
	unsigned int mariadb_block;	/* ib_logfile0's write size; 0: 512-byte blocks */
	int mariadb_direct;		/* innodb_flush_method not given: ib_logfile0 O_DIRECT */
};

/*
 * The shared options into c (cleared first): flavor, geometry (rl_geo),
 * open flags, flush, trx_commit, and the log model's defaults for what only
 * one engine sets (bufsize 16M, mysql write-ahead 8192). Returns 0, or -EINVAL
 * with err naming the option, the value and the rule fio's parser cannot
 * check ("innodb_log_file_size=1024: must be ...").
 */
int rl_opts_to_cfg(const struct rl_opts *o, const struct rl_opts_env *env, struct rl_cfg *c,
		   char *err, size_t len);

/*
 * MariaDB 10.11's choice for ib_logfile0 in DIR: with innodb_log_file_buffering
 * not given it opens the log O_DIRECT when the file system sits on a block
 * device whose physical block size it can read (/sys/dev/block/MAJ:MIN/queue/,
 * or the disk's for a partition), writes rounded to that size ("File system
 * buffers for log disabled (block size=N bytes)"), and buffered in 512-byte
 * blocks where there is none (FUSE: ceph-fuse; tmpfs): "Buffered log writes".
 * Returns the block size (64..4096, a power of 2), or 0 for buffered.
 */
unsigned int rl_mariadb_log_block(const char *dir);

/*
 * The same choice for a log in DIR of a store whose capabilities are CAPS:
 * a local directory is asked as above; an image store (store=rbd) stands for
 * a file system on the image, whose block device reports 512 bytes (ext4 on
 * rbd-fuse + loop); anything else (store=cephfs: ceph-fuse's case) is
 * buffered, as is a local directory whose backend does not honour O_DIRECT.
 * Every engine that models MariaDB's redo log asks this, so txn and
 * metastorm open it alike.
 */
unsigned int rl_mariadb_store_block(unsigned int caps, const char *dir);

#endif
