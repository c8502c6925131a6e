/*
 * txn.h - what the txn engine's fio hooks (txn.c) share with its fio-free
 * parts: the profiles and their tables (txn_prof.c), the buffer pool model
 * (txn_pool.c), the shared log with group commit (txn_log.c), the
 * process-wide registry of databases (txn_db.c) and a connection's client
 * (txn_client.c). No fio headers here.
 *
 * A database is shared by every connection (fio job thread) that names the
 * same store, directory and prefix: one log, one buffer pool, one
 * checkpointer, as one PostgreSQL or MariaDB server has.
 */
#ifndef DBFIO_TXN_H
#define DBFIO_TXN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "dbtime/dbtime.h"
#include "pgpage/pgpage.h"
#include "redolog/redolog.h"
#include "store/owner.h"
#include "store/store.h"

enum txn_profile_id { TP_TPCB, TP_OLTP_RW, TP_INSERT, TP_READ_ONLY, TP_NR };

#define TXN_MAX_TABLES	8
#define TXN_MAX_KEYS	20
#define TXN_MAX_STMTS	24
#define TXN_MAX_ACC	4
#define TXN_MAX_PURGE	8	/* pages a transaction leaves to purge */
#define TXN_MAX_PROBES	4

/* How a statement picks the page of a table. */
enum txn_how {
	TA_ROW,		/* the page of a row drawn uniformly (key slot) */
	TA_RANGE,	/* the pages of 100 consecutive rows from a drawn row */
	TA_APPEND,	/* the table's last page (INSERT) */
};

struct txn_acc {
	uint8_t table, how, key, dirty;
	uint8_t lock;			/* TA_ROW: hold the row until the transaction ends */
	uint8_t purge;			/* InnoDB: purge accesses the page again after commit */
};

struct txn_stmt {
	const char *sql;		/* what it stands for (docs, debug) */
	uint8_t nacc;
	struct txn_acc acc[TXN_MAX_ACC];
	/*
	 * postgres: the tables whose size the statement asks with lseek(SEEK_END)
	 * (the planner sizes a table and each of its indexes; a seq scan the
	 * table again), as strace shows PostgreSQL 15 doing; InnoDB makes none.
	 */
	uint8_t nprobe;
	uint8_t probe[TXN_MAX_PROBES];
};

struct txn_table {
	const char *name;
	uint64_t rows;			/* rows at load time */
	uint32_t rows_per_page;		/* at the flavor's page size */
	uint64_t pages;			/* pages at load time (append: capacity) */
	int append;			/* grows by INSERTs: not loaded, wraps at pages */
};

/* A profile resolved for one database: tables sized, statements listed. */
struct txn_profile {
	int id;
	const char *name;
	unsigned int ntables, nstmts, nkeys;
	struct txn_table t[TXN_MAX_TABLES];
	struct txn_stmt s[TXN_MAX_STMTS];
	uint8_t key_table[TXN_MAX_KEYS];	/* key slot -> table its row is drawn from */
	uint32_t log_bytes;		/* log record bytes per transaction (0: read-only) */
	uint32_t binlog_bytes;		/* mysql binlog event bytes per transaction */
};

const char *txn_profile_name(int id);
/* Size the tables (scale: pgbench's; rows: sysbench's table_size) for a page size. */
void txn_profile_make(struct txn_profile *p, int id, unsigned int scale, uint64_t rows,
		      uint32_t page_size);

/* ---- buffer pool ---- */
struct txn_frame {
	uint64_t tag;			/* global page number; UINT64_MAX: free */
	int32_t next;			/* hash chain */
	uint8_t usage, dirty, busy;
	/* dirtied since the checkpointer began writing it (PostgreSQL's BM_JUST_DIRTIED) */
	uint8_t redirtied;
	uint8_t flushing;		/* in the page cleaner's batch: not a victim */
};

struct txn_pool_stats {
	uint64_t hits, misses, reads, evict_writes, ckpt_cleaned, fpis, dblwr_writes;
	uint64_t cleaner_batches, cleaner_pages;	/* InnoDB's page cleaner (txn_cleaner.c) */
	uint64_t freed;				/* frames its batches freed */
};

