/*
 * redolog - a database's commit path: append the transaction's log record
 * and make it durable, as InnoDB (MySQL 8.0, MariaDB 10.11) writes its redo
 * log and PostgreSQL its WAL, through a dbfio store backend.
 *
 * One io_u is one commit record of xfer_buflen bytes (fio's offset is
 * ignored: the log decides where the record goes). queue() copies the record
 * into the log buffer and returns FIO_Q_QUEUED; getevents() writes all
 * records waiting at that moment as one group (one write per file run, one
 * flush) and completes them all: group commit where records really wait.
 * The log layout, padding, wrap and recycling live in redolog_log.c.
 *
 * Latency: the engine stamps io_u->issue_time when the record is queued
 * (FIO_ASYNCIO_SETS_ISSUE_TIME), so fio's clat is the commit latency, queued
 * -> durable. Each flush after ramp_time goes to fio's sync latency
 * (sync.lat_ns; its N is the flush count). The job's fsync=/fdatasync= are
 * dropped at setup: fio would book its no-op syncs among the real flushes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"
#include "optgroup.h"

#include "glue/fio_report.h"
#include "glue/fio_store.h"
#include "redolog.h"
#include "redolog_opts.h"

struct redolog_data {
	struct store *store;
	struct rl_log log;
	int log_open, log_ok;
	struct io_u **pend;	/* queued, not yet written */
	unsigned int npend;
	struct io_u **done;	/* completed by the last group, handed out in turn */
	unsigned int ndone, nout, evbase;
	/* lsn_file= and write_trace= as opened (with .N for numjobs), for the log's life */
	char side[4096], trace[4096];
	unsigned int side_failed;	/* said once */
};

struct redolog_options {
	void *pad;	/* fio stores td here; off1 must not be 0 */
	struct store_opts so;
	struct rl_opts rl;		/* the log model's options, shared with txn */
	unsigned int files_in_group;
	unsigned long long redo_capacity;
	unsigned long long write_ahead;
	unsigned int use_fdatasync;
	unsigned long long log_buffer;
	unsigned int file_buffering;
	unsigned int mariadb_block;
	unsigned long long wal_buffers;
	char *log_prefix;
	char *lsn_file;
	char *write_trace;
	unsigned int skip_flush;
};

#define T struct redolog_options

static struct fio_option options[] = {
	FIO_STORE_OPTIONS(T, so),
	RL_OPTIONS(T, rl),
	FIO_ENGINE_RANGE(T, "innodb_log_files_in_group", FIO_OPT_INT, files_in_group,
		"mysql: number of circular log files ib_logfile0..N-1", "2", 1, 100),
	FIO_ENGINE_RANGE(T, "innodb_redo_log_capacity", FIO_OPT_ULL, redo_capacity,
		"mysql: 8.0.30+ layout, 32 recycled #innodb_redo/#ib_redoN files of capacity/32 "
		"(0, or 8M..128G and a multiple of 16k; set: innodb_log_file_size and innodb_log_files_in_group "
		"are ignored)",
		"0", 0, 128ull << 30),
	FIO_ENGINE_POW2(T, "innodb_log_write_ahead_size", FIO_OPT_ULL, write_ahead,
		"mysql: pad a write entering a new window to this size", "8192", 512, 16384),
	FIO_ENGINE_BOOL(T, "innodb_use_fdatasync", use_fdatasync,
		"mysql: flush the log with fdatasync() instead of fsync()", "0"),
	FIO_ENGINE_RANGE(T, "innodb_log_buffer_size", FIO_OPT_ULL, log_buffer,
		"mysql/mariadb: log buffer (trx_commit=0 writes when half full; 256k..4G)",
		"16M", 256 << 10, 4ull << 30),
	FIO_ENGINE_BOOL(T, "innodb_log_file_buffering", file_buffering,
		"mariadb, innodb_flush_method not given: 0 (10.11's default) opens ib_logfile0 with "
		"O_DIRECT where the directory is on a block device whose physical block size can be read "
		"(else buffered, as 10.11 does), 1 buffered", "0"),
	FIO_ENGINE_RANGE(T, "innodb_log_write_size", FIO_OPT_INT, mariadb_block,
		"mariadb: write granularity, 512..4096 (0: as 10.11, the device's physical block size "
		"with O_DIRECT, else 512)", "0", 0, 4096),
	FIO_ENGINE_RANGE(T, "wal_buffers", FIO_OPT_ULL, wal_buffers,
		"postgres: WAL buffer size", "16M", 64 << 10, 1 << 30),
	{ FIO_ENGINE_OPT_(T, "log_prefix", FIO_OPT_STR_STORE, log_prefix,
		"Prefix of the log file names in the store (numjobs>1 adds 'jobN-'; at most 24 characters)",
		"", 0, 0, 0), .maxlen = 25 },
	FIO_ENGINE_OPT(T, "lsn_file", FIO_OPT_STR_STORE, lsn_file,
		"Local sidecar with the last acknowledged LSN, for tools/logverify (.N added when numjobs>1)", NULL),
	FIO_ENGINE_OPT(T, "write_trace", FIO_OPT_STR_STORE, write_trace,
		"Debug: log every write/flush/rename (file, offset, length) to this local file", NULL),
	FIO_ENGINE_BOOL(T, "debug_skip_flush", skip_flush,
		"TEST ONLY: acknowledge commits without flushing (logverify must find loss after a crash)", "0"),
	{
		.name	= NULL,
	},
};

