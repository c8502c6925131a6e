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
 * A commit inserts its record under the log's mutex (m) by reserving its
 * place only; the copy into the log buffer, its CRC, the write and the
 * flush are the write lock's (busy), outside m, so other connections keep
 * inserting while a write or flush takes. The binlog's leader has a lock of
 * its own (bbusy) and a store of its own. No fio headers.
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

/*
 * The insert lock (m) and the write lock (busy) apart, as PostgreSQL keeps
 * WAL insertion (its insertion locks) apart from WALWriteLock: a committer
 * only reserves its record under m (its length in q, ins_lsn moved on); the
 * owner of the write lock moves the reserved records into redolog's buffer
 * (their copy and CRC), writes and flushes it with m released. So a commit's
 * insertion never waits behind a write in progress, only when a log buffer's
 * worth of records waits to be written (PostgreSQL: a full WAL buffer).
 */

/* Caller holds m: reserve one record of n bytes (the queue has room). */
static void insert_locked(struct txn_log *l, uint32_t n)
{
	l->q[(l->qhead + l->qcount++) % l->qcap] = n;
	l->qbytes += n;
	l->ins_lsn += n;
}

/*
 * Caller holds m and the write lock (busy): every record reserved so far into
 * rl's buffer, written (flush: and made durable) with m released; the result
 * recorded under m again. Only the write lock's owner touches rl.
 */
static int write_unlocked(struct txn_log *l, int flush)
{
	unsigned int head = l->qhead, n = l->qcount, i;
	uint64_t bytes = l->qbytes, end = l->ins_lsn, ns;
	char why[sizeof(l->err)];
	int ret = 0;

	pthread_mutex_unlock(&l->m);
	for (i = 0; i < n && !ret; i++) {
		uint32_t r = l->q[(head + i) % l->qcap];

		if (rl_log_room(&l->rl) < r)	/* rl's buffer full: write it */
			ret = rl_log_write(&l->rl, 0, &ns);
		if (!ret)
			rl_log_append(&l->rl, zero_rec, r);
	}
	if (!ret)
		ret = rl_log_write(&l->rl, 0, &ns);
	if (!ret && flush)
		ret = rl_log_flush(&l->rl, &ns);
	if (ret)
		snprintf(why, sizeof(why), "%s", l->rl.err);
	if (flush && l->c.flush_wait_ns) {
		/* as a round trip is slept: an overshoot comes off the next flushes' */
		l->wait.slack_set = 0;		/* another thread may flush next */
		dbtime_round_trip(&l->wait, l->c.flush_wait_ns);
	}
	pthread_mutex_lock(&l->m);
	l->qhead = (head + n) % l->qcap;
	l->qcount -= n;
	l->qbytes -= bytes;
	l->st.writes++;
	if (flush)
		l->st.flushes++;
	if (ret)
		return fail(l, ret, why);
	l->written_lsn = end;
	if (flush && end > l->flushed_lsn)
		l->flushed_lsn = end;
	return 0;
}

static void disown(struct txn_log *l)
{
	l->busy = 0;
	pthread_cond_broadcast(&l->cv);
}

/* Become the flusher (or find the record flushed by another): PostgreSQL's XLogFlush. */
static int flush_upto(struct txn_log *l, uint64_t lsn)
{
	uint64_t n;
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
		n = l->nrec - l->nrec_flushed;
		l->nrec_flushed = l->nrec;
		ret = write_unlocked(l, 1);
		group_stat(l, n);
		disown(l);
		if (ret)
			break;
	}
	return l->error ? l->error : ret;
}

/*
 * One turn at writing (not flushing) the log, with m held: wait for the
 * writer in progress, or become the writer and write what is queued.
 */
static int write_turn(struct txn_log *l)
{
	int ret;

	if (l->busy) {
		pthread_cond_wait(&l->cv, &l->m);
		return 0;
	}
	l->busy = 1;
	ret = write_unlocked(l, 0);
	disown(l);
	return ret;
}

/* innodb_flush_log_at_trx_commit=2: the log written (not flushed) up to lsn. */
static int write_upto(struct txn_log *l, uint64_t lsn)
{
	int ret = 0;

	while (l->written_lsn < lsn && !l->error && !ret)
		ret = write_turn(l);
	return l->error ? l->error : ret;
}