struct txn_pool {
	pthread_mutex_t m;
	pthread_cond_t io_done;
	struct txn_frame *f;
	int32_t *bucket;
	uint32_t nframes, nbuckets, hand, used;
	const struct pg_geom *g;
	struct pg_ckpt *ck;		/* told of every page going clean -> dirty; NULL: none */
	uint32_t *fpi_epoch;		/* full_page_writes: per page, the checkpoint of its last image */
	/*
	 * InnoDB (cleaner 1): a page cleaner thread writes the dirty pages about
	 * to be evicted; a miss takes a clean victim and wakes it, and writes a
	 * dirty victim itself only when the sweep finds no clean one.
	 */
	int cleaner;
	pthread_cond_t cl_cv;		/* the cleaner waits here (with m) */
	int cl_wake;
	/*
	 * InnoDB's free list (free_target = innodb_lru_scan_depth; 0: none): a
	 * miss takes a free frame first; the cleaner's batches evict clean
	 * frames and write dirty ones from the sweep until that many are free
	 * (txn_pool.c: want_free).
	 */
	int32_t *freel;
	uint32_t nfree, free_target;
	struct txn_pool_stats st;
};

/* Per connection: its store and its handles on the segment files. */
struct txn_io {
	struct store *s;
	struct store_file **files;	/* per segment */
	void *buf;			/* one page */
	const struct pg_geom *g;
	/* InnoDB's doublewrite before an eviction write: 0 none, 1 fsync, 2 fdatasync */
	int dblwr;
	int direct;			/* open the tables O_DIRECT (innodb_flush_method) */
	const char *dw_name;
	struct store_file *dw;
	uint64_t dw_off;		/* this connection's slot */
	uint64_t probes, extends;	/* size probes, relation extensions made */
	char err[256];
};

/* fpw: PostgreSQL's full_page_writes (the first change after a checkpoint logs the page). */
int txn_pool_init(struct txn_pool *p, uint32_t nframes, const struct pg_geom *g, int fpw);
void txn_pool_free(struct txn_pool *p);
/*
 * Access one page; a miss reads it (and may write a dirty victim) through io;
 * fresh: a new page (extension), nothing to read. *fpi += 1 when a change
 * needs a full-page image in the log. 1 hit, 0 miss, <0 error.
 */
int txn_pool_access(struct txn_pool *p, struct txn_io *io, uint64_t gpage, int dirty,
		    int fresh, unsigned int *fpi);
/*
 * The page cleaner (InnoDB): caller holds p->m. Up to max dirty pages with
 * no recent use near the clock hand, marked flushing and taken out of the
 * checkpointer's sets (each inside pg_guard_enter: the caller leaves the
 * guard after its write); their pages in out. -> how many.
 */
uint32_t txn_pool_lru_batch(struct txn_pool *p, uint64_t *out, uint32_t max);
/* Caller holds p->m: the batch is written (failed: not), clean unless changed meanwhile. */
void txn_pool_batch_done(struct txn_pool *p, const uint64_t *pages, uint32_t n, int failed);
/* Caller holds the lock: with a free list, the cleaner's next batch goes at once. */
int txn_pool_need_eviction(const struct txn_pool *p);
/* The checkpointer is about to write this page: a change from now on keeps it dirty. */
void txn_pool_writing(struct txn_pool *p, uint64_t gpage);
/* The checkpointer wrote this page: clean again, unless changed since txn_pool_writing. */
void txn_pool_cleaned(struct txn_pool *p, uint64_t gpage);
int txn_io_init(struct txn_io *io, struct store *s, const struct pg_geom *g);
void txn_io_free(struct txn_io *io);
int txn_io_page(struct txn_io *io, uint64_t gpage, int write);
/* PostgreSQL's smgrnblocks: lseek(SEEK_END) on the segment of gpage; *size its bytes. */
int txn_io_size(struct txn_io *io, uint64_t gpage, uint64_t *size);
/*
 * PostgreSQL's relation extension (a new page for an INSERT): smgrnblocks,
 * then smgrextend writes the new page at the end of the file. gpage is the
 * page the model appends to: nothing is written when the file already holds
 * it (a table wrapped, or a rerun's page).
 */
int txn_io_extend(struct txn_io *io, uint64_t gpage);

