/*
 * txn - whole transactions of concurrent database connections: a fio job is
 * one connection (numjobs= connections, group_reporting), an io_u is one
 * transaction of a named profile (txn_prof.c), so fio's clat is the
 * transaction's latency and its IOPS the database's tps.
 *
 * Per statement a connection sleeps one client round trip (rtt), burns
 * cpu_per_stmt (and a client on the same host's client_cpu_per_stmt) of its
 * own thread's CPU time (measured with
 * CLOCK_THREAD_CPUTIME_ID, so connections compete for cores as backends do)
 * and touches its pages through the database's buffer pool (txn_pool.c): a
 * miss is a page read through the store. The last statement commits: its log
 * record goes into the database's one log, flushed with the database's own
 * group commit (txn_log.c, over redolog's writer); a durable commit then
 * burns commit_cpu, and a flush waits flush_wait: what the real ones cost
 * beyond their log calls (lab/txncalib measures both); background_cpu is
 * burned by a thread of the database beside them (txn_bgcpu.c). The connections of a
 * database are the jobs that name the same store and directory
 * (txn_db.c); the first one loads the tables, the last one prints the
 * database's summary (commits, flushes, group sizes, hit ratio, checkpoints).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"
#include "optgroup.h"

#include "dbtime/dbtime.h"
#include "glue/fio_calib.h"
#include "glue/fio_report.h"
#include "glue/fio_store.h"
#include "txn.h"
#include "redolog/redolog_opts.h"

struct txn_data {
	struct txn_db *db;
	struct store *store;
	struct txn_io io;
	int io_ok;
	uint64_t rnd;
	uint64_t txns, stmts;
	struct dbtime dt;		/* CPU burned, round trips slept */
	struct txn_client client;	/* client_thread=1: the client's half (txn_client.c) */
	uint64_t key[TXN_MAX_KEYS];
	unsigned int fpi;		/* full-page images of this transaction */
	uint64_t purge[TXN_MAX_PURGE];	/* InnoDB: the pages purge comes back to after commit */
	unsigned int npurge;
	int xid;			/* counted in the log's active (has written) */
	struct txn_sum *sum;		/* this connection's part of the summary */
};

struct txn_options {
	void *pad;	/* fio stores td here; off1 must not be 0 */
	struct store_opts so;
	unsigned int profile;			/* enum txn_profile_id */
	char *summary_json;			/* the database's summary as JSON */
	struct rl_opts rl;			/* the log model's options, shared with redolog */
	unsigned int scale;
	unsigned long long table_size;
	unsigned long long shared_buffers;
	unsigned long long innodb_pool;
	unsigned long long rtt;			/* usec */
	unsigned long long cpu;			/* usec */
	unsigned long long client_cpu;		/* usec */
	unsigned long long commit_cpu;		/* usec */
	unsigned long long bg_cpu;		/* usec, a transaction */
	unsigned int after_reply;		/* percent of cpu */
	unsigned long long cpu_ws;		/* bytes */
	unsigned int cpu_ws_share;		/* enum txn_ws_share */
	unsigned long long cpu_ref;		/* ns, the profile's machine (0: none) */
	unsigned long long cpu_ref_ws;		/* bytes cpu_ref was measured over (0: cpu_ws) */
	unsigned int cpu_scale;
	unsigned long long client_ws;		/* bytes, the client thread's */
	unsigned int log_bytes;
	unsigned long long commit_delay;	/* usec */
	unsigned int commit_siblings;
	unsigned int bg_share;
	unsigned int log_bin;
	unsigned int sync_binlog;
	unsigned long long max_binlog;
	unsigned int checkpoint_timeout;
	unsigned int prefill;
	unsigned int prewarm;
	unsigned int fpw;
	unsigned int doublewrite;
	unsigned int row_locks;
	unsigned int purge, purge_threads, purge_batch, lru_depth;
	unsigned int client_thread;
	unsigned int client_process;
	unsigned int client_tcp;
	unsigned long long max_wal_size;
	char *group_trace;
	char *waldir;
	unsigned long long flush_wait;		/* usec */
	unsigned long long debug_flush;		/* usec */
	char *calibration;			/* calibration= as typed */
	/* the applied profile's identity, for the summary: calibration=, then
	 * its header's first two lines (what it calibrates; host and date) */
	char calib_id[FIO_CALIB_ID_LEN];
};

/* flavor= not given: pgbench's transaction on PostgreSQL (RL_FLAVOR_HELP says so) */
#define TXN_FLAVOR_DEFAULT	RL_POSTGRES
#define TXN_FLAVOR(o)		rl_opts_flavor(&(o)->rl, TXN_FLAVOR_DEFAULT)

#define T struct txn_options
#define TEN_S	10000000	/* usec */

/* a pool holds at least 16 pages: 8k (postgres) or 16k (mysql/mariadb) */
static int txn_calibration(void *data, const char *value);