#undef T

#define REFUSE(...) do { log_err("redolog: " __VA_ARGS__); return 1; } while (0)

/*
 * The options only redolog has, over what the shared ones gave (rl_opts_to_cfg):
 * mysql's files, write-ahead, fdatasync and buffer, postgres' wal_buffers.
 */
static int rl_own_cfg(struct redolog_options *o, struct rl_cfg *c)
{
	if (c->g.flavor == RL_POSTGRES) {
		c->bufsize = o->wal_buffers;
		return 0;
	}
	c->bufsize = o->log_buffer;
	if (c->g.flavor == RL_MARIADB)
		return 0;
	if (c->flush == RL_FLUSH_FSYNC && o->use_fdatasync)
		c->flush = RL_FLUSH_FDATASYNC;
	c->wa = o->write_ahead;
	if (o->redo_capacity) {
		/* 8.0.30+: innodb_log_file_size/files_in_group are ignored, as MySQL does */
		if (o->redo_capacity < (8ull << 20) || o->redo_capacity % (RL_REDO_FILES * 512))
			REFUSE("innodb_redo_log_capacity=%llu: must be 0, or 8M..128G and a multiple of "
			       "32 files x 512-byte blocks (16k)\n", o->redo_capacity);
		c->g.redo8030 = 1;
		c->g.file_size = o->redo_capacity / RL_REDO_FILES;
		c->g.nfiles = RL_REDO_FILES;
		return 0;
	}
	c->g.nfiles = o->files_in_group;
	return 0;
}

/* Resolve the options; one line naming option and value for a rule fio cannot check. */
static int rl_config(struct thread_data *td, struct rl_cfg *c)
{
	struct redolog_options *o = td->eo;
	unsigned long long maxbs = td->o.max_bs[DDIR_WRITE], cap;
	/* flavor= not given: InnoDB's redo log (RL_FLAVOR_HELP says so) */
	struct rl_opts_env env = { .flavor = RL_MYSQL };
	int flavor = rl_opts_flavor(&o->rl, env.flavor);
	unsigned int dev;
	char err[256];

	if (o->mariadb_block && (o->mariadb_block < 512 || (o->mariadb_block & (o->mariadb_block - 1))))
		REFUSE("innodb_log_write_size=%u: must be 0 (the device's block) or a power of 2 in 512..4096\n",
		       o->mariadb_block);
	/*
	 * mariadb: ib_logfile0 as 10.11 opens it in this directory (the same
	 * choice as txn's and metastorm's), unless innodb_log_file_buffering=1;
	 * innodb_log_write_size, when given, the write unit either way
	 */
	if (flavor == RL_MARIADB) {
		dev = o->file_buffering ? 0 :
		      rl_mariadb_store_block(store_backend_caps(o->so.store), td->o.directory);
		env.mariadb_direct = dev != 0;
		env.mariadb_block = o->mariadb_block ? o->mariadb_block : dev;
	}
	if (o->redo_capacity && flavor != RL_MYSQL)
		REFUSE("innodb_redo_log_capacity=%llu: only flavor=mysql has the 8.0.30 layout\n",
		       o->redo_capacity);
	if (rl_opts_to_cfg(&o->rl, &env, c, err, sizeof(err)))
		REFUSE("%s\n", err);
	if (rl_own_cfg(o, c))
		return 1;
	if (c->wa > c->g.file_size)
		REFUSE("innodb_log_write_ahead_size=%llu: larger than the log file\n",
		       (unsigned long long)c->wa);
	if (td_read(td) || td_trim(td))
		REFUSE("rw=%s: the log is only appended: use rw=write\n", td_read(td) ? "read" : "trim");
	if (td->o.min_bs[DDIR_WRITE] < 32)
		REFUSE("bs=%llu: a record needs at least 32 bytes (24-byte header)\n",
		       td->o.min_bs[DDIR_WRITE]);
	cap = rl_capacity(&c->g, c->wa);
	if (maxbs > cap / 4)
		REFUSE("bs=%llu: record larger than the log allows (a quarter of %llu usable bytes)\n",
		       maxbs, cap);
	if ((unsigned long long)td->o.iodepth * maxbs > cap / 2)
		REFUSE("iodepth=%u: iodepth x bs (%llu) exceeds half the log (%llu bytes)\n",
		       td->o.iodepth, td->o.iodepth * maxbs, cap);
	if (c->bufsize < 2ull * td->o.iodepth * maxbs)
		REFUSE("%s=%llu: log buffer smaller than 2 x iodepth x bs\n",
		       c->g.flavor == RL_POSTGRES ? "wal_buffers" : "innodb_log_buffer_size",
		       (unsigned long long)c->bufsize);
	c->skip_flush = o->skip_flush;
	return 0;
}