/* ---- InnoDB's page cleaner (txn_cleaner.c) ---- */
struct txn_cleaner {
	pthread_t th;
	int started, stop;		/* stop: under the pool's m */
	struct txn_pool *p;
	struct txn_log *log;		/* made durable before each batch (NULL: not) */
	struct store *s;		/* its own */
	struct txn_io io;		/* its handles on the tables */
	uint64_t *pages;		/* a batch */
	void *dwbuf;			/* a batch of zero pages */
	atomic_int error;		/* first error (-errno), err its line */
	char err[320];
};

/*
 * Start the page cleaner of pool p: its own store on cfg, the tables of g
 * (direct: O_DIRECT), a batch doublewritten first to dw_name (dblwr 1:
 * fsync, 2: fdatasync; 0: no doublewrite). -> 0 or -errno (err: one line).
 */
int txn_cleaner_start(struct txn_cleaner *c, struct txn_pool *p, struct txn_log *log,
		      const struct store_config *cfg, const struct pg_geom *g, int dblwr,
		      const char *dw_name, int direct, char *err, size_t errlen);
void txn_cleaner_stop(struct txn_cleaner *c);

/* InnoDB's purge (txn_purge.c): the pages committed transactions marked, accessed again. */
struct txn_purge_worker {
	struct txn_purge *u;
	pthread_t th;
	int started;
	struct store *s;		/* its own */
	struct txn_io io;		/* its handles on the tables */
};

struct txn_purge {
	pthread_mutex_t m;
	pthread_cond_t cv;
	int inited, started, stop;	/* stop: under m */
	struct txn_pool *p;
	struct txn_purge_worker *w;	/* innodb_purge_threads of them */
	unsigned int nw, batch;
	uint64_t *ring;			/* the queued pages: the history list */
	uint32_t head, n, rel, txns;	/* queued pages; of them released to the workers; txns queued */
	atomic_int error;		/* first error (-errno), err its line */
	char err[320];
	/* kept after txn_purge_stop, for the summary */
	uint64_t pages, batches, dropped, left;	/* accessed; batches; dropped (queue full); queued at close */
};

struct txn_purge_cfg {
	const struct store_config *store;
	const struct pg_geom *g;
	unsigned int threads;		/* innodb_purge_threads */
	unsigned int batch;		/* innodb_purge_batch_size: transactions a batch */
	int dblwr, direct;		/* as the connections' */
	const char *dw_name;
};

/* Start the purge of pool p. 0 or -errno (err: one line); txn_purge_stop frees a failed start too. */
int txn_purge_start(struct txn_purge *u, struct txn_pool *p, const struct txn_purge_cfg *c,
		    char *err, size_t errlen);
/* A committed transaction's pages (gpages), queued for the purge threads. */
void txn_purge_add(struct txn_purge *u, const uint64_t *pages, unsigned int n);
void txn_purge_stop(struct txn_purge *u);

/* ---- the shared log ---- */
#define TXN_BINLOG	"binlog.000001"	/* the mysql flavor's first binlog (rotated at max_binlog_size) */
#define TXN_BINLOG_FMT	"binlog.%06llu"
#define TXN_BINLOG_INDEX "binlog.index"	/* the binlog files' list, as MariaDB keeps it */
#define TXN_BINLOG_KEEP	4		/* binlog files kept; past them the oldest is removed */
struct txn_log_cfg {
	struct rl_cfg rl;
	int postgres;
	uint64_t commit_delay_ns;
	unsigned int commit_siblings;
	int log_bin;			/* mysql: a binlog, group-committed with the redo log */
	unsigned int sync_binlog;	/* fsync the binlog every N groups (0: never) */
	uint64_t max_binlog;		/* max_binlog_size: the binlog rotates to a new file here */
	uint64_t flush_wait_ns;		/* each flush takes this much longer (flush_wait, debug_flush_delay) */
	const char *group_trace;	/* local file: one line per flush, its group size */
	uint64_t ckpt_wal;		/* request a checkpoint every this many log bytes (0: no) */
	uint64_t ckpt_sync;		/* innodb: commits stall at this checkpoint age (0: never) */
	unsigned int bg_share;		/* innodb: % of a commit's log bytes logged once a second */
};