static struct fio_option options[] = {
	FIO_STORE_OPTIONS(T, so),
	FIO_CALIB_OPTION(T, calibration, txn_calibration,
		"The round trip, CPU and log of a real database: postgres15 or mariadb1011 "
		"(shipped), a profile file written by lab/txncalib (a path with a '/'), or "
		"none (uncalibrated defaults); options after it override it"),
	FIO_ENGINE_CHOICE(T, "txn_profile", profile, "Transaction", "tpcb",
		{ .ival = "tpcb", .oval = TP_TPCB, .help = "pgbench's TPC-B-like transaction" },
		{ .ival = "oltp_read_write", .oval = TP_OLTP_RW, .help = "sysbench oltp_read_write" },
		{ .ival = "read_only", .oval = TP_READ_ONLY, .help = "sysbench oltp_read_only" },
		{ .ival = "insert", .oval = TP_INSERT, .help = "sysbench oltp_insert" }),
	RL_OPTIONS(T, rl),
	FIO_ENGINE_RANGE(T, "scale", FIO_OPT_INT, scale,
		"tpcb: pgbench's scale factor (100000 accounts each)", "1", 1, 100000),
	FIO_ENGINE_RANGE(T, "table_size", FIO_OPT_ULL, table_size,
		"oltp_read_write/read_only/insert: sysbench's --table-size (rows; 100..2^34)", "10000",
		100, 1ull << 34),
	FIO_ENGINE_RANGE(T, "shared_buffers", FIO_OPT_ULL, shared_buffers,
		"postgres: buffer pool size (128k..1T)", "128M", 16 * 8192, 1ull << 40),
	FIO_ENGINE_RANGE(T, "innodb_buffer_pool_size", FIO_OPT_ULL, innodb_pool,
		"mysql/mariadb: buffer pool size (256k..1T)", "128M", 16 * 16384, 1ull << 40),
	FIO_ENGINE_RANGE(T, "rtt", FIO_OPT_STR_VAL_TIME, rtt,
		"Client round trip per statement, slept (e.g. 100us)", "0", 0, TEN_S),
	FIO_ENGINE_RANGE(T, "cpu_per_stmt", FIO_OPT_STR_VAL_TIME, cpu,
		"Server CPU per statement, burned as thread CPU time (e.g. 50us)", "0", 0, TEN_S),
	FIO_ENGINE_RANGE(T, "client_cpu_per_stmt", FIO_OPT_STR_VAL_TIME, client_cpu,
		"The client's CPU per statement when it runs on the database's host (pgbench, "
		"sysbench), burned as thread CPU time (e.g. 20us)", "0", 0, TEN_S),
	FIO_ENGINE_RANGE(T, "commit_cpu", FIO_OPT_STR_VAL_TIME, commit_cpu,
		"CPU a durable commit costs beyond its log calls (postgres; mysql/mariadb with "
		"innodb_flush_log_at_trx_commit=1), burned as thread CPU time after the flush "
		"(e.g. 300us)", "0", 0, TEN_S),
	FIO_ENGINE_RANGE(T, "cpu_after_reply", FIO_OPT_INT, after_reply,
		"Percent of cpu_per_stmt the server burns after its reply, while the client "
		"thread works on it (client_thread=1): on two cores both at once (0..100)",
		"0", 0, 100),
	FIO_ENGINE_RANGE(T, "background_cpu", FIO_OPT_STR_VAL_TIME, bg_cpu,
		"Server CPU a transaction that the database's own threads burn off the "
		"connections' path (purge, page cleaner; walwriter, autovacuum): one thread "
		"of the database burns it as thread CPU time, no transaction waits for it "
		"(e.g. 150us)", "0", 0, TEN_S),
	FIO_ENGINE_RANGE(T, "cpu_working_set", FIO_OPT_ULL, cpu_ws,
		"Memory a connection's CPU works over (0: a spin that touches none): the statements' "
		"CPU is that much hot work over it, longer when it went cold (0..1G)", "0", 0, 1ull << 30),
	FIO_ENGINE_CHOICE(T, "cpu_working_set_shared", cpu_ws_share,
		"Whose cpu_working_set a connection works over", "auto",
		{ .ival = "auto", .oval = TXN_WS_AUTO,
		  .help = "one for the database's connections with flavor=mysql/mariadb (a threaded "
			  "server), each its own with postgres (a process per connection)" },
		{ .ival = "private", .oval = TXN_WS_PRIVATE, .help = "each connection its own" },
		{ .ival = "shared", .oval = TXN_WS_SHARED, .help = "one for all the database's connections" }),
	FIO_ENGINE_RANGE(T, "cpu_ref", FIO_OPT_ULL, cpu_ref,
		"The CPU reference figure of the machine the profile was calibrated on: ns of "
		"thread CPU time for a fixed work over cpu_working_set (lab/txncalib --cpu-ref; "
		"0: none, no scaling; 0..1G)", "0", 0, 1ull << 30),
	FIO_ENGINE_RANGE(T, "cpu_ref_working_set", FIO_OPT_ULL, cpu_ref_ws,
		"The cpu_working_set the profile's cpu_ref was measured over: the host is measured "
		"over the same, whatever cpu_working_set the job sets (0: cpu_working_set; 0..1G)",
		"0", 0, 1ull << 30),
	FIO_ENGINE_BOOL(T, "cpu_scale", cpu_scale,
		"Scale the CPU options (cpu_per_stmt, client_cpu_per_stmt, commit_cpu, "
		"background_cpu) by this host's reference figure over cpu_ref", "1"),
	FIO_ENGINE_RANGE(T, "client_working_set", FIO_OPT_ULL, client_ws,
		"Memory the client thread's CPU works over (client_thread=1; 0: a spin that touches "
		"none, as a client's small hot memory; 0..1G)", "0", 0, 1ull << 30),
	FIO_ENGINE_RANGE(T, "txn_log_bytes", FIO_OPT_INT, log_bytes,
		"Log bytes per transaction (0: the profile's estimate)", "0", 0, 65536),
	FIO_ENGINE_RANGE(T, "max_wal_size", FIO_OPT_ULL, max_wal_size,
		"postgres: a checkpoint every (int)(max_wal_size's WAL segments / 1.9) segments "
		"(0: timed only; else at least 2 segments, at most 1P)", "1G", 0, 1ull << 50),
	FIO_ENGINE_RANGE(T, "commit_delay", FIO_OPT_STR_VAL_TIME, commit_delay,
		"postgres: the flusher sleeps this long first ...", "0", 0, 100000),
	FIO_ENGINE_RANGE(T, "commit_siblings", FIO_OPT_INT, commit_siblings,
		"postgres: ... when at least this many other connections have written and wait on no lock",
		"5", 0, 1000),
	FIO_ENGINE_RANGE(T, "background_log_share", FIO_OPT_INT, bg_share,
		"mysql/mariadb: percent of txn_log_bytes that InnoDB's background work logs rather "
		"than the commit: appended once a second in one batch, written by the next commit's "
		"log write (0..90)", "0", 0, 90),
	FIO_ENGINE_BOOL(T, "log_bin", log_bin,
		"mysql/mariadb: write a binlog, group-committed after the redo log", "0"),
	FIO_ENGINE_RANGE(T, "sync_binlog", FIO_OPT_INT, sync_binlog,
		"mysql/mariadb: fdatasync the binlog every N commit groups (0: never)", "1", 0, 1000000),
	FIO_ENGINE_RANGE(T, "max_binlog_size", FIO_OPT_ULL, max_binlog,
		"mysql/mariadb: the binlog rotates to a new file at this size, 4 files kept "
		"(4k..1G; MySQL's default is 1G; store=rbd reserves it for each file)", "64M", 4096, 1ull << 30),
	FIO_ENGINE_RANGE(T, "checkpoint_timeout", FIO_OPT_INT, checkpoint_timeout,
		"Seconds between checkpoints (pgpage's checkpointer; 0: none)", "300", 0, 86400),
	FIO_ENGINE_BOOL(T, "txn_prefill", prefill,
		"Load the tables (write them in full) before the run, unless already there", "1"),
	FIO_ENGINE_BOOL(T, "txn_prewarm", prewarm,
		"Fill the buffer pool with the tables' first pages before the run (pg_prewarm)", "0"),
	FIO_ENGINE_BOOL(T, "full_page_writes", fpw,
		"postgres: the first change of a page after a checkpoint logs the whole page", "1"),
	FIO_ENGINE_BOOL(T, "innodb_doublewrite", doublewrite,
		"mysql/mariadb: an evicted page goes to the doublewrite buffer first (write + sync)", "1"),
	FIO_ENGINE_BOOL(T, "client_thread", client_thread,
		"client_cpu_per_stmt on a client thread of each connection, handed each statement "
		"and handed it back as over loopback (two wake-ups a statement); 0: burned by the "
		"connection's own thread", "1"),
	FIO_ENGINE_BOOL(T, "client_process", client_process,
		"client_thread=1's clients as threads of one process in a session of its own, as "
		"pgbench or sysbench is (setsid: a scheduling group under the kernel's autogroups), "
		"so each hand-over wakes another group and address space as a client's does", "0"),
	FIO_ENGINE_BOOL(T, "client_tcp", client_tcp,
		"client_thread=1's hand-over over a loopback TCP connection (127.0.0.1, TCP_NODELAY), "
		"as pgbench's and sysbench's statements travel to their server here; 0: eventfds", "0"),
	FIO_ENGINE_BOOL(T, "row_locks", row_locks,
		"An UPDATE holds its row until the transaction ends (tpcb: clients queue on its "
		"scale branch rows)", "1"),
	FIO_ENGINE_BOOL(T, "purge", purge,
		"InnoDB (flavor=mariadb/mysql): a purge thread goes back to the pages of each "
		"committed change (DB_TRX_ID reset, delete-marked index entries removed) and dirties "
		"them again", "1"),
	FIO_ENGINE_RANGE(T, "innodb_purge_threads", FIO_OPT_INT, purge_threads,
		"purge=1: threads that purge a batch (MariaDB 10.11's default 4)", "4", 1, 32),
	FIO_ENGINE_RANGE(T, "innodb_purge_batch_size", FIO_OPT_INT, purge_batch,
		"purge=1: committed transactions whose history purge takes as one batch (MariaDB: "
		"undo log pages, about one a small transaction; after 1 s idle, what is queued)",
		"127", 1, 5000),
	FIO_ENGINE_RANGE(T, "innodb_lru_scan_depth", FIO_OPT_INT, lru_depth,
		"mysql/mariadb: frames the page cleaner keeps free, evicting from the LRU's end, as "
		"MariaDB does with its 1536 (0: none free, the cleaner only writes dirty pages near "
		"the clock hand)", "1536", 0, 1u << 20),
	{ FIO_ENGINE_OPT_(T, "waldir", FIO_OPT_STR_STORE, waldir,
		"Directory of the log (initdb --waldir; innodb_log_group_home_dir), posix/uring/aio "
		"(default: the job's directory; at most 511 bytes)", NULL, 0, 0, 0),
	  .maxlen = sizeof(((struct txn_db_cfg *)0)->waldir) },
	FIO_ENGINE_OPT(T, "txn_group_trace", FIO_OPT_STR_STORE, group_trace,
		"Local file: one line per log flush with the number of commits it covered", NULL),
	FIO_ENGINE_OPT(T, "summary_json", FIO_OPT_STR_STORE, summary_json,
		"Local file: the database's summary (transactions, tps, latency, commits per "
		"flush) as JSON, written once per database by its last connection", NULL),
	FIO_ENGINE_RANGE(T, "flush_wait", FIO_OPT_STR_VAL_TIME, flush_wait,
		"Wall time a log flush waits beyond its calls, slept inside the flush (commits "
		"behind it wait and group): the real database's flush waits this much longer than "
		"the model's calls (e.g. 300us)", "0", 0, TEN_S),
	FIO_ENGINE_RANGE(T, "debug_flush_delay", FIO_OPT_STR_VAL_TIME, debug_flush,
		"TEST ONLY: every log flush takes this much longer (e.g. 50ms)", "0", 0, TEN_S),
	{
		.name	= NULL,
	},
};