/*
 * The binlog (mysql/mariadb, log_bin), MariaDB 10.11's as strace shows it
 * (sync_binlog=1, max_binlog_size=64k): every commit group's events are
 * appended to the current file by the group's leader, then one fdatasync;
 * once the file reaches max_binlog_size, the leader rotates: a Rotate event
 * (44 bytes) ends the old file (fdatasync), the next binlog.NNNNNN is created,
 * its header (magic, format description, ...: 339 bytes) written and synced,
 * its name appended to binlog.index (fdatasync), and the old file's in-use
 * flag (the byte at offset 21) cleared before it is closed. Old files are
 * purged (expire_logs_days, purge_binlogs): here at most TXN_BINLOG_KEEP are
 * kept, and only files this run created go. Every new name is claimed first
 * (owner.h): a binlog.NNNNNN dbfio did not create stops the job. Not
 * modelled: the index's crash-safe copy (binlog.~rec~) and its rewrite at a
 * purge. The binlog has a store of its own (bs): its leader runs while
 * another connection holds the redo log's write lock.
 */
#define BINLOG_HDR	339	/* a new file's header (MariaDB 10.11, strace) */
#define BINLOG_ROTATE	44	/* the Rotate event closing a file */
#define BINLOG_INUSE	21	/* offset of the in-use flag cleared at close */
#define BINLOG_INDEX_MAX (1u << 20)	/* the index's extent; its lines wrap in it */

static void binlog_name(uint64_t no, char *buf, size_t len)
{
	snprintf(buf, len, TXN_BINLOG_FMT, (unsigned long long)no);
}

static uint64_t binlog_extent(const struct txn_log *l)
{
	return l->c.max_binlog + TXN_MAX_REC + BINLOG_HDR + BINLOG_ROTATE;
}

static int bl_write(struct txn_log *l, struct store_file *f, const char *name, const void *buf,
		    uint64_t n, uint64_t off, char *why, size_t len)
{
	ssize_t r = store_pwrite(l->bs, f, buf, n, off);

	if (r >= 0 && (uint64_t)r != n)
		r = -EIO;
	return r < 0 ? call_failed((int)r, "pwrite", name, why, len) : 0;
}

static int bl_sync(struct txn_log *l, struct store_file *f, const char *name, char *why, size_t len)
{
	int ret = store_fdatasync(l->bs, f);

	return ret ? call_failed(ret, "fdatasync", name, why, len) : 0;
}

/* Leader: binlog no claimed, created, its header written, listed in the index. */
static int binlog_create(struct txn_log *l, uint64_t no, struct store_file **fp, char *why, size_t len)
{
	char name[32], line[40];
	int ret, n;

	binlog_name(no, name, sizeof(name));
	ret = owner_claim(&l->bown, name, OWNER_DURABLE);
	if (ret) {
		snprintf(why, len, "%s", l->bown.err);
		return ret;
	}
	ret = store_open(l->bs, name, O_RDWR | O_CREAT | O_TRUNC, 0640, binlog_extent(l), fp);
	if (ret)
		return call_failed(ret, "open", name, why, len);
	ret = bl_write(l, *fp, name, zero_rec, BINLOG_HDR, 0, why, len);
	if (!ret && l->c.sync_binlog)
		ret = bl_sync(l, *fp, name, why, len);
	n = snprintf(line, sizeof(line), "./%s\n", name);
	if (l->bindex_off + n > BINLOG_INDEX_MAX)
		l->bindex_off = 0;
	if (!ret)
		ret = bl_write(l, l->bindex, TXN_BINLOG_INDEX, line, n, l->bindex_off, why, len);
	l->bindex_off += n;
	if (!ret && l->c.sync_binlog)
		ret = bl_sync(l, l->bindex, TXN_BINLOG_INDEX, why, len);
	return ret;
}

