/*
 * txn_lock.c - row locks: a statement that updates a row holds it until its
 * transaction ends, so connections that update the same row queue on it as
 * backends do. PostgreSQL releases a transaction's locks after its commit
 * record is flushed, InnoDB at commit before the log flush (txn.c picks the
 * moment). The case that matters is pgbench's TPC-B-like script at a small
 * scale: every transaction updates one of `scale` branch rows, so at more
 * clients than branches the connections wait on each other, not on the log.
 *
 * Only a profile whose transactions lock their rows in one fixed order marks
 * its accesses (txn_prof.c): no cycle, no deadlock to detect. A lock is a
 * (table, row) pair in a short list: a database has at most a few hundred
 * connections holding three rows each. No fio headers.
 */
#include <stdlib.h>
#include <time.h>

#include "txn.h"

int txn_locks_init(struct txn_locks *l)
{
	l->cap = 64;
	l->held = calloc(l->cap, sizeof(*l->held));
	if (!l->held)
		return -1;
	pthread_mutex_init(&l->m, NULL);
	pthread_cond_init(&l->cv, NULL);
	l->init = 1;
	return 0;
}

void txn_locks_free(struct txn_locks *l)
{
	if (!l->init)
		return;
	pthread_cond_destroy(&l->cv);
	pthread_mutex_destroy(&l->m);
	free(l->held);
	l->held = NULL;
	l->init = 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The holder of row, or NULL. */
static const void *holder(const struct txn_locks *l, uint64_t row)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (l->held[i].row == row)
			return l->held[i].owner;
	return NULL;
}

int txn_lock_row(struct txn_locks *l, const void *owner, unsigned int table, uint64_t row)
{
	uint64_t key = (uint64_t)table << 56 | row, t0 = 0;
	const void *h;

	pthread_mutex_lock(&l->m);
	while ((h = holder(l, key)) && h != owner) {
		if (!t0) {
			t0 = now_ns();
			l->st.waits++;
		}
		pthread_cond_wait(&l->cv, &l->m);
	}
	if (t0)
		l->st.wait_ns += now_ns() - t0;
	if (!h) {
		if (l->n == l->cap) {
			void *p = realloc(l->held, 2 * l->cap * sizeof(*l->held));

			if (!p) {
				pthread_mutex_unlock(&l->m);
				return -1;
			}
			l->held = p;
			l->cap *= 2;
		}
		l->held[l->n].row = key;
		l->held[l->n++].owner = owner;
		l->st.locks++;
	}
	pthread_mutex_unlock(&l->m);
	return 0;
}

void txn_unlock_all(struct txn_locks *l, const void *owner)
{
	unsigned int i = 0, freed = 0;

	pthread_mutex_lock(&l->m);
	while (i < l->n) {
		if (l->held[i].owner == owner) {
			l->held[i] = l->held[--l->n];
			freed++;
		} else {
			i++;
		}
	}
	if (freed)
		pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->m);
}