struct txn_log_stats {
	uint64_t commits, flushes, writes, delays, binlog_syncs, binlog_rotations, max_group, wal_ckpts;
	uint64_t sync_stalls;		/* innodb: commits that waited at ckpt_sync */
	uint64_t cleaner_flushes;	/* innodb: the page cleaner's log flushes before a batch */
	uint64_t binlog_purges;
	uint64_t bg_batches, bg_bytes;
	uint64_t hist[9];		/* group sizes 1,2,3-4,5-8,...,>128 */
};

struct txn_log {
	struct txn_log_cfg c;
	pthread_mutex_t m;
	pthread_cond_t cv;
	struct rl_log rl;
	int rl_open;
	struct store *s;		/* the log's own; used by one flusher at a time */
	int busy;			/* the write lock: a connection writes/flushes rl (m not held) */
	uint64_t ins_lsn;		/* end of the records inserted so far (rl's LSN) */
	uint32_t *q;			/* inserted records' lengths, not yet in rl's buffer */
	unsigned int qcap, qhead, qcount;
	uint64_t qbytes, qmax;		/* their bytes; at most a log buffer's */
	uint64_t flushed_lsn, written_lsn;
	uint64_t nrec, nrec_flushed;	/* records appended / covered by a flush */
	uint64_t bg_pending;		/* background log bytes, appended by the timer */
	int bbusy;			/* the binlog group's leader writes, syncs, rotates (m not held) */
	struct store *bs;		/* the binlog's own store: the leader's */
	struct owner bown;		/* claims the binlog files it rotates to */
	int bown_on;
	struct store_file *binlog, *bindex;
	uint64_t binlog_no, binlog_first, bindex_off;	/* current file, oldest kept, index's end */
	uint64_t binlog_off, binlog_pending, binlog_groups;
	uint64_t binlog_queued, binlog_done;	/* binlog bytes of all commits / written by a leader */
	pthread_t timer;
	int timer_on, stop;
	/* connections with an xid, not waiting on a row lock (MinimumActiveBackends) */
	atomic_uint active;
	FILE *trace;
	struct pg_ckpt *ck;		/* max_wal_size's checkpoint requests go here */
	uint64_t ckpt_from;		/* LSN of the last request */
	uint64_t ckpt_redo;		/* LSN at the running checkpoint's start */
	uint64_t ckpt_done;		/* LSN at the last completed checkpoint's start */
	struct txn_log_stats st;
	struct dbtime wait;		/* flush_wait's sleeps, by the flusher of the moment */
	char err[768];
	int error;
};

int txn_log_open(struct txn_log *l, struct store *s, const struct txn_log_cfg *c);
/* InnoDB's page cleaner: the log written and synced up to every record inserted (0 or -errno, l->err). */
int txn_log_flush_all(struct txn_log *l);
/*
 * log_bin: create (or empty) the binlog and its index on a store of their own
 * (sc: the log's directory); the caller has claimed both names.
 */
int txn_log_open_binlog(struct txn_log *l, const struct store_config *sc);
/* pg_ckpt_conf.phase: a checkpoint began (done 0) or ended (1); arg is the txn_log. */
void txn_log_ckpt_phase(void *arg, int done);
void txn_log_close(struct txn_log *l);
/* Append the transaction's records and wait until the commit is as durable as configured. */
int txn_log_commit(struct txn_log *l, uint32_t bytes, uint32_t binlog_bytes);

/* ---- row locks (txn_lock.c) ---- */
struct txn_lock_waiter;			/* txn_lock.c: a connection queued on a row */
struct txn_locks {
	pthread_mutex_t m;
	struct {
		uint64_t row;
		const void *owner;
		struct txn_lock_waiter *first, *last;	/* FIFO: who gets it next */
	} *held;
	unsigned int n, cap;
	int init;
	struct { uint64_t locks, waits, wait_ns; } st;
};

int txn_locks_init(struct txn_locks *l);
void txn_locks_free(struct txn_locks *l);
/*
 * Wait until no other owner holds (table, row), then hold it; -1: out of
 * memory. Waiters queue first come first served. active (may be NULL): a
 * count the owner leaves while it waits (commit_siblings' active backends).
 */
int txn_lock_row(struct txn_locks *l, const void *owner, unsigned int table, uint64_t row,
		 atomic_uint *active);
/* The transaction ended: hand each row owner holds to its first waiter (waking it alone), or free it. */
void txn_unlock_all(struct txn_locks *l, const void *owner);