#undef T

static int txn_calibration(void *data, const char *value)
{
	struct txn_options *o = data;

	return fio_calib_apply("txn", o, value, options, o->calib_id);
}

#define REFUSE(...) do { log_err("txn: " __VA_ARGS__); return 1; } while (0)

/* What fio's parser cannot check: rules naming two options, and "0 or ..." */
static int pg_log(struct txn_options *o, struct rl_cfg *c, uint64_t pool)
{
	if (o->max_wal_size && o->max_wal_size < 2 * o->rl.wal_segment_size)
		REFUSE("max_wal_size=%llu: must be 0 or at least 2 WAL segments (%llu)\n",
		       o->max_wal_size, 2 * o->rl.wal_segment_size);
	/* wal_buffers = -1: shared_buffers / 32, 64 kB .. 16 MB */
	c->bufsize = pool / 32 < (64 << 10) ? 64 << 10 : pool / 32 > (16 << 20) ? 16 << 20 : pool / 32;
	return 0;
}

/* The block device under a mariadb log, as MariaDB 10.11 sees it (0: buffered) */
static unsigned int mariadb_dev_block(struct thread_data *td, const struct txn_options *o)
{
	return rl_mariadb_store_block(store_backend_caps(o->so.store),
				      o->waldir && *o->waldir ? o->waldir : td->o.directory);
}

