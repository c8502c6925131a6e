/*
 * txn_lock.c - row locks: a statement that updates a row holds it until its
 * transaction ends, so connections that update the same row queue on it as
 * backends do. PostgreSQL releases a transaction's locks after its commit
 * record is flushed, InnoDB at commit before the log flush (txn.c picks the
 * moment). The case that matters is pgbench's TPC-B-like script at a small
 * scale: every transaction updates one of `scale` branch rows, so at more
 * clients than branches the connections wait on each other, not on the log.
 *
 * A row's waiters form a queue, first come first served, and a release hands
 * the row to the first of them and wakes that one alone, as PostgreSQL's lock
 * manager does (ProcLockWakeup: the tuple lock's next waiter, then the
 * transaction it waits for): waking them all would have every waiter run to
 * find the row taken again, a context switch each per release.
 *
 * Only a profile whose transactions lock their rows in one fixed order marks
 * its accesses (txn_prof.c): no cycle, no deadlock to detect. A lock is a
 * (table, row) pair in a short list: a database has at most a few hundred
 * connections holding three rows each. No fio headers.
 */
#include <stdlib.h>
#include <time.h>

#include "txn.h"

/* One connection waiting for a row: on its own stack, in the row's queue. */
struct txn_lock_waiter {
	struct txn_lock_waiter *next;
	const void *owner;
	atomic_uint *active;		/* given back when the row is handed over */
	pthread_cond_t cv;
	int granted;
};

int txn_locks_init(struct txn_locks *l)
{
	l->cap = 64;
	l->held = calloc(l->cap, sizeof(*l->held));
	if (!l->held)
		return -1;
	pthread_mutex_init(&l->m, NULL);
	l->init = 1;
	return 0;
}

void txn_locks_free(struct txn_locks *l)
{
	if (!l->init)
		return;
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

/* The entry of row, or -1. */
static int find(const struct txn_locks *l, uint64_t row)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (l->held[i].row == row)
			return (int)i;
	return -1;
}

/* Caller holds m: queue behind the row's holder until it is handed over. */
static void wait_turn(struct txn_locks *l, int i, const void *owner, atomic_uint *active)
{
	struct txn_lock_waiter w = { .owner = owner, .active = active };
	uint64_t t0 = now_ns();

	pthread_cond_init(&w.cv, NULL);
	if (l->held[i].last)
		l->held[i].last->next = &w;
	else
		l->held[i].first = &w;
	l->held[i].last = &w;
	if (active)		/* MinimumActiveBackends skips a backend waiting on a lock */
		atomic_fetch_sub(active, 1);
	l->st.waits++;
	while (!w.granted)
		pthread_cond_wait(&w.cv, &l->m);
	l->st.wait_ns += now_ns() - t0;
	pthread_cond_destroy(&w.cv);
}

int txn_lock_row(struct txn_locks *l, const void *owner, unsigned int table, uint64_t row,
		 atomic_uint *active)
{
	uint64_t key = (uint64_t)table << 56 | row;
	int i;

	pthread_mutex_lock(&l->m);
	i = find(l, key);
	if (i >= 0) {
		if (l->held[i].owner != owner)
			wait_turn(l, i, owner, active);	/* the releaser made it ours */
		pthread_mutex_unlock(&l->m);
		return 0;
	}
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
	l->held[l->n].owner = owner;
	l->held[l->n].first = l->held[l->n].last = NULL;
	l->n++;
	l->st.locks++;
	pthread_mutex_unlock(&l->m);
	return 0;
}

void txn_unlock_all(struct txn_locks *l, const void *owner)
{
	struct txn_lock_waiter *w;
	unsigned int i = 0;

	pthread_mutex_lock(&l->m);
	while (i < l->n) {
		if (l->held[i].owner != owner) {
			i++;
		} else if ((w = l->held[i].first)) {
			/* hand the row to the first waiter, wake that one only */
			l->held[i].first = w->next;
			if (!w->next)
				l->held[i].last = NULL;
			l->held[i].owner = w->owner;
			l->st.locks++;
			if (w->active)
				atomic_fetch_add(w->active, 1);
			w->granted = 1;
			pthread_cond_signal(&w->cv);
			i++;
		} else {
			l->held[i] = l->held[--l->n];
		}
	}
	pthread_mutex_unlock(&l->m);
}