static int fio_redolog_setup(struct thread_data *td)
{
	struct redolog_options *o = td->eo;
	unsigned long long fsize;
	struct rl_cfg c;
	struct fio_file *f;
	unsigned int i;

	if (fio_store_setup(td, "redolog", &o->so) || rl_config(td, &c))
		return 1;
	fio_store_no_fio_syncs(td, "redolog", "the log flushes each commit group itself");
	/* fio's file is only the io_u source: its offsets are ignored */
	fsize = td->o.size ? td->o.size / (td->o.nr_files ? td->o.nr_files : 1) : 1ull << 30;
	for_each_file(td, f, i) {
		f->real_file_size = fsize;
		fio_file_set_size_known(f);
	}
	return 0;
}

/*
 * lsn_file= and write_trace= are written by the log (redolog_log.c): it says
 * a failed sidecar write only in l->err ("sidecar write failed: ...", and
 * nothing else in rl_log_ack writes there) and a failed trace line stays in
 * its FILE's error flag. Either fails the job here, in one line naming the
 * option, the path and the cause: logverify would read a stale LSN.
 */
static int rl_sidecar_failed(struct thread_data *td, struct redolog_data *rd,
			     const char *opt, const char *path, int err)
{
	if (!rd->side_failed++)
		log_err("redolog: %s=%s: write failed: %s\n", opt, path, strerror(err));
	td_verror(td, err, opt);
	return -err;
}

static int rl_ack(struct thread_data *td, struct redolog_data *rd, uint64_t lsn)
{
	struct rl_log *l = &rd->log;
	int err;

	if (l->side_fd < 0) {
		rl_log_ack(l, lsn);
		return 0;
	}
	l->err[0] = '\0';
	errno = 0;
	rl_log_ack(l, lsn);
	err = errno ? errno : EIO;
	return l->err[0] ? rl_sidecar_failed(td, rd, "lsn_file", rd->side, err) : 0;
}

/* final: flush the trace's buffer first (the log closes it). */
static int rl_trace_check(struct thread_data *td, struct redolog_data *rd, int final)
{
	FILE *f = rd->log.trace;
	int err;

	if (!f || (!final && !ferror(f)))
		return 0;
	errno = 0;
	if (!fflush(f) && !ferror(f))
		return 0;
	err = errno ? errno : EIO;
	return rl_sidecar_failed(td, rd, "write_trace", rd->trace, err);
}