/*
 * InnoDB: the redo a checkpoint may lag behind (MariaDB 10.11's
 * log_t::set_capacity: the capacity less 10 %, less 48 pages and 10 % more,
 * the margin, max_checkpoint_age: commits stall there until the checkpoint
 * advances); 7/8 of it, max_modified_age_async, where the page cleaner
 * flushes at once: a checkpoint is requested each time that much redo has
 * been written since the last request.
 */
static uint64_t innodb_margin(uint64_t log_bytes)
{
	uint64_t cap = log_bytes > 12288 ? log_bytes - 12288 : log_bytes, margin;

	cap -= cap / 10;
	margin = cap > 2 * 48 * 16384 ? cap - 48 * 16384 : cap / 2;
	return margin - margin / 10;
}

static uint64_t innodb_async_age(uint64_t log_bytes)
{
	uint64_t margin = innodb_margin(log_bytes);

	return margin - margin / 8;
}

static int log_cfg(struct thread_data *td, struct txn_options *o, struct txn_db_cfg *c)
{
	struct txn_log_cfg *l = &c->log;
	/* mariadb: ib_logfile0 as 10.11 decides for the file system under it */
	unsigned int dev_block = TXN_FLAVOR(o) == RL_MARIADB ? mariadb_dev_block(td, o) : 0;
	struct rl_opts_env env = { .flavor = TXN_FLAVOR_DEFAULT, .mariadb_block = dev_block,
				   .mariadb_direct = dev_block != 0 };
	char err[256];

	if (rl_opts_to_cfg(&o->rl, &env, &l->rl, err, sizeof(err)))
		REFUSE("%s\n", err);
	l->rl.ckpt_frees = 1;	/* postgres: only a completed checkpoint frees WAL segments */
	/* a transaction's records and InnoDB's background batches need room */
	if (!l->postgres && l->rl.g.file_size < (1 << 20))
		REFUSE("innodb_log_file_size=%llu: txn's log files must hold at least 1M\n",
		       (unsigned long long)l->rl.g.file_size);
	if (l->postgres && pg_log(o, &l->rl, c->pool_bytes))
		return 1;
	if (o->log_bin && l->postgres)
		REFUSE("log_bin=1: only flavor=mysql or mariadb has a binlog\n");
	if (o->bg_share && l->postgres)
		REFUSE("background_log_share=%u: only flavor=mysql or mariadb has InnoDB's background redo\n",
		       o->bg_share);
	/* PostgreSQL's CheckPointSegments: whole segments of max_wal_size, / (1 + 0.9)
	 * (checkpoint_completion_target), truncated, at least 1 */
	l->ckpt_wal = (uint64_t)((double)(o->max_wal_size / o->rl.wal_segment_size) / 1.9);
	l->ckpt_wal = l->postgres && o->max_wal_size ?
		(l->ckpt_wal ? l->ckpt_wal : 1) * o->rl.wal_segment_size : 0;
	if (!l->postgres && o->checkpoint_timeout)	/* 0: no checkpoints at all */
		l->ckpt_wal = innodb_async_age(l->rl.g.file_size * l->rl.g.nfiles);
	/* max_checkpoint_age: log_free_check stalls a commit until the checkpoint advances */
	if (!l->postgres && o->checkpoint_timeout)
		l->ckpt_sync = innodb_margin(l->rl.g.file_size * l->rl.g.nfiles);
	l->commit_delay_ns = l->postgres ? o->commit_delay * 1000 : 0;	/* PostgreSQL's */
	l->commit_siblings = o->commit_siblings;
	l->log_bin = o->log_bin;
	l->bg_share = o->bg_share;
	l->sync_binlog = o->sync_binlog;
	l->max_binlog = o->max_binlog;
	l->flush_wait_ns = (o->flush_wait + o->debug_flush) * 1000;
	l->group_trace = o->group_trace && *o->group_trace ? o->group_trace : NULL;
	return 0;
}

