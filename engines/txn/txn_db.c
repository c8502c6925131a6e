/*
 * txn_db.c - the txn engine's databases: one per store + directory + prefix,
 * process-wide (fio runs the engine's jobs as threads of one process, so the
 * connections of a database find it here). The first connection creates it:
 * the tables' segment files (loaded, as pgbench -i or sysbench prepare would),
 * the log, the buffer pool and the checkpointer; the last one closes it and
 * prints its summary. No fio headers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "txn.h"

#define LOAD_CHUNK	(1u << 20)

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct txn_db *reg;

uint64_t txn_db_gpage(const struct txn_db *db, unsigned int table, uint64_t page)
{
	return (uint64_t)table * db->g.max_pages + page;
}

static void geometry(struct txn_db *db)
{
	const struct txn_profile *p = &db->c.prof;
	struct pg_geom *g = &db->g;
	unsigned int i;

	g->bs = db->c.page_size;
	g->max_pages = 1;
	for (i = 0; i < p->ntables; i++)
		if (p->t[i].pages > g->max_pages)
			g->max_pages = p->t[i].pages;
	g->rel_pages = g->max_pages;
	/* PostgreSQL: 1 GB segments; InnoDB: one .ibd file per table */
	g->pages_per_seg = db->c.log.postgres ? (1ull << 30) / g->bs : g->max_pages;
	g->segs_per_rel = (g->max_pages + g->pages_per_seg - 1) / g->pages_per_seg;
	g->relations = p->ntables;
	g->relfilenode = 16384;		/* PostgreSQL's first user relfilenode */
	g->nsegs = g->relations * g->segs_per_rel;
}

/* Write a loaded table's segments (unless already that long) and fsync them. */
static int load_table(struct txn_db *db, unsigned int t, void *zero, char *err, size_t errlen)
{
	const struct pg_geom *g = &db->g;
	uint64_t bytes = db->c.prof.t[t].pages * g->bs, off, seg_bytes, have, n;
	struct store_file *f;
	unsigned int s, idx;
	char name[64];
	ssize_t r;
	int ret;

	for (s = 0; s * g->pages_per_seg * g->bs < bytes; s++) {
		idx = pg_seg_index(g, t, s);
		pg_seg_name(g, idx, name, sizeof(name));
		seg_bytes = bytes - s * g->pages_per_seg * g->bs;
		if (seg_bytes > g->pages_per_seg * g->bs)
			seg_bytes = g->pages_per_seg * g->bs;
		ret = store_open(db->s, name, O_RDWR | O_CREAT, 0600, pg_seg_bytes(g, idx), &f);
		if (ret)
			goto fail;
		have = 0;
		if (store_size(db->s, f, &have))
			have = 0;
		for (off = have; off < seg_bytes; off += n) {
			n = seg_bytes - off < LOAD_CHUNK ? seg_bytes - off : LOAD_CHUNK;
			r = store_pwrite(db->s, f, zero, n, off);
			if (r < 0) {
				ret = (int)r;
				store_close(db->s, f);
				goto fail;
			}
		}
		ret = have < seg_bytes ? store_fsync(db->s, f) : 0;
		store_close(db->s, f);
		if (ret)
			goto fail;
	}
	return 0;
fail:
	snprintf(err, errlen, "loading %s (%s) failed: %s", db->c.prof.t[t].name, name,
		 strerror(-ret));
	return ret;
}

static int load(struct txn_db *db, char *err, size_t errlen)
{
	unsigned int t;
	void *zero;
	int ret = 0;

	if (posix_memalign(&zero, 4096, LOAD_CHUNK))
		return -ENOMEM;
	memset(zero, 0, LOAD_CHUNK);
	for (t = 0; t < db->c.prof.ntables && !ret; t++)
		if (!db->c.prof.t[t].append)
			ret = load_table(db, t, zero, err, errlen);
	free(zero);
	return ret;
}

/*
 * postgres: an appended table (pgbench_history) goes on at the end of its
 * file, as PostgreSQL's keeps growing from run to run: its row counter starts
 * after the pages already there (wrapped at the table's capacity).
 */