static int fio_redolog_init(struct thread_data *td)
{
	struct redolog_options *o = td->eo;
	struct redolog_data *rd;
	struct rl_cfg c;
	int multi, ret;

	if (rl_config(td, &c))
		return 1;
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return 1;
	td->io_ops_data = rd;
	rd->pend = calloc(td->o.iodepth, sizeof(*rd->pend));
	rd->done = calloc(td->o.iodepth, sizeof(*rd->done));
	if (!rd->pend || !rd->done)
		return 1;
	if (fio_store_connect(td, "redolog", &o->so, td->o.directory, 0, &rd->store))
		return 1;
	if (c.g.flavor == RL_POSTGRES &&
	    fio_store_require(td, "redolog", rd->store, STORE_CAP_RENAME))
		return 1;
	/* #innodb_redo: a directory, renames and directory fsyncs (not store=rbd) */
	if (c.g.redo8030 && fio_store_require(td, "redolog", rd->store,
					      STORE_CAP_MKDIR | STORE_CAP_RENAME | STORE_CAP_DIRSYNC))
		return 1;
	/* numjobs clones have o.numjobs = 1 and subjob_number > 0: each job its own log */
	multi = td->o.numjobs > 1 || td->subjob_number > 0;
	snprintf(c.g.prefix, sizeof(c.g.prefix), "%s%s", o->log_prefix ? o->log_prefix : "",
		 multi ? "job" : "");
	if (multi)
		snprintf(c.g.prefix + strlen(c.g.prefix), sizeof(c.g.prefix) - strlen(c.g.prefix),
			 "%d-", td->thread_number);
	if (o->lsn_file && *o->lsn_file) {
		fio_store_sidecar_path(td, o->lsn_file, rd->side, sizeof(rd->side));
		c.lsn_file = rd->side;
	}
	if (o->write_trace && *o->write_trace) {
		fio_store_sidecar_path(td, o->write_trace, rd->trace, sizeof(rd->trace));
		c.trace = rd->trace;
	}
	c.unlink = td->o.unlink;	/* removed at close, after the last flush */
	c.job = td->o.name;
	rd->log_open = 1;
	ret = rl_log_open(&rd->log, rd->store, &c, "redolog");
	if (ret) {
		log_err("redolog: %s\n", rd->log.err);
		td_verror(td, ret < 0 ? -ret : EIO, "redolog log open");
		return 1;
	}
	rd->log_ok = 1;
	/* the sidecar's first write and the trace's lines so far */
	return rl_ack(td, rd, rd->log.ack_lsn) || rl_trace_check(td, rd, 0) ? 1 : 0;
}

static void fio_redolog_cleanup(struct thread_data *td)
{
	struct redolog_options *o = td->eo;
	struct redolog_data *rd = td->io_ops_data;
	struct rl_stats *st = &rd->log.st;
	struct fio_report r;
	uint64_t ns;

	if (!rd)
		return;
	if (rd->log_ok) {
		/* a clean shutdown writes and flushes what trx_commit=0/2 left */
		if (!rd->log.c.skip_flush && !rl_log_write(&rd->log, 1, &ns))
			rl_ack(td, rd, rd->log.lsn);
		rl_trace_check(td, rd, 1);
		fprintf(fio_report_begin(&r), "redolog: job %s: flavor=%s store=%s commits=%llu groups=%llu "
			"writes=%llu flushes=%llu bytes=%llu pad_bytes=%llu max_group=%llu "
			"recycled=%llu created=%llu removed=%llu wraps=%llu lsn=%llu\n", td->o.name,
			rl_flavor_name(rd->log.c.g.flavor), store_backend_name(rd->store->cfg.backend),
			(unsigned long long)st->commits, (unsigned long long)st->groups,
			(unsigned long long)st->writes, (unsigned long long)st->flushes,
			(unsigned long long)st->bytes, (unsigned long long)st->pad_bytes,
			(unsigned long long)st->max_group, (unsigned long long)st->recycles,
			(unsigned long long)st->creates, (unsigned long long)st->removes,
			(unsigned long long)st->wraps, (unsigned long long)rd->log.lsn);
		fio_report_end(&r);
	}
	if (rd->log_open)
		rl_log_close(&rd->log);
	if (rd->store) {
		fio_store_report(td, "redolog", &o->so, rd->store);
		store_exit(rd->store);
	}
	free(rd->pend);
	free(rd->done);
	free(rd);
	td->io_ops_data = NULL;
}

static int fio_redolog_open_file(struct thread_data *td, struct fio_file *f)
{
	return 0;
}

static int fio_redolog_close_file(struct thread_data *td, struct fio_file *f)
{
	return 0;
}

/* unlink=1: fio's file is no file; the log's files go at cleanup, after the last flush. */
static int fio_redolog_unlink_file(struct thread_data *td, struct fio_file *f)
{
	return 0;
}

/* Write (and for trx_commit 1, flush) everything buffered; report the flush. */
static int rl_group(struct thread_data *td, struct redolog_data *rd, int flush)
{
	uint64_t ns;
	int ret;

	ret = rl_log_write(&rd->log, flush && !rd->log.c.skip_flush, &ns);
	if (ret) {
		log_err("redolog: %s\n", rd->log.err);
		return ret;
	}
	if ((ret = rl_trace_check(td, rd, 0)))
		return ret;
	if (ns)
		fio_store_sync_sample(td, ns);
	return 0;
}

/* trx_commit 0 and 2: the once-a-second flush of the master thread. */
static int rl_timer(struct thread_data *td, struct redolog_data *rd)
{
	struct rl_log *l = &rd->log;
	uint64_t ns;
	int ret;

	if (latstat_now_ns() - l->last_flush_ns < 1000000000ull &&
	    (l->c.trx_commit != 0 || rl_log_room(l) > l->c.bufsize / 2))
		return 0;
	if (l->c.trx_commit == 0 && (ret = rl_group(td, rd, 0)))
		return ret;
	if (l->c.skip_flush) {
		l->last_flush_ns = latstat_now_ns();
		return 0;
	}
	ret = rl_log_flush(l, &ns);
	if (ret) {
		log_err("redolog: %s\n", l->err);
		return ret;
	}
	if (ns)
		fio_store_sync_sample(td, ns);
	return 0;
}