/* waldir=: the log in a directory of its own (another filesystem), as initdb --waldir does. */
static int wal_dir(struct txn_options *o, struct txn_db_cfg *c)
{
	if (!o->waldir || !*o->waldir)
		return 0;
	if (!(store_backend_caps(o->so.store) & STORE_CAP_LOCAL_DIR))
		REFUSE("waldir=%s: only store=posix, uring or aio have directories (store=%s)\n",
		       o->waldir, store_backend_name(o->so.store));
	/* fio's parser refused one longer than c->waldir holds (.maxlen) */
	strcpy(c->waldir, o->waldir);
	return 0;
}

/* Resolve the options; one line naming option and value for a rule fio cannot check. */
/*
 * The summary's calibration lines: calibration= (the profile, the machine
 * and date it was measured on), and the options a calibration sets as this
 * job has them (a later option overrides the profile).
 */
static void calib_text(const struct txn_options *o, struct txn_db_cfg *c)
{
	snprintf(c->calibration, sizeof(c->calibration), "%s", o->calib_id);
	snprintf(c->timing, sizeof(c->timing), "rtt=%lluus cpu_per_stmt=%lluus client_cpu_per_stmt=%lluus "
		 "commit_cpu=%lluus background_cpu=%lluus flush_wait=%lluus", o->rtt, o->cpu,
		 o->client_cpu, o->commit_cpu, o->bg_cpu, o->flush_wait);
}

/*
 * The host's CPU against the profile's: the same reference work measured
 * here (once per process and size: every connection configures itself, and
 * all scale alike), the CPU options scaled by host / profile when the profile
 * has a figure and cpu_scale=1.
 */
static void cpu_scaling(const struct txn_options *o, struct txn_cpu *c)
{
	double f;

	/*
	 * The same work as the profile's figure: a job that changes
	 * cpu_working_set after calibration= (the spin, another size) must not
	 * set a spin's figure against a working set's (2x apart on a VM here)
	 */
	dbtime_scale_init(&c->ref, o->cpu_ref, o->cpu_scale, o->cpu_ref_ws ? o->cpu_ref_ws : o->cpu_ws);
	f = c->ref.factor;
	c->cpu_ns = (uint64_t)(o->cpu * 1000 * f + 0.5);
	c->client_ns = (uint64_t)(o->client_cpu * 1000 * f + 0.5);
	c->commit_ns = (uint64_t)(o->commit_cpu * 1000 * f + 0.5);
}

/* The factor, said once per process by the first connection (not in setup: a refusal is one line). */
static void cpu_say(const struct txn_cpu *c)
{
	static int said;
	char line[160];

	if (__atomic_exchange_n(&said, 1, __ATOMIC_SEQ_CST))
		return;
	dbtime_scale_line(line, sizeof(line), &c->ref);
	fprintf(stderr, "txn: cpu: %s\n", line);
}

static int txn_config(struct thread_data *td, struct txn_db_cfg *c)
{
	struct txn_options *o = td->eo;

	memset(c, 0, sizeof(*c));
	cpu_scaling(o, &c->cpu);
	c->log.postgres = TXN_FLAVOR(o) == RL_POSTGRES;
	c->page_size = c->log.postgres ? 8192 : 16384;
	c->pool_bytes = c->log.postgres ? o->shared_buffers : o->innodb_pool;
	txn_profile_make(&c->prof, o->profile, o->scale, o->table_size, c->page_size);
	if (o->log_bytes)
		c->prof.log_bytes = o->log_bytes;
	if (log_cfg(td, o, c) || wal_dir(o, c))
		return 1;
	c->prefill = o->prefill;
	c->prewarm = o->prewarm;
	c->row_locks = o->row_locks;
	c->purge = o->purge;
	c->purge_threads = o->purge_threads;
	c->purge_batch = o->purge_batch;
	c->lru_depth = o->lru_depth;
	c->cpu_ws = o->cpu_ws;
	c->cpu_ws_shared = o->cpu_ws && (o->cpu_ws_share == TXN_WS_SHARED ||
					 (o->cpu_ws_share == TXN_WS_AUTO && !c->log.postgres));
	c->bg_cpu_ns = (uint64_t)(o->bg_cpu * 1000 * c->cpu.ref.factor + 0.5);
	c->fpw = c->log.postgres && o->fpw;
	c->dblwr = c->log.postgres || !o->doublewrite ? 0 : c->log.rl.g.flavor == RL_MARIADB ? 2 : 1;
	/* InnoDB's data files: O_DIRECT with O_DIRECT[_NO_FSYNC], MariaDB 10.11's default */
	c->data_direct = !c->log.postgres && (store_backend_caps(o->so.store) & STORE_CAP_DIRECT) &&
		(o->rl.flush_method == RL_IM_O_DIRECT || o->rl.flush_method == RL_IM_O_DIRECT_NO_FSYNC ||
		 (!o->rl.flush_method && c->log.rl.g.flavor == RL_MARIADB));
	c->ckpt.timeout_ns = o->checkpoint_timeout * 1000000000ull;
	c->ckpt.target = 0.9;
	c->ckpt.flush_after_pages = c->log.postgres ? (256 << 10) / c->page_size : 0;
	calib_text(o, c);
	return 0;
}

#define IGNORED(cond, fmt, ...)								\
	do {										\
		if (cond)								\
			fprintf(stderr, "txn: " fmt ": ignored with flavor=%s (a %s setting)\n", \
				__VA_ARGS__, fl, pg ? "MySQL/MariaDB" : "PostgreSQL");	\
	} while (0)

/*
 * One line per option the flavor has no use for, set to other than its
 * default. On stderr, not log_err(): with --output= fio copies log_err()
 * into the output file, and a warning must not break the JSON there.
 */