/* ---- the database's background CPU (txn_bgcpu.c) ---- */
struct txn_bgcpu {
	pthread_t th;
	pthread_mutex_t m;
	pthread_cond_t cv;
	uint64_t ns;			/* a transaction's (background_cpu=) */
	uint64_t pending_ns, left_ns;
	struct dbtime dt;		/* the thread's own account: what it burned */
	int started, stop;
};

/* Start the thread that burns NS_PER_TXN a transaction (none if 0). -> 0 or -errno. */
int txn_bgcpu_start(struct txn_bgcpu *b, uint64_t ns_per_txn);
/* A transaction ended: its background CPU is pending. */
void txn_bgcpu_add(struct txn_bgcpu *b);
/* Stop and join the thread; what was not burned stays in left_ns. */
void txn_bgcpu_stop(struct txn_bgcpu *b);

/* ---- the database: shared by its connections ---- */
/*
 * The database's summary in the user's words (txn_sum.c): its transactions,
 * tps and latency as pgbench and sysbench print them. Every connection
 * counts its own (struct txn_sum, one thread's) and merges it into the
 * database's as it detaches; the last one prints it. The latency histogram
 * is log-linear, fio's scheme with 128 sub-buckets a power of two (fio's
 * 64), a percentile the middle of its bucket: within 0.4 % of the exact one.
 */
#define TXN_SUM_BITS		7
#define TXN_SUM_SUB		(1u << TXN_SUM_BITS)
#define TXN_SUM_BUCKETS		(48u << TXN_SUM_BITS)	/* up to 2^47 ns */

struct txn_sum {
	uint64_t count, sum_ns;
	uint64_t first_ns, last_ns;	/* first transaction's start, last one's end */
	/*
	 * merged: the longest connection's first..last, as fio's group runtime
	 * is its longest job's (connections start apart: the first loads)
	 */
	uint64_t span_ns;
	unsigned int conns;		/* connections merged */
	uint64_t bucket[TXN_SUM_BUCKETS];
};

/*
 * The host's CPU against the profile's (cpu_ref=, cpu_scale=): both figures
 * are dbtime_cpu_ref() over cpu_working_set, the profile's measured on the
 * machine it was calibrated on; the CPU options are scaled by host / profile.
 */
struct txn_cpu {
	struct dbtime_scale ref;	/* the host's figure, the profile's, the factor */
	/* a statement's server and client CPU, a durable commit's, in ns, scaled */
	uint64_t cpu_ns, client_ns, commit_ns;
};

/* What the summary says beside the counts (copied: the jobs' options go first). */
struct txn_sum_info {
	const char *db;			/* the database: store:directory */
	const char *profile;		/* txn_profile= */
	const char *flavor;
	const char *calibration;	/* calibration=: the profile, its machine and date */
	const char *timing;		/* the values of the options a calibration sets */
	struct txn_cpu cpu;		/* the host's CPU against the profile's */
	uint64_t commits, flushes;	/* the log's, the whole run */
};

void txn_sum_add(struct txn_sum *s, uint64_t start_ns, uint64_t end_ns);
void txn_sum_merge(struct txn_sum *dst, const struct txn_sum *src);
/* fio's rule: the first bucket whose running count reaches p % of the count */
uint64_t txn_sum_pct(const struct txn_sum *s, double p);
double txn_sum_tps(const struct txn_sum *s);
void txn_sum_print(FILE *f, const struct txn_sum *s, const struct txn_sum_info *in);
/* The summary as one JSON object (summary_json=), a json_body_fn's arguments. */
struct json_out;
struct txn_sum_json {
	const struct txn_sum *s;
	const struct txn_sum_info *in;
};
void txn_sum_json(struct json_out *j, void *arg);

/* cpu_working_set_shared= */
enum txn_ws_share { TXN_WS_AUTO, TXN_WS_PRIVATE, TXN_WS_SHARED };

