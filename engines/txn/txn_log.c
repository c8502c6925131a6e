/*
 * txn_log.c - one log per database, shared by its connections, with the
 * database's own group commit. The log itself (buffer, blocks/pages, files,
 * recycling) is redolog's writer (redolog_log.c); this file only decides who
 * writes and flushes it, and when.
 *
 * PostgreSQL (XLogFlush): a committer inserts its record, then wants the log
 * flushed up to it. If a flush is in progress it waits for it (WALWriteLock)
 * and looks again: the flush may have covered it. Otherwise it becomes the
 * flusher; after commit_delay (when at least commit_siblings other
 * connections are active as MinimumActiveBackends counts them: written in an
 * open transaction, not waiting on a row lock; txn.c and txn_lock.c keep the
 * count) it writes and flushes every record inserted up to that moment.
 * InnoDB with innodb_flush_log_at_trx_commit=1
 * (log_write_up_to) groups the same way; =2 writes at commit and flushes
 * once a second, =0 does both once a second (a timer thread here, InnoDB's
 * log flusher). The mysql flavor's binlog (log_bin) is written by the
 * group's leader after the redo flush and fsynced every sync_binlog groups,
 * as MySQL's ordered_commit flush and sync stages do; with trx_commit 0 or 2
 * too (binlog_upto), whose groups the timer's redo flush does not wait for.
 *
 * InnoDB's background redo (background_log_share): that part of a
 * transaction's log bytes is not appended at commit but counted, and the
 * timer appends it once a second in one batch; the next commit's write
 * carries it. Measured on MariaDB 10.11 (docs/txn.md): a write adding
 * 150-370 KB once a second, from a connection thread, 37-47 % of the redo;
 * not with a 2000-row table. Its source in InnoDB is not identified here.
 *
 * Records are appended under the log's mutex; the write (pwrite from the
 * buffer) too, since it reads the buffer; the flush runs outside it, so
 * other connections keep inserting while it takes. No fio headers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/latstat.h"
#include "txn.h"

#define TXN_MAX_REC	65536
static const uint8_t zero_rec[TXN_MAX_REC];

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ull, ns % 1000000000ull };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Caller holds m: the first error wins; every committer reads it under m. */
static int fail(struct txn_log *l, int ret, const char *what)
{
	if (!l->error) {
		l->error = ret;
		snprintf(l->err, sizeof(l->err), "%s", what);
	}
	return ret;
}

/* A store call's failure, said in why (the caller records it under m): the call, the file and the cause. */
static int call_failed(int ret, const char *call, const char *name, char *why, size_t len)
{
	snprintf(why, len, "%s(%s) failed: %s", call, name, strerror(-ret));
	return ret;
}

static void group_stat(struct txn_log *l, uint64_t n)
{
	unsigned int b = 0;

	if (!n)
		return;
	while (b < 8 && (1ull << b) < n)
		b++;
	l->st.hist[b]++;
	if (n > l->st.max_group)
		l->st.max_group = n;
	if (l->trace)
		fprintf(l->trace, "%llu\n", (unsigned long long)n);
}

/* Caller holds m and owns the log (busy): write the buffer. */
static int write_locked(struct txn_log *l)
{
	uint64_t ns;
	int ret;

	ret = rl_log_write(&l->rl, 0, &ns);
	if (ret)
		return fail(l, ret, l->rl.err);
	l->written_lsn = l->rl.lsn;
	l->st.writes++;
	return 0;
}

/*
 * Owner, without m: the binlog's share of a group (mysql). MySQL rotates to a
 * new file at max_binlog_size (and purges old ones); the model wraps to the
 * start of its one file instead: the same appends, and on store=rbd they stay
 * in the extent the file was given (a write past it fails with EFBIG). A
 * transaction's events are never split across the wrap, as MySQL never splits
 * them across files.
 */