static void ignored(const struct txn_options *o)
{
	const char *fl = rl_flavor_name(TXN_FLAVOR(o));
	int pg = TXN_FLAVOR(o) == RL_POSTGRES;

	if (pg) {
		IGNORED(o->rl.trx_commit != 1, "innodb_flush_log_at_trx_commit=%u", o->rl.trx_commit);
		IGNORED(o->rl.flush_method, "innodb_flush_method=%s",
			rl_innodb_method_name(o->rl.flush_method));
		IGNORED(o->rl.log_file_size, "innodb_log_file_size=%llu", o->rl.log_file_size);
		IGNORED(o->innodb_pool != 128 << 20, "innodb_buffer_pool_size=%llu", o->innodb_pool);
		IGNORED(!o->doublewrite, "innodb_doublewrite=%u", o->doublewrite);
		IGNORED(o->sync_binlog != 1, "sync_binlog=%u", o->sync_binlog);
		IGNORED(o->max_binlog != 64 << 20, "max_binlog_size=%llu", o->max_binlog);
		return;
	}
	IGNORED(o->commit_delay, "commit_delay=%lluus", o->commit_delay);
	IGNORED(o->commit_siblings != 5, "commit_siblings=%u", o->commit_siblings);
	IGNORED(o->shared_buffers != 128 << 20, "shared_buffers=%llu", o->shared_buffers);
	IGNORED(o->rl.wal_sync_method != RL_WM_FDATASYNC, "wal_sync_method=%s",
		rl_wal_method_name(o->rl.wal_sync_method));
	IGNORED(o->max_wal_size != 1 << 30, "max_wal_size=%llu", o->max_wal_size);
	IGNORED(!o->fpw, "full_page_writes=%u", o->fpw);
}

static int fio_txn_setup(struct thread_data *td)
{
	struct txn_options *o = td->eo;
	struct txn_db_cfg *c;
	struct fio_file *f;
	unsigned int i;
	int ret;

	if (fio_store_setup(td, "txn", &o->so))
		return 1;
	/* an include that did not reach this host (fio --server) leaves none */
	if (!o->calibration || !*o->calibration)
		REFUSE("no calibration: set calibration=postgres15|mariadb1011, calibration=FILE "
		       "written by lab/txncalib, or calibration=none to run with the engine's "
		       "uncalibrated defaults\n");
	ignored(o);
	if (o->after_reply && !(o->client_thread && o->client_cpu))
		fprintf(stderr, "txn: cpu_after_reply=%u: ignored without a client thread to overlap "
			"(client_thread=1 and client_cpu_per_stmt > 0)\n", o->after_reply);
	c = malloc(sizeof(*c));
	if (!c)
		return 1;
	ret = txn_config(td, c);
	free(c);
	if (ret)
		return 1;
	/* fio's file is only the io_u source: its offsets are ignored */
	for_each_file(td, f, i) {
		f->real_file_size = td->o.size ? td->o.size : 1ull << 30;
		fio_file_set_size_known(f);
	}
	return 0;
}

static int fio_txn_init(struct thread_data *td)
{
	struct txn_options *o = td->eo;
	struct txn_db_cfg *c;
	struct txn_data *tx;
	char err[512], loc[256];
	int ret = 1, cerr;

	c = malloc(sizeof(*c));
	tx = calloc(1, sizeof(*tx));
	if (!c || !tx) {
		td_verror(td, ENOMEM, "txn init");
		free(tx);
		goto out;
	}
	td->io_ops_data = tx;
	if (txn_config(td, c)) {
		td_verror(td, EINVAL, "txn options");
		goto out;
	}
	cpu_say(&c->cpu);
	if (fio_store_connect(td, "txn", &o->so, td->o.directory, 0, &tx->store))
		goto out;
	c->store = tx->store->cfg;
	c->store.timing = 0;
	/* the connections of one database: the jobs naming the same place */
	snprintf(c->key, sizeof(c->key), "%s:%s", store_backend_name(c->store.backend),
		 store_location(tx->store, loc, sizeof(loc)));
	tx->db = txn_db_attach(c, err, sizeof(err), &cerr);
	if (!tx->db) {
		log_err("txn: %s\n", err);
		td_verror(td, -cerr, "txn database open");
		goto out;
	}
	if (txn_io_init(&tx->io, tx->store, &tx->db->g)) {
		log_err("txn: out of memory\n");
		td_verror(td, ENOMEM, "txn init");
		goto out;
	}
	tx->io_ok = 1;
	tx->sum = calloc(1, sizeof(*tx->sum));
	if (!tx->sum) {
		log_err("txn: out of memory\n");
		td_verror(td, ENOMEM, "txn init");
		goto out;
	}
	if (tx->db->cpu_set)
		dbtime_ws_share(&tx->dt, tx->db->cpu_set, o->cpu_ws);
	else if (dbtime_ws_init(&tx->dt, o->cpu_ws)) {
		log_err("txn: cpu_working_set=%llu: out of memory\n", o->cpu_ws);
		td_verror(td, ENOMEM, "cpu_working_set");
		goto out;
	}
	if (o->client_thread && o->client_cpu &&
	    (cerr = txn_client_start(&tx->client, tx->db->c.cpu.client_ns, o->client_ws,
				     o->client_process, o->client_tcp))) {
		log_err("txn: client_thread=1 (client_working_set=%llu): cannot start the client's "
			"thread: %s\n", o->client_ws, strerror(-cerr));
		td_verror(td, -cerr, "client_thread");
		goto out;
	}
	tx->io.dblwr = tx->db->c.dblwr;
	tx->io.direct = tx->db->c.data_direct;	/* as the first connection found the directory */
	tx->io.dw_name = txn_db_dw_name(tx->db);
	tx->io.dw_off = (uint64_t)(td->thread_number % 128) * tx->db->g.bs;
	tx->rnd = (td->o.rand_seed ? td->o.rand_seed : 0x9e3779b97f4a7c15ull) * 2654435761ull +
		  td->thread_number;
	ret = 0;
out:
	free(c);
	return ret;
}