static int append_from_end(struct txn_db *db, char *err, size_t errlen)
{
	struct txn_io io;
	uint64_t size;
	unsigned int t;
	int ret = 0;

	if (txn_io_init(&io, db->s, &db->g))
		return -ENOMEM;
	for (t = 0; t < db->c.prof.ntables && !ret; t++) {
		const struct txn_table *tb = &db->c.prof.t[t];

		if (!tb->append)
			continue;
		ret = txn_io_size(&io, txn_db_gpage(db, t, 0), &size);
		if (!ret)
			atomic_store(&db->append_rows[t],
				     size / db->g.bs % tb->pages * tb->rows_per_page);
	}
	if (ret)
		snprintf(err, errlen, "%s", io.err);
	txn_io_free(&io);
	return ret;
}

static uint64_t ckpt_gpage(const struct txn_db *db, unsigned int idx, uint64_t page)
{
	const struct pg_geom *g = &db->g;

	return (uint64_t)(idx / g->segs_per_rel) * g->max_pages +
	       (idx % g->segs_per_rel) * g->pages_per_seg + page;
}

static void ckpt_writing(void *arg, unsigned int idx, uint64_t page)
{
	struct txn_db *db = arg;

	txn_pool_writing(&db->pool, ckpt_gpage(db, idx, page));
}

static void ckpt_written(void *arg, unsigned int idx, uint64_t page)
{
	struct txn_db *db = arg;

	txn_pool_cleaned(&db->pool, ckpt_gpage(db, idx, page));
}

int txn_db_ckpt_error(struct txn_db *db, const char **msg)
{
	if (atomic_load(&db->cl.error)) {	/* set after its line (txn_cleaner.c) */
		*msg = db->cl.err;
		return atomic_load(&db->cl.error);
	}
	if (atomic_load(&db->pu.error)) {	/* the same (txn_purge.c) */
		*msg = db->pu.err;
		return atomic_load(&db->pu.error);
	}
	/* error and errmsg are set once, before error_hint (pgpage_ckpt.c: set_error) */
	if (!db->ck || !atomic_load(&db->ck->error_hint))
		return 0;
	*msg = db->ck->errmsg;
	return db->ck->error;
}

/* pg_prewarm: read the tables' first pages in order until the pool is full. */
static int prewarm(struct txn_db *db, char *err, size_t errlen)
{
	struct txn_io io;
	unsigned int t;
	uint64_t pg;
	int ret = 0;

	if (txn_io_init(&io, db->s, &db->g))
		return -ENOMEM;
	for (t = 0; t < db->c.prof.ntables && !ret; t++)
		for (pg = 0; pg < db->c.prof.t[t].pages && !db->c.prof.t[t].append && !ret &&
		     db->pool.used < db->pool.nframes; pg++)
			ret = txn_pool_access(&db->pool, &io, txn_db_gpage(db, t, pg), 0, 0, NULL);
	if (ret < 0)
		snprintf(err, errlen, "prewarm: %s", io.err);
	txn_io_free(&io);
	memset(&db->pool.st, 0, sizeof(db->pool.st));
	return ret < 0 ? ret : 0;
}

/*
 * InnoDB with innodb_flush_method=O_DIRECT (MariaDB 10.11's default) opens
 * its data files O_DIRECT, and buffered where the file system refuses it
 * (tmpfs: EINVAL), as os_file_set_nocache falls back: asked once, of the
 * first table's file.
 */
static void direct_probe(struct txn_db *db)
{
	struct store_file *f;
	char name[64];

	if (!db->c.data_direct)
		return;
	pg_seg_name(&db->g, 0, name, sizeof(name));
	if (store_open(db->s, name, O_RDWR | O_CREAT | O_DIRECT, 0600, pg_seg_bytes(&db->g, 0), &f))
		db->c.data_direct = 0;
	else
		store_close(db->s, f);
}

/* InnoDB's doublewrite file: MySQL 8.0.20+ its own file, MariaDB an area of ibdata1. */
const char *txn_db_dw_name(const struct txn_db *db)
{
	return db->c.log.rl.g.flavor == RL_MARIADB ? "ibdata1" : "#ib_16384_0.dblwr";
}

static int claim_name(struct owner *o, const char *name, unsigned int pass,
		      const struct owner **failed)
{
	int ret = pass ? owner_claim(o, name, 0) : owner_check(o, name);

	if (ret)
		*failed = o;
	return ret;
}

/*
 * The tables' segment files, the doublewrite file and the binlog carry a real
 * database's names: claim them as redolog and pgpage claim theirs (owner.h).
 * Pass 0 checks every name, and runs before redolog checks the log's; pass 1
 * claims them (made durable), after the log's check and before any of them is
 * created. So a directory holding one of a database's own files is refused
 * before anything in it is created, truncated or written.
 */
