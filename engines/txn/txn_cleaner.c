/*
 * txn_cleaner.c - InnoDB's page cleaner, for the txn engine's mysql/mariadb
 * flavors: one thread of the database that writes the dirty pages the clock
 * sweep is about to reach, so a connection's miss finds a clean victim
 * instead of writing one itself (txn_pool.c).
 *
 * A batch is MariaDB 10.11's LRU flush through its doublewrite buffer
 * (buf_flush_LRU, buf_dblwr_t::flush_buffered_writes): up to PG_DBLWR_BATCH
 * dirty pages with no recent use near the clock hand go to the doublewrite
 * file in one write, which is synced (mysql fsync, mariadb fdatasync); then
 * each page goes to its table, and each table file written is synced, so the
 * doublewrite area may be reused. With innodb_doublewrite=0 the pages are
 * written alone and synced by the next checkpoint. The thread sleeps when
 * no such page is left, until a miss passes over a dirty victim (or a
 * second). Before each batch the redo log is written and synced up to
 * every record inserted (txn_log_flush_all: MariaDB's log_write_up_to of
 * the batch's newest page LSN). A write that fails stops the cleaner with one line (the
 * connections fail with it, txn_db_ckpt_error); its pages stay dirty.
 * Contents are not modelled: zeros. No fio headers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "txn.h"

#define CLEANER_TICK_NS	1000000000ull	/* the page cleaner's one-second loop */

static void fail(struct txn_cleaner *c, int err, const char *what)
{
	if (atomic_load(&c->error))
		return;
	snprintf(c->err, sizeof(c->err), "page cleaner: %s", what);
	atomic_store(&c->error, err);
}

static unsigned int seg_idx(const struct pg_geom *g, uint64_t gpage)
{
	uint64_t in = gpage % g->max_pages;

	return pg_seg_index(g, gpage / g->max_pages, in / g->pages_per_seg);
}

/* One batch: doublewrite, sync, the pages, the files' syncs. 0 or -errno. */
static int flush_batch(struct txn_cleaner *c, uint32_t n, int dblwr, const char *dw_name,
		       struct store_file **dw, uint8_t *touched)
{
	const struct pg_geom *g = c->io.g;
	struct pg_ckpt *ck = c->p->ck;
	char what[300];
	uint32_t i;
	ssize_t r;
	int ret = 0;

	if (dblwr) {
		if (!*dw && (ret = store_open(c->s, dw_name, O_RDWR | O_CREAT |
					      (c->io.direct ? O_DIRECT : 0), 0640,
					      PG_DBLWR_BATCH * g->bs, dw))) {
			snprintf(what, sizeof(what), "open(%s) failed: %s", dw_name, strerror(-ret));
			goto out;
		}
		r = store_pwrite(c->s, *dw, c->dwbuf, n * g->bs, 0);
		ret = r < 0 ? (int)r : dblwr == 2 ? store_fdatasync(c->s, *dw) : store_fsync(c->s, *dw);
		if (ret) {
			snprintf(what, sizeof(what), "doublewrite %s(%s) failed: %s",
				 r < 0 ? "pwrite" : dblwr == 2 ? "fdatasync" : "fsync", dw_name,
				 strerror(-ret));
			goto out;
		}
	}
	memset(touched, 0, g->nsegs);
	for (i = 0; i < n; i++) {
		if (!ret && (ret = txn_io_page(&c->io, c->pages[i], 1)))
			snprintf(what, sizeof(what), "%s", c->io.err);
		touched[seg_idx(g, c->pages[i])] = 1;
		if (ck)
			pg_guard_exit(ck, c->pages[i]);
	}
	for (i = 0; !ret && dblwr && i < g->nsegs; i++) {
		if (!touched[i])
			continue;
		ret = dblwr == 2 ? store_fdatasync(c->s, c->io.files[i]) :
			store_fsync(c->s, c->io.files[i]);
		if (ret) {
			char name[64];

			pg_seg_name(g, i, name, sizeof(name));
			snprintf(what, sizeof(what), "%s(%s) failed: %s",
				 dblwr == 2 ? "fdatasync" : "fsync", name, strerror(-ret));
		}
	}
out:
	if (ret)
		fail(c, ret, what);
	return ret;
}

struct cleaner_arg {
	struct txn_cleaner *c;
	int dblwr;
	const char *dw_name;
};