static enum fio_q_status fio_redolog_queue(struct thread_data *td, struct io_u *io_u)
{
	struct redolog_data *rd = td->io_ops_data;
	struct rl_log *l = &rd->log;
	int ret;

	fio_ro_check(td, io_u);
	if (fio_fill_issue_time(td))
		fio_gettime(&io_u->issue_time, NULL);
	if (io_u->ddir != DDIR_WRITE)	/* end_fsync=: the log is flushed anyway */
		return FIO_Q_COMPLETED;
	if (l->failed) {	/* a write or flush failed: no commit succeeds again */
		io_u->error = -l->failed;
		td_verror(td, io_u->error, "redolog log unusable");
		return FIO_Q_COMPLETED;
	}
	if (rl_log_room(l) < io_u->xfer_buflen && (ret = rl_group(td, rd, l->c.trx_commit == 1))) {
		io_u->error = -ret;
		td_verror(td, io_u->error, "redolog log write");
		return FIO_Q_COMPLETED;
	}
	rl_log_append(l, (char *)io_u->xfer_buf + RL_REC_HDR, io_u->xfer_buflen);
	if (l->c.trx_commit == 0) {
		/* acknowledged from the log buffer: durable within a second */
		ret = rl_ack(td, rd, l->lsn);
		if (!ret)
			ret = rl_timer(td, rd);
		if (ret) {
			io_u->error = -ret;
			td_verror(td, io_u->error, "redolog flush");
		}
		return FIO_Q_COMPLETED;
	}
	/* no commit hook: fio records the submission latency itself (io_u_queued) */
	rd->pend[rd->npend++] = io_u;
	return FIO_Q_QUEUED;
}

/* Write (and flush) the pending records as one group; append them to done. */
static void rl_commit_pending(struct thread_data *td, struct redolog_data *rd)
{
	struct rl_log *l = &rd->log;
	unsigned int i;
	int ret;

	ret = rl_group(td, rd, l->c.trx_commit == 1);
	if (!ret && l->c.trx_commit == 2)
		ret = rl_timer(td, rd);
	if (!ret)
		ret = rl_ack(td, rd, l->lsn);
	for (i = 0; i < rd->npend; i++) {
		rd->pend[i]->error = ret ? -ret : 0;
		rd->done[rd->ndone++] = rd->pend[i];
	}
	if (rd->npend > l->st.max_group)
		l->st.max_group = rd->npend;
	rd->npend = 0;
}

/*
 * Hand out the completions of the last group; when they are fewer than fio
 * asks for (min) and records wait, write those as the next group first.
 * fio's end-of-job reap asks once for every io_u in flight: records left
 * pending there would never complete (and their io_us never come back).
 */
static int fio_redolog_getevents(struct thread_data *td, unsigned int min,
				 unsigned int max, const struct timespec *t)
{
	struct redolog_data *rd = td->io_ops_data;
	unsigned int n = rd->ndone - rd->nout;

	if (rd->npend && (!n || n < min)) {
		memmove(rd->done, rd->done + rd->nout, n * sizeof(*rd->done));
		rd->ndone = n;
		rd->nout = 0;
		rl_commit_pending(td, rd);
		n = rd->ndone;
	}
	if (n > max)
		n = max;
	rd->evbase = rd->nout;
	rd->nout += n;
	return n;
}

static struct io_u *fio_redolog_event(struct thread_data *td, int event)
{
	struct redolog_data *rd = td->io_ops_data;

	return rd->done[rd->evbase + event];
}

struct ioengine_ops ioengine = {
	.name			= "redolog",
	.version		= FIO_IOOPS_VERSION,
	.flags			= FIO_DISKLESSIO | FIO_NODISKUTIL | FIO_ASYNCIO_SETS_ISSUE_TIME,
	.setup			= fio_redolog_setup,
	.init			= fio_redolog_init,
	.cleanup		= fio_redolog_cleanup,
	.queue			= fio_redolog_queue,
	.getevents		= fio_redolog_getevents,
	.event			= fio_redolog_event,
	.open_file		= fio_redolog_open_file,
	.close_file		= fio_redolog_close_file,
	.unlink_file		= fio_redolog_unlink_file,
	.option_struct_size	= sizeof(struct redolog_options),
	.options		= options,
};