static int claim(struct txn_db *db, unsigned int pass, char *err, size_t errlen)
{
	struct owner *o = &db->own, *lo = db->ws ? &db->wown : &db->own;
	const struct owner *failed = o;
	const struct pg_geom *g = &db->g;
	char name[64], line[72];
	unsigned int r, k;
	int ret = 0;

	if (!pass) {
		db->own_ok = 1;
		ret = owner_init(o, db->s);
		if (!ret && db->ws && (ret = owner_init(lo, db->ws)))
			failed = lo;
	}
	for (r = 0; !ret && r < g->relations; r++) {	/* as pgpage: "<relfilenode>.*" */
		pg_seg_name(g, pg_seg_index(g, r, 0), name, sizeof(name));
		snprintf(line, sizeof(line), "%s.*", name);
		for (k = 0; !ret && !pass && k < g->segs_per_rel; k++) {
			pg_seg_name(g, pg_seg_index(g, r, k), name, sizeof(name));
			ret = owner_check(o, name);
		}
		if (pass)
			ret = owner_claim_set(o, line, NULL, 0, 0);
	}
	if (!ret && db->c.dblwr)
		ret = claim_name(o, txn_db_dw_name(db), pass, &failed);
	if (!ret && db->c.log.log_bin)
		ret = claim_name(lo, TXN_BINLOG, pass, &failed);
	if (!ret && db->c.log.log_bin)
		ret = claim_name(lo, TXN_BINLOG_INDEX, pass, &failed);
	if (!ret && pass && (ret = owner_sync(o)))
		failed = o;
	if (!ret && pass && lo != o && (ret = owner_sync(lo)))
		failed = lo;
	if (ret)
		snprintf(err, errlen, "%s", failed->err);
	return ret;
}

static int db_open(struct txn_db *db, char *err, size_t errlen)
{
	struct pg_ckpt_conf cc = db->c.ckpt;
	struct store_config sc;
	uint64_t nframes = db->c.pool_bytes / db->c.page_size;
	int ret;

	geometry(db);
	if (txn_locks_init(&db->locks)) {
		snprintf(err, errlen, "row locks: out of memory");
		return -ENOMEM;
	}
	ret = store_init(&db->s, &db->c.store, err, errlen);
	if (ret)
		return ret;
	if (db->c.waldir[0]) {
		struct store_config wc = db->c.store;

		wc.root = db->c.waldir;
		ret = store_init(&db->ws, &wc, err, errlen);
		if (ret)
			return ret;
	}
	/* every name checked (ours, then the log's) before any file is created */
	ret = claim(db, 0, err, errlen);
	if (ret)
		return ret;
	ret = txn_log_open(&db->log, db->ws ? db->ws : db->s, &db->c.log);
	if (!ret && (ret = claim(db, 1, err, errlen)))
		return ret;
	if (!ret && db->c.log.log_bin) {
		struct store_config bc = db->c.store;	/* the binlog goes with the log */

		if (db->c.waldir[0])
			bc.root = db->c.waldir;
		ret = txn_log_open_binlog(&db->log, &bc);
	}
	if (ret) {
		/* a sidecar's line (option=path: ...) as it is; the log's own prefixed */
		snprintf(err, errlen, "%s%s", strncmp(db->log.err, "txn_group_trace=", 16) ?
			 "log: " : "", db->log.err);
		return ret;
	}
	if (db->c.prefill && (ret = load(db, err, errlen)))
		return ret;
	if (db->c.log.postgres && (ret = append_from_end(db, err, errlen)))
		return ret;
	if (txn_pool_init(&db->pool, (uint32_t)nframes, &db->g, db->c.fpw)) {
		snprintf(err, errlen, "buffer pool of %llu pages: out of memory",
			 (unsigned long long)nframes);
		return -ENOMEM;
	}
	cc.writing = ckpt_writing;
	cc.written = ckpt_written;
	cc.written_arg = db;
	/* a completed checkpoint frees WAL segments (postgres), lets stalled commits go (InnoDB) */
	cc.phase = txn_log_ckpt_phase;
	cc.phase_arg = &db->log;
	cc.no_reread = 1;	/* the databases write from the buffer */
	cc.dblwr_name = db->c.dblwr ? txn_db_dw_name(db) : NULL;
	cc.dblwr_sync = db->c.dblwr;
	direct_probe(db);
	sc = db->c.store;
	sc.direct |= db->c.data_direct;	/* the checkpointer opens only tables and doublewrite */
	ret = pg_ckpt_start(&db->ck, &db->g, &cc, &sc, err, errlen);
	if (ret)
		return ret;
	db->pool.ck = db->ck;
	if (!db->c.log.postgres)
		db->pool.free_target = db->c.lru_depth;
	if (!db->c.log.postgres &&
	    (ret = txn_cleaner_start(&db->cl, &db->pool, &db->log, &db->c.store, &db->g, db->c.dblwr,
				     txn_db_dw_name(db), db->c.data_direct, err, errlen)))
		return ret;
	if (!db->c.log.postgres && db->c.purge) {
		struct txn_purge_cfg pc = {
			.store = &db->c.store, .g = &db->g, .threads = db->c.purge_threads,
			.batch = db->c.purge_batch, .dblwr = db->c.dblwr,
			.direct = db->c.data_direct, .dw_name = txn_db_dw_name(db),
		};

		ret = txn_purge_start(&db->pu, &db->pool, &pc, err, errlen);
		if (ret)
			return ret;
	}
	db->log.ck = db->ck;
	if (db->c.cpu_ws_shared && !(db->cpu_set = dbtime_ws_alloc(db->c.cpu_ws))) {
		snprintf(err, errlen, "cpu_working_set=%llu: out of memory",
			 (unsigned long long)db->c.cpu_ws);
		return -ENOMEM;
	}
	ret = txn_bgcpu_start(&db->bg, db->c.bg_cpu_ns);
	if (ret) {
		snprintf(err, errlen, "background_cpu: cannot start its thread: %s", strerror(-ret));
		return ret;
	}
	return db->c.prewarm ? prewarm(db, err, errlen) : 0;
}