static void *cleaner_main(void *arg)
{
	struct cleaner_arg *a = arg;
	struct txn_cleaner *c = a->c;
	struct txn_pool *p = c->p;
	struct store_file *dw = NULL;
	uint8_t *touched = calloc(c->io.g->nsegs, 1);
	struct timespec ts;
	uint32_t n;
	int ret, after_batch = 0;

	pthread_mutex_lock(&p->m);
	while (!c->stop && touched && !atomic_load(&c->error)) {
		/*
		 * with a free list, as MariaDB 10.11's page cleaner: after a batch
		 * the next one at once only while the free list is short
		 * (need_LRU_eviction) or the last one filled a doublewrite batch
		 * (one LRU batch writes up to innodb_io_capacity_max pages), else
		 * after a wake-up or the second
		 */
		n = 0;
		if (!after_batch || !p->free_target || txn_pool_need_eviction(p) || p->cl_wake)
			n = txn_pool_lru_batch(p, c->pages, PG_DBLWR_BATCH);
		after_batch = 0;
		if (!n) {
			if (!p->cl_wake) {
				clock_gettime(CLOCK_REALTIME, &ts);
				ts.tv_sec += CLEANER_TICK_NS / 1000000000ull;
				pthread_cond_timedwait(&p->cl_cv, &p->m, &ts);
			}
			p->cl_wake = 0;
			continue;
		}
		pthread_mutex_unlock(&p->m);
		/* the redo first: no page of the batch goes out ahead of its log */
		ret = c->log ? txn_log_flush_all(c->log) : 0;
		if (ret) {
			char what[300];

			snprintf(what, sizeof(what), "the log before a batch: %.270s", c->log->err);
			fail(c, ret, what);
		} else {
			ret = flush_batch(c, n, a->dblwr, a->dw_name, &dw, touched);
		}
		pthread_mutex_lock(&p->m);
		txn_pool_batch_done(p, c->pages, n, ret != 0);
		after_batch = n < PG_DBLWR_BATCH;
	}
	pthread_mutex_unlock(&p->m);
	if (!touched)
		fail(c, -ENOMEM, "out of memory");
	if (dw)
		store_close(c->s, dw);
	free(touched);
	free(a);
	return NULL;
}

int txn_cleaner_start(struct txn_cleaner *c, struct txn_pool *p, struct txn_log *log,
		      const struct store_config *cfg, const struct pg_geom *g, int dblwr,
		      const char *dw_name, int direct, char *err, size_t errlen)
{
	struct cleaner_arg *a;
	int ret;

	memset(c, 0, sizeof(*c));
	c->p = p;
	c->log = log;
	ret = store_init(&c->s, cfg, err, errlen);
	if (ret)
		return ret;
	a = malloc(sizeof(*a));
	c->pages = malloc(PG_DBLWR_BATCH * sizeof(*c->pages));
	if (!a || !c->pages || txn_io_init(&c->io, c->s, g) ||
	    posix_memalign(&c->dwbuf, 4096, PG_DBLWR_BATCH * g->bs)) {
		free(a);
		snprintf(err, errlen, "page cleaner: out of memory");
		return -ENOMEM;
	}
	memset(c->dwbuf, 0, PG_DBLWR_BATCH * g->bs);
	c->io.direct = direct;
	*a = (struct cleaner_arg){ .c = c, .dblwr = dblwr, .dw_name = dw_name };
	ret = -pthread_create(&c->th, NULL, cleaner_main, a);
	if (ret) {
		free(a);
		snprintf(err, errlen, "page cleaner: cannot start its thread: %s", strerror(-ret));
		return ret;
	}
	c->started = 1;
	p->cleaner = 1;
	return 0;
}

void txn_cleaner_stop(struct txn_cleaner *c)
{
	if (c->started) {
		pthread_mutex_lock(&c->p->m);
		c->stop = 1;
		c->p->cleaner = 0;	/* connections left write their own victims */
		pthread_cond_signal(&c->p->cl_cv);
		pthread_mutex_unlock(&c->p->m);
		pthread_join(c->th, NULL);
		c->started = 0;
	}
	if (c->io.g)
		txn_io_free(&c->io);
	c->io.g = NULL;
	free(c->pages);
	free(c->dwbuf);
	c->pages = NULL;
	c->dwbuf = NULL;
	if (c->s)
		store_exit(c->s);
	c->s = NULL;
}