/* Leader: the current file is full: end it, go on in the next, purge past the kept ones. */
static int binlog_rotate(struct txn_log *l, char *why, size_t len)
{
	struct store_file *nf = NULL;
	char name[32];
	int ret;

	binlog_name(l->binlog_no, name, sizeof(name));
	ret = bl_write(l, l->binlog, name, zero_rec, BINLOG_ROTATE, l->binlog_off, why, len);
	if (!ret && l->c.sync_binlog)
		ret = bl_sync(l, l->binlog, name, why, len);
	if (!ret)
		ret = binlog_create(l, l->binlog_no + 1, &nf, why, len);
	if (!ret)
		ret = bl_write(l, l->binlog, name, zero_rec, 1, BINLOG_INUSE, why, len);
	if (ret) {
		if (nf)
			store_close(l->bs, nf);
		return ret;
	}
	store_close(l->bs, l->binlog);
	l->binlog = nf;
	l->binlog_no++;
	l->binlog_off = BINLOG_HDR;
	l->st.binlog_rotations++;
	while (l->binlog_no - l->binlog_first >= TXN_BINLOG_KEEP) {	/* the oldest: this run's */
		binlog_name(l->binlog_first, name, sizeof(name));
		ret = store_unlink(l->bs, name);
		if (ret && ret != -ENOENT)
			return call_failed(ret, "unlink", name, why, len);
		if ((ret = owner_drop(&l->bown, name))) {
			snprintf(why, len, "%s", l->bown.err);
			return ret;
		}
		l->binlog_first++;
		l->st.binlog_purges++;
	}
	return 0;
}

/*
 * Leader, without m: a group's events appended (in pieces of at most 64 kB;
 * a group larger than the file's room rotates between them), one fdatasync
 * every sync_binlog groups, then the rotation once the file is full.
 */
static int binlog_group(struct txn_log *l, uint64_t bytes, char *why, size_t len)
{
	char name[32];
	int ret = 0;

	binlog_name(l->binlog_no, name, sizeof(name));
	while (bytes && !ret) {
		uint64_t n = bytes < TXN_MAX_REC ? bytes : TXN_MAX_REC;

		if (l->binlog_off >= l->c.max_binlog)
			ret = binlog_rotate(l, why, len);
		binlog_name(l->binlog_no, name, sizeof(name));
		if (!ret)
			ret = bl_write(l, l->binlog, name, zero_rec, n, l->binlog_off, why, len);
		if (!ret) {
			l->binlog_off += n;
			bytes -= n;
		}
	}
	if (!ret && l->c.sync_binlog && ++l->binlog_groups % l->c.sync_binlog == 0) {
		ret = bl_sync(l, l->binlog, name, why, len);
		if (!ret)
			l->st.binlog_syncs++;
	}
	if (!ret && l->binlog_off >= l->c.max_binlog)
		ret = binlog_rotate(l, why, len);
	return ret;
}

/*
 * Caller holds m: the binlog's group commit, apart from the redo log's
 * write lock (MariaDB's binlog leader under LOCK_log): a committer whose
 * events no leader has written yet becomes the leader and writes every
 * event queued so far, while the next group's redo flush may already run.
 */
static int binlog_upto(struct txn_log *l, uint64_t pos)
{
	uint64_t end, bytes;
	char why[sizeof(l->err)];
	int ret = 0;

	while (l->binlog_done < pos && !l->error) {
		if (l->bbusy) {
			pthread_cond_wait(&l->cv, &l->m);
			continue;
		}
		l->bbusy = 1;
		end = l->binlog_queued;
		bytes = l->binlog_pending;
		l->binlog_pending = 0;
		pthread_mutex_unlock(&l->m);
		why[0] = 0;
		ret = binlog_group(l, bytes, why, sizeof(why));
		pthread_mutex_lock(&l->m);
		if (ret)
			fail(l, ret, why);
		else
			l->binlog_done = end;
		l->bbusy = 0;
		pthread_cond_broadcast(&l->cv);
		if (ret)
			break;
	}
	return l->error ? l->error : ret;
}

/*
 * Caller holds m: insert n bytes of records. With a log buffer's worth
 * waiting to be written, the committer writes them first (or waits for the
 * writer of the moment), as a PostgreSQL backend finding no free WAL buffer.
 */
static int append_locked(struct txn_log *l, uint64_t n)
{
	uint64_t max = l->c.rl.bufsize / 2 < TXN_MAX_REC ? l->c.rl.bufsize / 2 : TXN_MAX_REC;
	int ret = 0;

	while (n && !ret && !l->error) {
		uint64_t r = n < max ? n : max;

		while (!ret && !l->error && (l->qbytes + r > l->qmax || l->qcount == l->qcap))
			ret = write_turn(l);
		if (!ret && !l->error)
			insert_locked(l, (uint32_t)r);
		n -= r;
	}
	return ret;
}