static void db_close(struct txn_db *db)
{
	txn_purge_stop(&db->pu);	/* before the cleaner: its misses wake it */
	txn_bgcpu_stop(&db->bg);
	dbtime_ws_free(db->cpu_set);	/* the connections have left it */
	db->cpu_set = NULL;
	txn_cleaner_stop(&db->cl);	/* before the checkpointer: it leaves its guards */
	/* the checkpointer first: its phase callback takes the log's mutex */
	db->log.ck = NULL;
	if (db->ck) {
		pg_ckpt_stop(db->ck, 0);
		db->ck_stats[0] = db->ck->checkpoints;
		db->ck_stats[1] = db->ck->written;
		db->ck_stats[2] = db->ck->fsyncs;
		db->pool.ck = NULL;
		pg_ckpt_free(db->ck);
		db->ck = NULL;
	}
	txn_log_close(&db->log);
	txn_pool_free(&db->pool);
	if (db->ws)
		store_exit(db->ws);
	db->ws = NULL;
	txn_locks_free(&db->locks);
	if (db->own_ok) {
		owner_exit(&db->own);
		owner_exit(&db->wown);
	}
	db->own_ok = 0;
	if (db->s)
		store_exit(db->s);
	db->s = NULL;
}

/* The option in which two jobs naming one database differ first; NULL: none. */
static const char *cfg_diff(const struct txn_db_cfg *a, const struct txn_db_cfg *b)
{
	const struct txn_log_cfg *x = &a->log, *y = &b->log;
	int pg = x->postgres;

	if (x->rl.g.flavor != y->rl.g.flavor)
		return "flavor";
	if (a->prof.id != b->prof.id)
		return "txn_profile";
	if (a->prof.t[0].rows != b->prof.t[0].rows)
		return a->prof.id == TP_TPCB ? "scale" : "table_size";
	if (a->pool_bytes != b->pool_bytes)
		return pg ? "shared_buffers" : "innodb_buffer_pool_size";
	if (a->prof.log_bytes != b->prof.log_bytes)
		return "txn_log_bytes";
	if (strcmp(a->waldir, b->waldir))
		return "waldir";
	if (x->rl.trx_commit != y->rl.trx_commit)
		return "innodb_flush_log_at_trx_commit";
	if (x->rl.flush != y->rl.flush || x->rl.open_flags != y->rl.open_flags)
		return pg ? "wal_sync_method" : "innodb_flush_method";
	if (x->rl.g.file_size != y->rl.g.file_size || x->rl.g.nfiles != y->rl.g.nfiles)
		return pg ? "wal_segment_size or wal_segments" : "innodb_log_file_size";
	if (x->ckpt_wal != y->ckpt_wal)
		return "max_wal_size";
	if (pg && (x->rl.wal_init_zero != y->rl.wal_init_zero ||
		   x->rl.wal_recycle != y->rl.wal_recycle))
		return "wal_init_zero or wal_recycle";
	if (x->commit_delay_ns != y->commit_delay_ns || x->commit_siblings != y->commit_siblings)
		return "commit_delay or commit_siblings";
	if (x->bg_share != y->bg_share)
		return "background_log_share";
	if (x->log_bin != y->log_bin || x->sync_binlog != y->sync_binlog ||
	    x->max_binlog != y->max_binlog)
		return "log_bin, sync_binlog or max_binlog_size";
	if (a->fpw != b->fpw)
		return "full_page_writes";
	if (a->dblwr != b->dblwr)
		return "innodb_doublewrite";
	if (a->row_locks != b->row_locks)
		return "row_locks";
	if (a->purge != b->purge)
		return "purge";
	if (a->lru_depth != b->lru_depth)
		return "innodb_lru_scan_depth";
	if (a->purge_threads != b->purge_threads)
		return "innodb_purge_threads";
	if (a->purge_batch != b->purge_batch)
		return "innodb_purge_batch_size";
	if (a->cpu_ws_shared != b->cpu_ws_shared || (a->cpu_ws_shared && a->cpu_ws != b->cpu_ws))
		return "cpu_working_set or cpu_working_set_shared";
	if (a->bg_cpu_ns != b->bg_cpu_ns)
		return "background_cpu";
	if (a->cpu.ref.factor != b->cpu.ref.factor)
		return "cpu_ref or cpu_scale";
	if (a->ckpt.timeout_ns != b->ckpt.timeout_ns)
		return "checkpoint_timeout";
	if (x->flush_wait_ns != y->flush_wait_ns)
		return "flush_wait or debug_flush_delay";
	return NULL;
}