static int binlog_group(struct txn_log *l, uint64_t bytes, char *why, size_t len)
{
	ssize_t r;
	int ret;

	while (bytes) {
		uint64_t n = bytes < TXN_MAX_REC ? bytes : TXN_MAX_REC;

		if (n > l->c.max_binlog)
			n = l->c.max_binlog;
		if (l->binlog_off + n > l->c.max_binlog) {
			l->binlog_off = 0;
			l->st.binlog_wraps++;
		}
		r = store_pwrite(l->s, l->binlog, zero_rec, n, l->binlog_off);
		if (r < 0)
			return call_failed((int)r, "pwrite", TXN_BINLOG, why, len);
		l->binlog_off += n;
		bytes -= n;
	}
	if (l->c.sync_binlog && ++l->binlog_groups % l->c.sync_binlog == 0) {
		ret = store_fdatasync(l->s, l->binlog);
		if (ret)
			return call_failed(ret, "fdatasync", TXN_BINLOG, why, len);
		l->st.binlog_syncs++;
	}
	return 0;
}

/*
 * Caller holds m, owns the log and has written it: flush outside m. An
 * error is recorded once m is held again (fail): committers read l->error
 * under m; the owner's rl.err and why stay its own until it disowns.
 */
static int flush_unlocked(struct txn_log *l, uint64_t end, uint64_t binlog)
{
	char why[sizeof(l->err)];
	uint64_t ns;
	int ret;

	pthread_mutex_unlock(&l->m);
	ret = rl_log_flush(&l->rl, &ns);
	if (ret)
		snprintf(why, sizeof(why), "%s", l->rl.err);
	if (l->c.flush_wait_ns) {
		/* as a round trip is slept: an overshoot comes off the next flushes' */
		l->wait.slack_set = 0;		/* another thread may flush next */
		dbtime_round_trip(&l->wait, l->c.flush_wait_ns);
	}
	if (!ret && binlog)
		ret = binlog_group(l, binlog, why, sizeof(why));
	pthread_mutex_lock(&l->m);
	if (ret)
		fail(l, ret, why);
	if (!ret && end > l->flushed_lsn)
		l->flushed_lsn = end;
	l->st.flushes++;
	return ret;
}

/* Become the flusher (or find the record flushed by another): PostgreSQL's XLogFlush. */
static int flush_upto(struct txn_log *l, uint64_t lsn)
{
	uint64_t end, n, binlog;
	int ret = 0;

	while (l->flushed_lsn < lsn && !l->error) {
		if (l->busy) {
			pthread_cond_wait(&l->cv, &l->m);
			continue;
		}
		l->busy = 1;
		if (l->c.commit_delay_ns &&
		    atomic_load(&l->active) > l->c.commit_siblings) {
			pthread_mutex_unlock(&l->m);
			sleep_ns(l->c.commit_delay_ns);
			pthread_mutex_lock(&l->m);
			l->st.delays++;
		}
		end = l->rl.lsn;
		n = l->nrec - l->nrec_flushed;
		l->nrec_flushed = l->nrec;
		binlog = 0;
		if (l->c.rl.trx_commit == 1) {	/* 0 and 2: binlog_upto's, per commit */
			binlog = l->binlog_pending;
			l->binlog_pending = 0;
		}
		ret = write_locked(l);
		if (!ret)
			ret = flush_unlocked(l, end, binlog);
		group_stat(l, n);
		l->busy = 0;
		pthread_cond_broadcast(&l->cv);
		if (ret)
			break;
	}
	return l->error ? l->error : ret;
}

/* Caller holds m: wait for the owner to finish, then own the log. */
static void own(struct txn_log *l)
{
	while (l->busy)
		pthread_cond_wait(&l->cv, &l->m);
	l->busy = 1;
}

static void disown(struct txn_log *l)
{
	l->busy = 0;
	pthread_cond_broadcast(&l->cv);
}

/*
 * innodb_flush_log_at_trx_commit 0 or 2 with the binlog: MySQL's
 * ordered_commit still runs its flush stage (the group's redo write when =2,
 * then the binlog write) and its sync stage (fdatasync every sync_binlog
 * groups) for every commit group; only the redo flush waits for the timer. A
 * committer whose events a leader has not written yet becomes the leader.
 */