/*
 * Caller holds m: InnoDB's log_free_check (MariaDB 10.11 log_check_margins,
 * buf_flush_wait_flushed) before n bytes of records go in: while they would
 * take the log further than max_checkpoint_age (ckpt_sync) past the last
 * completed checkpoint, the committer asks for a checkpoint at once (the
 * running one hurries, the next is not spread) and waits until one that
 * began at or after its request completes. So the log never overwrites
 * what a checkpoint has not made durable yet.
 */
static void free_check(struct txn_log *l, uint64_t n)
{
	int asked = 0;

	while (l->c.ckpt_sync && l->ck && !l->error &&
	       l->ins_lsn + n - l->ckpt_done > l->c.ckpt_sync) {
		if (!asked) {
			asked = 1;
			l->st.sync_stalls++;
			l->ckpt_from = l->ins_lsn;
			pg_ckpt_request(l->ck, "sync");
		}
		if (atomic_load(&l->ck->error_hint))	/* the checkpointer failed: no waiting */
			break;
		pthread_cond_wait(&l->cv, &l->m);
	}
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
	free_check(l, bytes);
	ret = append_locked(l, bytes);		/* one record: bytes fit the buffer */
	if (!ret && !l->error) {
		l->bg_pending += bg;
		l->nrec++;
		l->st.commits++;
		my = l->ins_lsn;
		if (l->c.ckpt_wal && l->ck && my - l->ckpt_from >= l->c.ckpt_wal) {
			/* max_wal_size: CheckPointSegments of WAL since the last one */
			l->ckpt_from = my;
			l->st.wal_ckpts++;
			pg_ckpt_request(l->ck, "wal");
		}
		if (l->c.rl.trx_commit == 1)
			ret = flush_upto(l, my);
		else if (l->c.rl.trx_commit == 2)
			ret = write_upto(l, my);
		/* the binlog's queue takes a transaction once its redo is where trx_commit wants it */
		if (!ret && !l->error && l->c.log_bin) {
			l->binlog_pending += binlog_bytes;
			l->binlog_queued += binlog_bytes;
			ret = binlog_upto(l, l->binlog_queued);
		}
	}
	ret = ret ? ret : l->error;
	pthread_mutex_unlock(&l->m);
	return ret;
}

/*
 * InnoDB's page cleaner before a batch (buf_flush_page_cleaner's
 * log_write_up_to of the batch's newest change, so no page reaches its table
 * ahead of its redo): the log written and made durable up to every record
 * inserted so far. The model's pages carry no LSN: the insert position stands
 * for the batch's newest change. 0 or the log's error (l->err).
 */
int txn_log_flush_all(struct txn_log *l)
{
	int ret = 0;

	pthread_mutex_lock(&l->m);
	if (l->ins_lsn > l->flushed_lsn && !l->error) {
		l->st.cleaner_flushes++;
		ret = flush_upto(l, l->ins_lsn);
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
		if (l->c.rl.trx_commit != 1 && l->ins_lsn > l->flushed_lsn && !l->error)
			flush_upto(l, l->ins_lsn);
	}
	pthread_mutex_unlock(&l->m);
	return NULL;
}

/*
 * The checkpointer's phases (pg_ckpt_conf.phase): a checkpoint's redo point
 * is the insert position as it begins; once it is done, postgres's
 * RemoveOldXlogFiles may recycle every segment before that point, and
 * InnoDB's commits stalled in free_check may go on.
 */
void txn_log_ckpt_phase(void *arg, int done)
{
	struct txn_log *l = arg;

	pthread_mutex_lock(&l->m);
	if (!done) {
		l->ckpt_redo = l->ins_lsn;
	} else if (l->c.postgres) {	/* rl is the write lock's */
		while (l->busy)
			pthread_cond_wait(&l->cv, &l->m);
		l->busy = 1;
		rl_log_freed(&l->rl, l->ckpt_redo);
		disown(l);
	} else {
		l->ckpt_done = l->ckpt_redo;
		pthread_cond_broadcast(&l->cv);
	}
	pthread_mutex_unlock(&l->m);
}