struct txn_db *txn_db_attach(const struct txn_db_cfg *c, char *err, size_t errlen, int *errp)
{
	struct txn_db *db;
	int ret;

	pthread_mutex_lock(&reg_lock);
	for (db = reg; db; db = db->next)
		if (!strcmp(db->c.key, c->key))
			break;
	if (db) {
		const char *opt = cfg_diff(&db->c, c);

		if (opt) {
			snprintf(err, errlen, "database %s is already open by another job with another "
				 "%s: the jobs of one store and directory are the connections of one "
				 "database; give this job its own directory", c->key, opt);
			*errp = -EINVAL;
			db = NULL;
		} else {
			db->refs++;
		}
		pthread_mutex_unlock(&reg_lock);
		return db;
	}
	db = calloc(1, sizeof(*db));
	if (!db) {
		snprintf(err, errlen, "out of memory");
		*errp = -ENOMEM;
		pthread_mutex_unlock(&reg_lock);
		return NULL;
	}
	db->c = *c;
	snprintf(db->store_root, sizeof(db->store_root), "%s", c->store.root ? c->store.root : ".");
	db->c.store.root = db->store_root;
	if ((ret = db_open(db, err, errlen))) {
		*errp = ret < 0 ? ret : -EIO;
		db_close(db);
		free(db);
		pthread_mutex_unlock(&reg_lock);
		return NULL;
	}
	db->refs = 1;
	db->next = reg;
	reg = db;
	pthread_mutex_unlock(&reg_lock);
	return db;
}

