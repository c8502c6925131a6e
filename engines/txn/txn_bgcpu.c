/*
 * txn_bgcpu.c - the database's background CPU (background_cpu=): what the
 * server's own threads burn for each transaction off the connections' path
 * (InnoDB's purge, page cleaner and master thread; PostgreSQL's walwriter,
 * background writer, autovacuum). A connection adds it at each transaction's
 * end; one thread of the database burns it as thread CPU time, so it
 * competes for the cores with the connections (and the Ceph daemons) but a
 * transaction does not wait for it: at one connection on two cores it runs
 * beside the connection. Real MariaDB 10.11's other threads took 1-2 % of
 * its CPU at one connection, PostgreSQL 15's walwriter 2-3 % (docs/txn.md).
 * fio-free.
 *
 * The thread wakes every BG_TICK_NS or when BG_KICK_NS are pending, burns
 * all that is pending, and sleeps again: about 100 wake-ups a second, not
 * one a transaction. What is still pending when the database closes is not
 * burned (counted as left).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "txn.h"

#define BG_TICK_NS	10000000ull	/* 10 ms */
#define BG_KICK_NS	2000000ull	/* 2 ms pending: wake now */

static void *bgcpu_main(void *arg)
{
	struct txn_bgcpu *b = arg;
	struct timespec ts;
	uint64_t ns;

	pthread_mutex_lock(&b->m);
	while (!b->stop) {
		if (!b->pending_ns) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += BG_TICK_NS;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&b->cv, &b->m, &ts);
			continue;
		}
		ns = b->pending_ns;
		b->pending_ns = 0;
		pthread_mutex_unlock(&b->m);
		dbtime_burn(&b->dt, ns);
		pthread_mutex_lock(&b->m);
	}
	pthread_mutex_unlock(&b->m);
	return NULL;
}

int txn_bgcpu_start(struct txn_bgcpu *b, uint64_t ns_per_txn)
{
	int ret;

	memset(b, 0, sizeof(*b));
	b->ns = ns_per_txn;
	if (!ns_per_txn)
		return 0;
	pthread_mutex_init(&b->m, NULL);
	pthread_cond_init(&b->cv, NULL);
	ret = pthread_create(&b->th, NULL, bgcpu_main, b);
	if (ret) {
		pthread_cond_destroy(&b->cv);
		pthread_mutex_destroy(&b->m);
		return -ret;
	}
	b->started = 1;
	return 0;
}

void txn_bgcpu_add(struct txn_bgcpu *b)
{
	if (!b->started)
		return;
	pthread_mutex_lock(&b->m);
	b->pending_ns += b->ns;
	if (b->pending_ns >= BG_KICK_NS)
		pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->m);
}

void txn_bgcpu_stop(struct txn_bgcpu *b)
{
	if (!b->started)
		return;
	pthread_mutex_lock(&b->m);
	b->stop = 1;
	pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->m);
	pthread_join(b->th, NULL);
	b->left_ns = b->pending_ns;
	pthread_cond_destroy(&b->cv);
	pthread_mutex_destroy(&b->m);
	b->started = 0;
}