/*
 * The files an earlier run rotated to and kept (claimed in the marker, so
 * dbfio's own): removed, as the run starts again at binlog.000001 and keeps
 * at most TXN_BINLOG_KEEP of its own.
 */
static int binlog_leftovers(struct txn_log *l, char *why, size_t len)
{
	char (*names)[32] = calloc(l->bown.nclaims + 1, sizeof(*names));
	unsigned int i, n = 0;
	int ret = 0;

	if (!names) {
		snprintf(why, len, "binlog: out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < l->bown.nclaims; i++) {
		const char *c = l->bown.claims[i];
		unsigned long long no;
		int end = 0;

		if (strlen(c) == 13 && strspn(c + 7, "0123456789") == 6 &&
		    sscanf(c, "binlog.%6llu%n", &no, &end) == 1 && end == 13 && no > 1)
			snprintf(names[n++], sizeof(*names), "%s", c);
	}
	for (i = 0; i < n && !ret; i++) {
		ret = store_unlink(l->bs, names[i]);
		if (ret == -ENOENT)
			ret = 0;
		if (ret)
			call_failed(ret, "unlink", names[i], why, len);
		else if ((ret = owner_drop(&l->bown, names[i])))
			snprintf(why, len, "%s", l->bown.err);
	}
	free(names);
	return ret;
}

int txn_log_open_binlog(struct txn_log *l, const struct store_config *sc)
{
	char why[sizeof(l->err)];
	int ret;

	why[0] = 0;
	ret = store_init(&l->bs, sc, why, sizeof(why));
	if (!ret) {
		ret = owner_init(&l->bown, l->bs);
		if (ret)
			snprintf(why, sizeof(why), "%s", l->bown.err);
		else
			l->bown_on = 1;
	}
	if (!ret)
		ret = binlog_leftovers(l, why, sizeof(why));
	/* both names claimed by txn_db.c before: O_TRUNC only ever empties dbfio's own */
	if (!ret) {
		ret = store_open(l->bs, TXN_BINLOG_INDEX, O_RDWR | O_CREAT | O_TRUNC, 0640,
				 BINLOG_INDEX_MAX, &l->bindex);
		if (ret)
			call_failed(ret, "open", TXN_BINLOG_INDEX, why, sizeof(why));
	}
	l->binlog_no = l->binlog_first = 1;
	if (!ret)
		ret = binlog_create(l, 1, &l->binlog, why, sizeof(why));
	l->binlog_off = BINLOG_HDR;
	if (ret)
		snprintf(l->err, sizeof(l->err), "%s", why);
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
	l->qmax = c->rl.bufsize;
	l->qcap = (unsigned int)(l->qmax / (RL_REC_HDR + 8)) + 2;
	l->q = calloc(l->qcap, sizeof(*l->q));
	if (!l->q) {
		snprintf(l->err, sizeof(l->err), "log queue of %u records: out of memory", l->qcap);
		return -ENOMEM;
	}
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
	l->rl.linked = 0;	/* the write and the flush are separate calls */
	l->ins_lsn = l->written_lsn = l->flushed_lsn = l->rl.lsn;
	l->ckpt_redo = l->ckpt_done = l->rl.lsn;
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
		if (l->ins_lsn > l->flushed_lsn && !l->error)	/* clean shutdown */
			flush_upto(l, l->ins_lsn);
		pthread_mutex_unlock(&l->m);
		rl_log_ack(&l->rl, l->rl.lsn);
		rl_log_close(&l->rl);
		l->rl_open = 0;
	}
	if (l->binlog)
		store_close(l->bs, l->binlog);
	l->binlog = NULL;
	if (l->bindex)
		store_close(l->bs, l->bindex);
	l->bindex = NULL;
	if (l->bown_on)
		owner_exit(&l->bown);
	l->bown_on = 0;
	if (l->bs)
		store_exit(l->bs);
	l->bs = NULL;
	free(l->q);
	l->q = NULL;
	if (l->trace)
		fclose(l->trace);
	l->trace = NULL;
	pthread_mutex_destroy(&l->m);
	pthread_cond_destroy(&l->cv);
}