static void summary(struct txn_db *db, FILE *f)
{
	const struct txn_pool_stats *ps = &db->pool.st;
	const struct txn_log_stats *ls = &db->log.st;
	uint64_t acc = ps->hits + ps->misses;

	fprintf(f, "txn: database %s: profile=%s flavor=%s commits=%llu flushes=%llu "
		"avg_group=%.2f max_group=%llu groups[1,2,3-4,5-8,9-16,17-32,33-64,65-128,>128]="
		"%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu commit_delays=%llu binlog_syncs=%llu binlog_rotations=%llu binlog_purges=%llu "
		"bg_batches=%llu bg_bytes=%llu background_cpu_ms=%.3f background_cpu_left_ms=%.3f pool_pages=%u hits=%llu misses=%llu hit_ratio=%.4f reads=%llu evict_writes=%llu dblwr_writes=%llu "
		"cleaner_batches=%llu cleaner_pages=%llu lru_freed=%llu fpis=%llu checkpoints=%llu wal_checkpoint_requests=%llu sync_stalls=%llu cleaner_log_flushes=%llu ckpt_written=%llu ckpt_fsyncs=%llu "
		"log_files_recycled=%llu wal_segments_created=%llu wal_segments_removed=%llu "
		"row_locks=%llu lock_waits=%llu lock_wait_ms=%.1f purge_batches=%llu purge_pages=%llu "
		"purge_dropped=%llu purge_left=%llu\n",
		db->c.key, db->c.prof.name, rl_flavor_name(db->c.log.rl.g.flavor),
		(unsigned long long)ls->commits, (unsigned long long)ls->flushes,
		ls->flushes ? (double)ls->commits / ls->flushes : 0.0,
		(unsigned long long)ls->max_group,
		(unsigned long long)ls->hist[0], (unsigned long long)ls->hist[1],
		(unsigned long long)ls->hist[2], (unsigned long long)ls->hist[3],
		(unsigned long long)ls->hist[4], (unsigned long long)ls->hist[5],
		(unsigned long long)ls->hist[6], (unsigned long long)ls->hist[7],
		(unsigned long long)ls->hist[8], (unsigned long long)ls->delays,
		(unsigned long long)ls->binlog_syncs, (unsigned long long)ls->binlog_rotations,
		(unsigned long long)ls->binlog_purges,
		(unsigned long long)ls->bg_batches, (unsigned long long)ls->bg_bytes,
		db->bg.dt.cpu_ns / 1e6, db->bg.left_ns / 1e6, db->pool.nframes,
		(unsigned long long)ps->hits, (unsigned long long)ps->misses,
		acc ? (double)ps->hits / acc : 0.0, (unsigned long long)ps->reads,
		(unsigned long long)ps->evict_writes, (unsigned long long)ps->dblwr_writes,
		(unsigned long long)ps->cleaner_batches, (unsigned long long)ps->cleaner_pages,
		(unsigned long long)ps->freed, (unsigned long long)ps->fpis,
		(unsigned long long)db->ck_stats[0], (unsigned long long)ls->wal_ckpts,
		(unsigned long long)ls->sync_stalls, (unsigned long long)ls->cleaner_flushes,
		(unsigned long long)db->ck_stats[1],
		(unsigned long long)db->ck_stats[2], (unsigned long long)db->log.rl.st.recycles,
		(unsigned long long)db->log.rl.st.creates, (unsigned long long)db->log.rl.st.removes,
		(unsigned long long)db->locks.st.locks,
		(unsigned long long)db->locks.st.waits, db->locks.st.wait_ns / 1e6,
		(unsigned long long)db->pu.batches, (unsigned long long)db->pu.pages,
		(unsigned long long)db->pu.dropped,
		(unsigned long long)db->pu.left);
}

int txn_db_detach(struct txn_db *db, FILE *f, const struct txn_sum *mine,
		  struct txn_sum **sum, struct txn_sum_info *info)
{
	struct txn_db **pp;
	int last;

	pthread_mutex_lock(&reg_lock);
	if (mine)
		txn_sum_merge(&db->sum, mine);
	last = --db->refs == 0;
	if (last) {
		for (pp = &reg; *pp != db; pp = &(*pp)->next)
			;
		*pp = db->next;
	}
	pthread_mutex_unlock(&reg_lock);
	if (!last)
		return 0;
	db_close(db);	/* the log's last flush first: the summary counts it */
	summary(db, f);
	*sum = malloc(sizeof(**sum) + 4 * 512);
	if (*sum) {
		char *txt = (char *)(*sum + 1);

		**sum = db->sum;
		snprintf(txt, 512, "%s", db->c.key);
		snprintf(txt + 512, 512, "%s", db->c.prof.name);
		snprintf(txt + 1024, 512, "%s", db->c.calibration);
		snprintf(txt + 1536, 512, "%s", db->c.timing);
		*info = (struct txn_sum_info){
			.db = txt, .profile = txt + 512, .calibration = txt + 1024, .timing = txt + 1536,
			.flavor = rl_flavor_name(db->c.log.rl.g.flavor), .cpu = db->c.cpu,
			.commits = db->log.st.commits, .flushes = db->log.st.flushes,
		};
	}
	free(db);
	return 1;
}