static int binlog_upto(struct txn_log *l, uint64_t pos)
{
	uint64_t end, bytes;
	char why[sizeof(l->err)];
	int ret = 0;

	while (l->binlog_done < pos && !l->error) {
		if (l->busy) {
			pthread_cond_wait(&l->cv, &l->m);
			continue;
		}
		l->busy = 1;
		if (l->c.rl.trx_commit == 2 && l->written_lsn < l->rl.lsn)
			ret = write_locked(l);
		end = l->binlog_queued;
		bytes = l->binlog_pending;
		l->binlog_pending = 0;
		pthread_mutex_unlock(&l->m);
		if (!ret && (ret = binlog_group(l, bytes, why, sizeof(why)))) {
			pthread_mutex_lock(&l->m);
			fail(l, ret, why);
		} else {
			pthread_mutex_lock(&l->m);
		}
		if (!ret)
			l->binlog_done = end;
		disown(l);
		if (ret)
			break;
	}
	return l->error ? l->error : ret;
}

/* Caller holds m: append n bytes of records, writing the buffer when it is full. */
static int append_locked(struct txn_log *l, uint64_t n)
{
	uint64_t max = l->c.rl.bufsize / 2 < TXN_MAX_REC ? l->c.rl.bufsize / 2 : TXN_MAX_REC;
	int ret = 0;

	while (n && !ret && !l->error) {
		uint64_t r = n < max ? n : max;

		while (rl_log_room(&l->rl) < r && !ret) {	/* buffer full: write it */
			own(l);
			ret = write_locked(l);
			disown(l);
		}
		if (!ret)
			rl_log_append(&l->rl, zero_rec, r);
		n -= r;
	}
	return ret;
}

int txn_log_commit(struct txn_log *l, uint32_t bytes, uint32_t binlog_bytes)
{
	uint32_t bg = (uint64_t)bytes * l->c.bg_share / 100;
	uint64_t my;
	int ret = 0;

	bytes -= bg;
	if (bytes < RL_REC_HDR + 8)
		bytes = RL_REC_HDR + 8;
	if (bytes > TXN_MAX_REC)
		bytes = TXN_MAX_REC;
	if (bytes > l->c.rl.bufsize / 2)	/* a record must fit the log buffer */
		bytes = l->c.rl.bufsize / 2;
	pthread_mutex_lock(&l->m);
	ret = append_locked(l, bytes);		/* one record: bytes fit the buffer */
	if (!ret && !l->error) {
		l->bg_pending += bg;
		l->nrec++;
		l->st.commits++;
		l->binlog_pending += l->c.log_bin ? binlog_bytes : 0;
		l->binlog_queued += l->c.log_bin ? binlog_bytes : 0;
		my = l->rl.lsn;
		if (l->c.ckpt_wal && l->ck && my - l->ckpt_from >= l->c.ckpt_wal) {
			/* max_wal_size: CheckPointSegments of WAL since the last one */
			l->ckpt_from = my;
			l->st.wal_ckpts++;
			pg_ckpt_request(l->ck, "wal");
		}
		if (l->c.rl.trx_commit == 1)
			ret = flush_upto(l, my);
		else if (l->c.log_bin)
			ret = binlog_upto(l, l->binlog_queued);
		else if (l->c.rl.trx_commit == 2 && l->written_lsn < my) {
			own(l);
			ret = write_locked(l);
			disown(l);
		}
	}
	ret = ret ? ret : l->error;
	pthread_mutex_unlock(&l->m);
	return ret;
}

/*
 * Once a second: the background batch (background_log_share), appended for the next
 * commit's write to carry; with innodb_flush_log_at_trx_commit 0 and 2, the
 * flush.
 */