/*
 * The database's checkpointer failed (a page write, an fsync): the job fails
 * with its cause, as a database whose checkpoint fails does not go on
 * reporting commits. One line per job.
 */
static int ckpt_failed(struct thread_data *td, struct txn_data *tx)
{
	const char *msg;
	int err = tx->db ? txn_db_ckpt_error(tx->db, &msg) : 0;

	if (!err)
		return 0;
	if (!td->error) {
		log_err("txn: %s\n", msg);
		td_verror(td, -err, "txn checkpointer");
	}
	return err;
}

/*
 * The last connection of the database prints its summary (stderr, or the
 * client's output under fio --server: fio_report.h) and writes
 * summary_json= (one file a database: the name as given).
 */
static void db_summary(struct thread_data *td, struct txn_data *tx)
{
	struct txn_options *o = td->eo;
	struct txn_sum_info info;
	struct txn_sum *sum = NULL;
	struct fio_report r;
	FILE *f = fio_report_begin(&r);
	int last = txn_db_detach(tx->db, f, tx->sum, &sum, &info);

	if (last && sum)
		txn_sum_print(f, sum, &info);
	fio_report_end(&r);
	if (!last || !sum)
		return;
	if (o->summary_json && *o->summary_json) {
		struct txn_sum_json a = { .s = sum, .in = &info };

		fio_store_sidecar(NULL, "txn", "summary_json", o->summary_json, 2, txn_sum_json, &a);
	}
	free(sum);
}

static void fio_txn_cleanup(struct thread_data *td)
{
	struct txn_options *o = td->eo;
	struct txn_data *tx = td->io_ops_data;
	struct fio_report r;

	if (!tx)
		return;
	ckpt_failed(td, tx);	/* one that came after the job's last transaction */
	txn_client_stop(&tx->client);	/* joined: its CPU count is final */
	fprintf(fio_report_begin(&r), "txn: job %s (thread %d): txns=%llu stmts=%llu cpu_burned_ms=%.3f "
		"client_cpu_ms=%.3f rtt_slept_ms=%.3f size_probes=%llu extends=%llu\n", td->o.name,
		td->thread_number, (unsigned long long)tx->txns, (unsigned long long)tx->stmts,
		tx->dt.cpu_ns / 1e6, tx->client.dt.cpu_ns / 1e6, tx->dt.rtt_ns / 1e6, (unsigned long long)tx->io.probes,
		(unsigned long long)tx->io.extends);
	fio_report_end(&r);
	if (tx->io_ok)
		txn_io_free(&tx->io);
	dbtime_exit(&tx->dt);
	if (tx->db)
		db_summary(td, tx);
	free(tx->sum);
	if (tx->store) {
		fio_store_report(td, "txn", &o->so, tx->store);
		store_exit(tx->store);
	}
	free(tx);
	td->io_ops_data = NULL;
}

static uint64_t rnd(struct txn_data *tx, uint64_t n)
{
	tx->rnd ^= tx->rnd >> 12;
	tx->rnd ^= tx->rnd << 25;
	tx->rnd ^= tx->rnd >> 27;
	return (uint64_t)(((unsigned __int128)(tx->rnd * 2685821657736338717ull) * n) >> 64);
}

/* postgres: the statement's size probes (lseek(SEEK_END) on each table's last segment). */
static int probe(struct txn_data *tx, const struct txn_stmt *st)
{
	const struct txn_db *db = tx->db;
	uint64_t size;
	unsigned int i;
	int ret = 0;

	if (!db->c.log.postgres)
		return 0;
	for (i = 0; i < st->nprobe && !ret; i++) {
		const struct txn_table *t = &db->c.prof.t[st->probe[i]];

		ret = txn_io_size(&tx->io, txn_db_gpage(db, st->probe[i], t->pages - 1), &size);
	}
	return ret;
}

/*
 * commit_siblings' count (the log's active): PostgreSQL's
 * MinimumActiveBackends counts the other backends whose transaction has an
 * xid, assigned at its first write (heap_update, before it may wait on the
 * row) and cleared as the commit ends (ProcArrayEndTransaction, after the
 * commit record's flush, before the locks go); one waiting on a lock is
 * left out while it waits (txn_lock_row).
 */
static void xid_assign(struct txn_data *tx)
{
	if (!tx->xid) {
		tx->xid = 1;
		atomic_fetch_add(&tx->db->log.active, 1);
	}
}

static void xid_end(struct txn_data *tx)
{
	if (tx->xid) {
		tx->xid = 0;
		atomic_fetch_sub(&tx->db->log.active, 1);
	}
}

