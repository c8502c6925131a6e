/*
 * txn_purge.c - InnoDB's purge (purge=1): after a transaction commits, the
 * purge threads go back to the records it changed, off the connections'
 * path. MariaDB 10.3+ resets DB_TRX_ID of each clustered-index record once
 * its history is purged (row_purge_reset_trx_id) and removes the secondary
 * index entries an UPDATE of the key or a DELETE left delete-marked
 * (row_purge_remove_sec_if_poss): a second access to each such page, which
 * dirties it, long after the transaction - with a pool smaller than the data
 * a read, then a page write more. Real MariaDB 10.11 with a 32 MB pool and
 * 1M sysbench rows read 30 pages and wrote 10 a transaction, about twice
 * the pages its statements touch (lab/journal.md, 2026-12-07).
 *
 * A committing connection queues the pages its statements marked (struct
 * txn_acc.purge); one thread of the database takes them in order and
 * accesses each through the buffer pool with its own store, as a
 * connection does. The queue is the history list: when purge falls behind
 * by PURGE_CAP pages a commit's pages are dropped and counted (the real
 * history grows without bound; innodb_max_purge_lag is 0). What is queued
 * when the database closes is counted as left, not done. fio-free.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "txn.h"

#define PURGE_CAP	(1u << 20)	/* pages queued at most: 8 MB */
#define PURGE_TICK_S	1		/* idle: a batch of what is queued after 1 s */

static void fail(struct txn_purge *u, int err, const char *what)
{
	if (atomic_load(&u->error))
		return;
	snprintf(u->err, sizeof(u->err), "purge: %s", what);
	atomic_store(&u->error, err);
}

/* Caller holds m: the queued pages go to the workers as one batch. */
static void release(struct txn_purge *u)
{
	u->rel = u->n;
	u->txns = 0;
	u->batches++;
	pthread_cond_broadcast(&u->cv);
}

static void *purge_main(void *arg)
{
	struct txn_purge_worker *w = arg;
	struct txn_purge *u = w->u;
	struct timespec ts;
	uint64_t page;
	int ret;

	pthread_mutex_lock(&u->m);
	while (!u->stop && !atomic_load(&u->error)) {
		if (!u->rel) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += PURGE_TICK_S;
			if (pthread_cond_timedwait(&u->cv, &u->m, &ts) == ETIMEDOUT && u->n && !u->rel)
				release(u);	/* idle: what is queued goes anyway */
			continue;
		}
		page = u->ring[u->head];
		u->head = (u->head + 1) % PURGE_CAP;
		u->n--;
		u->rel--;
		pthread_mutex_unlock(&u->m);
		ret = txn_pool_access(u->p, &w->io, page, 1, 0, NULL);
		pthread_mutex_lock(&u->m);
		if (ret < 0) {
			fail(u, ret, w->io.err);
			break;
		}
		u->pages++;
	}
	pthread_mutex_unlock(&u->m);
	return NULL;
}

int txn_purge_start(struct txn_purge *u, struct txn_pool *p, const struct txn_purge_cfg *c,
		    char *err, size_t errlen)
{
	unsigned int i;
	int ret;

	memset(u, 0, sizeof(*u));
	u->p = p;
	u->batch = c->batch;
	u->ring = malloc(PURGE_CAP * sizeof(*u->ring));
	u->w = calloc(c->threads, sizeof(*u->w));
	if (!u->ring || !u->w) {
		snprintf(err, errlen, "purge: out of memory");
		return -ENOMEM;
	}
	u->nw = c->threads;	/* txn_purge_stop frees what each got */
	pthread_mutex_init(&u->m, NULL);
	pthread_cond_init(&u->cv, NULL);
	u->inited = 1;
	for (i = 0; i < c->threads; i++) {
		struct txn_purge_worker *w = &u->w[i];

		w->u = u;
		ret = store_init(&w->s, c->store, err, errlen);
		if (ret)
			return ret;
		if (txn_io_init(&w->io, w->s, c->g)) {
			snprintf(err, errlen, "purge: out of memory");
			return -ENOMEM;
		}
		/* a dirty victim it evicts itself: doublewritten as a connection's, the last slots */
		w->io.dblwr = c->dblwr;
		w->io.dw_name = c->dw_name;
		w->io.dw_off = (127ull - i) * c->g->bs;
		w->io.direct = c->direct;
		ret = -pthread_create(&w->th, NULL, purge_main, w);
		if (ret) {
			snprintf(err, errlen, "purge: cannot start its thread: %s", strerror(-ret));
			return ret;
		}
		w->started = 1;
	}
	u->started = 1;
	return 0;
}

void txn_purge_add(struct txn_purge *u, const uint64_t *pages, unsigned int n)
{
	unsigned int i;

	if (!u->started || !n)
		return;
	pthread_mutex_lock(&u->m);
	if (u->n + n > PURGE_CAP) {
		u->dropped += n;
	} else {
		for (i = 0; i < n; i++)
			u->ring[(u->head + u->n + i) % PURGE_CAP] = pages[i];
		u->n += n;
		if (++u->txns >= u->batch)
			release(u);
	}
	pthread_mutex_unlock(&u->m);
}

void txn_purge_stop(struct txn_purge *u)
{
	unsigned int i;

	if (u->inited) {
		pthread_mutex_lock(&u->m);
		u->stop = 1;
		pthread_cond_broadcast(&u->cv);
		pthread_mutex_unlock(&u->m);
	}
	for (i = 0; u->w && i < u->nw; i++) {
		struct txn_purge_worker *w = &u->w[i];

		if (w->started)
			pthread_join(w->th, NULL);
		if (w->io.g)
			txn_io_free(&w->io);
		if (w->s)
			store_exit(w->s);
	}
	if (u->inited) {
		u->left = u->n;
		pthread_cond_destroy(&u->cv);
		pthread_mutex_destroy(&u->m);
	}
	free(u->w);
	free(u->ring);
	memset(u, 0, offsetof(struct txn_purge, pages));
}