static void *timer_main(void *arg)
{
	struct txn_log *l = arg;

	pthread_mutex_lock(&l->m);
	while (!l->stop) {
		pthread_mutex_unlock(&l->m);
		sleep_ns(1000000000ull);
		pthread_mutex_lock(&l->m);
		if (l->bg_pending && !l->error && !append_locked(l, l->bg_pending)) {
			l->st.bg_batches++;
			l->st.bg_bytes += l->bg_pending;
			l->bg_pending = 0;
		}
		if (l->c.rl.trx_commit != 1 && l->rl.lsn > l->flushed_lsn && !l->error)
			flush_upto(l, l->rl.lsn);
	}
	pthread_mutex_unlock(&l->m);
	return NULL;
}

/*
 * The checkpointer's phases (pg_ckpt_conf.phase), postgres: a checkpoint's
 * redo point is the insert position as it begins; once it is done,
 * RemoveOldXlogFiles may recycle every segment before that point.
 */
void txn_log_ckpt_phase(void *arg, int done)
{
	struct txn_log *l = arg;

	pthread_mutex_lock(&l->m);
	if (!done)
		l->ckpt_redo = l->rl.lsn;
	else
		rl_log_freed(&l->rl, l->ckpt_redo);
	pthread_mutex_unlock(&l->m);
}

int txn_log_open_binlog(struct txn_log *l)
{
	/* claimed by txn_db.c before: O_TRUNC only ever empties dbfio's own binlog */
	int ret = store_open(l->s, TXN_BINLOG, O_RDWR | O_CREAT | O_TRUNC, 0640,
			     l->c.max_binlog, &l->binlog);

	if (ret)
		snprintf(l->err, sizeof(l->err), "open(%s) failed: %s", TXN_BINLOG, strerror(-ret));
	return ret;
}

int txn_log_open(struct txn_log *l, struct store *s, const struct txn_log_cfg *c)
{
	int ret;

	memset(l, 0, sizeof(*l));
	l->c = *c;
	l->s = s;
	pthread_mutex_init(&l->m, NULL);
	pthread_cond_init(&l->cv, NULL);
	if (c->group_trace) {
		l->trace = fopen(c->group_trace, "w");
		if (!l->trace) {
			ret = -errno;
			snprintf(l->err, sizeof(l->err), "txn_group_trace=%s: fopen(%s) failed: %s",
				 c->group_trace, c->group_trace, strerror(-ret));
			return ret;
		}
	}
	l->rl_open = 1;
	ret = rl_log_open(&l->rl, s, &c->rl, "txn");
	if (ret) {
		snprintf(l->err, sizeof(l->err), "%s", l->rl.err);
		return ret;
	}
	l->rl.linked = 0;	/* the write is under the mutex, the flush outside it */
	if (c->rl.trx_commit != 1 || c->bg_share) {
		ret = -pthread_create(&l->timer, NULL, timer_main, l);
		if (ret) {
			snprintf(l->err, sizeof(l->err), "pthread_create failed: %s", strerror(-ret));
			return ret;
		}
		l->timer_on = 1;
	}
	return 0;
}

void txn_log_close(struct txn_log *l)
{
	if (l->timer_on) {
		pthread_mutex_lock(&l->m);
		l->stop = 1;
		pthread_mutex_unlock(&l->m);
		pthread_join(l->timer, NULL);
		l->timer_on = 0;
	}
	if (l->rl_open) {
		pthread_mutex_lock(&l->m);
		if (l->rl.lsn > l->flushed_lsn && !l->error)	/* clean shutdown */
			flush_upto(l, l->rl.lsn);
		pthread_mutex_unlock(&l->m);
		rl_log_ack(&l->rl, l->rl.lsn);
		rl_log_close(&l->rl);
		l->rl_open = 0;
	}
	if (l->binlog)
		store_close(l->s, l->binlog);
	l->binlog = NULL;
	if (l->trace)
		fclose(l->trace);
	l->trace = NULL;
	pthread_mutex_destroy(&l->m);
	pthread_cond_destroy(&l->cv);
}