struct txn_db_cfg {
	char key[512];			/* store + directory + prefix */
	char calibration[512];		/* txn_sum_info.calibration and .timing */
	char timing[256];
	char waldir[512];		/* the log's directory ("": the database's) */
	struct store_config store;
	struct txn_profile prof;
	uint32_t page_size;
	uint64_t pool_bytes;
	int prefill, prewarm, fpw, dblwr;
	int data_direct;		/* InnoDB: the tables O_DIRECT where the directory takes it */
	int row_locks;			/* 0: updates never wait on each other */
	int purge;			/* InnoDB: purge=1 (txn_purge.c) */
	unsigned int purge_threads, purge_batch;
	unsigned int lru_depth;		/* InnoDB: innodb_lru_scan_depth, the free list's target */
	uint64_t cpu_ws;		/* cpu_working_set= */
	int cpu_ws_shared;		/* the connections share one (struct txn_db.cpu_set) */
	uint64_t bg_cpu_ns;		/* background_cpu= a transaction, scaled */
	struct txn_cpu cpu;
	struct pg_ckpt_conf ckpt;
	struct txn_log_cfg log;
};

struct txn_db {
	struct txn_db *next;
	unsigned int refs;
	struct txn_db_cfg c;
	struct store *s;		/* set-up and the log */
	struct store *ws;		/* the log's, when waldir= puts it elsewhere */
	struct pg_geom g;
	struct txn_pool pool;
	struct pg_ckpt *ck;
	struct txn_cleaner cl;		/* InnoDB's page cleaner */
	struct txn_log log;
	struct txn_locks locks;
	struct txn_bgcpu bg;
	struct txn_purge pu;		/* InnoDB's purge */
	uint8_t *cpu_set;		/* the connections' working set, when shared */
	struct owner own, wown;		/* the names claimed in the directory, and in waldir= */
	int own_ok;
	atomic_ullong append_rows[TXN_MAX_TABLES];
	uint64_t ck_stats[3];		/* checkpoints, pages written, fsyncs (after close) */
	char store_root[4096];
	struct txn_sum sum;		/* the connections', merged as they detach */
};

/* Find or create the database; on failure err gets one line and *errp the -errno. */
struct txn_db *txn_db_attach(const struct txn_db_cfg *c, char *err, size_t errlen, int *errp);
/* The checkpointer's first error (-errno; msg: its line), or 0. Any connection. */
int txn_db_ckpt_error(struct txn_db *db, const char **msg);
/*
 * Last connection out closes it; returns 1 when this call closed it (summary
 * printed to f): then *sum (the connections' txn_sum merged, this one's
 * too) and *info are the database's, for the caller to write and free.
 * mine: this connection's, or NULL.
 */
int txn_db_detach(struct txn_db *db, FILE *f, const struct txn_sum *mine,
		  struct txn_sum **sum, struct txn_sum_info *info);
uint64_t txn_db_gpage(const struct txn_db *db, unsigned int table, uint64_t page);
/*
 * A connection's client on the database's host (pgbench, sysbench): a thread
 * of its own that the connection hands each statement to and gets it back
 * from, as a client and its backend do over loopback: two wake-ups a
 * statement, which wait for a core when the machine is busy.
 */
struct txn_client {
	pthread_t th;
	int fd[2];			/* [0] the connection's end, [1] the client's (txn_client.c) */
	uint64_t ns;			/* CPU a statement, burned by the client */
	struct dbtime dt;		/* the client thread's own account and working set */
	int started;
	uint64_t ws;			/* bytes, the client's working set */
	int hosted;			/* client_process=1: a thread of the clients' process */
	int tcp;			/* client_tcp=1: the ends are TCP sockets */
	int dead;			/* hosted: the clients' process died (atomic) */
	struct txn_client *next;	/* hosted: the list a dead host's connections are woken from */
};
/*
 * Start the client (burns ns a statement over ws bytes): a thread of fio's,
 * or with proc a thread of the clients' process, in a session of its own;
 * the statements go over eventfds, or with tcp a loopback TCP connection
 * (txn_client.c). -> 0 or -errno.
 */
int txn_client_start(struct txn_client *c, uint64_t ns, uint64_t ws, int proc, int tcp);
/* Hand a statement's reply to the client, which burns its CPU ... */
int txn_client_send(struct txn_client *c);
/* ... and wait until it hands the next statement back. -> 0 or -errno. */
int txn_client_wait(struct txn_client *c);
/* Stop and join the thread; its CPU stays in c->dt.cpu_ns. */
void txn_client_stop(struct txn_client *c);

/* The doublewrite file's name: "#ib_16384_0.dblwr" (mysql) or "ibdata1" (mariadb). */
const char *txn_db_dw_name(const struct txn_db *db);

#endif