/* One statement's page accesses. */
static int pages(struct txn_data *tx, const struct txn_acc *a)
{
	struct txn_db *db = tx->db;
	const struct txn_table *t = &db->c.prof.t[a->table];
	uint64_t first, last, p, row;
	int ret, fresh = 0;

	if (a->dirty || a->lock)
		xid_assign(tx);
	switch (a->how) {
	case TA_APPEND:
		row = atomic_fetch_add(&db->append_rows[a->table], 1);
		first = last = (row / t->rows_per_page) % t->pages;
		fresh = row % t->rows_per_page == 0;	/* a new page: extension, nothing to read */
		/* PostgreSQL extends the file: smgrnblocks, then smgrextend's write at its end */
		if (fresh && db->c.log.postgres &&
		    (ret = txn_io_extend(&tx->io, txn_db_gpage(db, a->table, first))))
			return ret;
		break;
	case TA_RANGE:
		row = tx->key[a->key];
		first = row / t->rows_per_page;
		row = row + 99 < t->rows ? row + 99 : t->rows - 1;
		last = row / t->rows_per_page;
		break;
	default:
		if (a->lock && db->c.row_locks &&
		    txn_lock_row(&db->locks, tx, a->table, tx->key[a->key], &db->log.active)) {
			snprintf(tx->io.err, sizeof(tx->io.err), "row lock: out of memory");
			return -ENOMEM;
		}
		first = last = tx->key[a->key] / t->rows_per_page;
	}
	for (p = first; p <= last; p++) {
		ret = txn_pool_access(&db->pool, &tx->io, txn_db_gpage(db, a->table, p),
				      a->dirty, fresh, &tx->fpi);
		if (ret < 0)
			return ret;
	}
	if (a->purge && db->pu.started && tx->npurge < TXN_MAX_PURGE)
		tx->purge[tx->npurge++] = txn_db_gpage(db, a->table, first);
	return 0;
}

static int transaction(struct thread_data *td, struct txn_data *tx)
{
	struct txn_options *o = td->eo;
	const struct txn_profile *p = &tx->db->c.prof;
	const struct txn_cpu *cpu = &tx->db->c.cpu;
	uint64_t burn, after;
	unsigned int i, j;
	int ret = 0;

	tx->fpi = 0;
	tx->npurge = 0;
	for (i = 0; i < p->nkeys; i++)
		tx->key[i] = rnd(tx, p->t[p->key_table[i]].rows);
	for (i = 0; i < p->nstmts && !ret; i++) {
		if (o->rtt)
			dbtime_round_trip(&tx->dt, o->rtt * 1000);
		/*
		 * the client's half first: on its thread, while this one burns the
		 * server's part after its reply (cpu_after_reply), else burned here
		 */
		burn = cpu->cpu_ns + (tx->client.started ? 0 : cpu->client_ns);
		if (tx->client.started) {
			after = cpu->cpu_ns * o->after_reply / 100;
			ret = txn_client_send(&tx->client);
			if (!ret && after)
				dbtime_burn(&tx->dt, after);
			if (!ret)
				ret = txn_client_wait(&tx->client);
			if (ret) {
				snprintf(tx->io.err, sizeof(tx->io.err), "client thread: %s", strerror(-ret));
				break;
			}
			burn -= after;
		}
		if (burn)
			dbtime_burn(&tx->dt, burn);
		ret = probe(tx, &p->s[i]);
		for (j = 0; j < p->s[i].nacc && !ret; j++)
			ret = pages(tx, &p->s[i].acc[j]);
		tx->stmts++;
	}
	/* InnoDB releases its row locks at commit, before the log flush */
	if (ret || !tx->db->c.log.postgres)
		txn_unlock_all(&tx->db->locks, tx);
	if (ret) {
		xid_end(tx);
		log_err("txn: %s\n", tx->io.err);
		return ret;
	}
	if (p->log_bytes) {
		xid_assign(tx);		/* the committer counts itself: others = active - 1 */
		ret = txn_log_commit(&tx->db->log, p->log_bytes + tx->fpi * tx->db->g.bs,
				     p->binlog_bytes);
		if (ret)
			log_err("txn: log: %s\n", tx->db->log.err);
	}
	if (!ret && p->log_bytes && o->commit_cpu &&
	    (tx->db->c.log.postgres || o->rl.trx_commit == 1))
		dbtime_burn(&tx->dt, cpu->commit_ns);
	xid_end(tx);
	/* PostgreSQL: after the commit record is flushed */
	txn_unlock_all(&tx->db->locks, tx);
	if (!ret) {
		txn_bgcpu_add(&tx->db->bg);
		txn_purge_add(&tx->db->pu, tx->purge, tx->npurge);
	}
	return ret;
}

static enum fio_q_status fio_txn_queue(struct thread_data *td, struct io_u *io_u)
{
	struct txn_data *tx = td->io_ops_data;
	uint64_t t0;
	int ret;

	fio_ro_check(td, io_u);
	if (io_u->ddir == DDIR_SYNC || io_u->ddir == DDIR_DATASYNC)
		return FIO_Q_COMPLETED;	/* fio's fsync=: commits are durable anyway */
	if ((ret = ckpt_failed(td, tx))) {
		io_u->error = -ret;
		return FIO_Q_COMPLETED;
	}
	t0 = latstat_now_ns();
	ret = transaction(td, tx);
	/* as fio's statistics: none booked during ramp_time */
	if (!ret && !in_ramp_time(td))
		txn_sum_add(tx->sum, t0, latstat_now_ns());
	tx->txns++;
	if (ret) {
		io_u->error = ret < 0 ? -ret : EIO;
		td_verror(td, io_u->error, "txn transaction");
	}
	return FIO_Q_COMPLETED;
}

static int fio_txn_open_file(struct thread_data *td, struct fio_file *f)
{
	return 0;
}

static int fio_txn_close_file(struct thread_data *td, struct fio_file *f)
{
	return 0;
}

struct ioengine_ops ioengine = {
	.name			= "txn",
	.version		= FIO_IOOPS_VERSION,
	.flags			= FIO_SYNCIO | FIO_DISKLESSIO | FIO_NODISKUTIL,
	.setup			= fio_txn_setup,
	.init			= fio_txn_init,
	.cleanup		= fio_txn_cleanup,
	.queue			= fio_txn_queue,
	.open_file		= fio_txn_open_file,
	.close_file		= fio_txn_close_file,
	.option_struct_size	= sizeof(struct txn_options),
	.options		= options,
};
