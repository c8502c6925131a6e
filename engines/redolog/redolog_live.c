/*
 * redolog_live.c - the logs open in this process. Two jobs of one fio that
 * write one log (same store, directory, prefix and file names: two [job]
 * sections with the same directory=, or a mysql and a mariadb job, which
 * both write ib_logfile0) would overwrite each other's records, and the
 * store's run lock cannot tell: the threads of one process share it. The
 * second log to open is refused here, in one line naming both jobs. Jobs
 * run one after the other (stonewall) do not collide: a log leaves the list
 * when it closes. numjobs>1 clones never collide (each gets a jobN- prefix).
 * Each engine .so has its own list; across engines (a txn database and a
 * redolog job in one fio) the ownership claims refuse the second (owner.h).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redolog.h"

struct rl_live {
	struct rl_live *next;
	char where[PATH_MAX + 16];	/* the store's location, resolved */
	char file0[128], meta[128];	/* the log's first file and its meta */
	char job[128];
};

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rl_live *live;

int rl_live_enter(struct rl_log *l)
{
	const struct rl_geo *g = &l->c.g;
	struct rl_live *n, *e;

	n = calloc(1, sizeof(*n));
	if (!n)
		return rl_fail(l, -ENOMEM, "calloc", "log list");
	store_where(l->s, n->where, sizeof(n->where));
	rl_file_name(g, g->flavor == RL_POSTGRES ? 1 : 0, n->file0, sizeof(n->file0));
	rl_meta_name(g->flavor, g->prefix, n->meta, sizeof(n->meta));
	snprintf(n->job, sizeof(n->job), "%s", l->c.job ? l->c.job : l->engine);
	pthread_mutex_lock(&live_lock);
	for (e = live; e; e = e->next)
		if (!strcmp(e->where, n->where) &&
		    (!strcmp(e->file0, n->file0) || !strcmp(e->meta, n->meta)))
			break;
	if (e) {
		char msg[PATH_MAX + 1024];

		pthread_mutex_unlock(&live_lock);
		snprintf(msg, sizeof(msg), "job %s: %s in %s is already the log of job %s of "
			 "this fio: two jobs writing one log overwrite each other's records; "
			 "give one its own log_prefix= or directory", n->job,
			 strcmp(e->file0, n->file0) ? n->meta : n->file0, n->where, e->job);
		snprintf(l->err, sizeof(l->err), "%.*s", (int)sizeof(l->err) - 1, msg);
		free(n);
		return -EBUSY;
	}
	n->next = live;
	live = n;
	pthread_mutex_unlock(&live_lock);
	l->live = n;
	return 0;
}

void rl_live_leave(struct rl_log *l)
{
	struct rl_live **p;

	if (!l->live)
		return;
	pthread_mutex_lock(&live_lock);
	for (p = &live; *p; p = &(*p)->next)
		if (*p == l->live) {
			*p = l->live->next;
			break;
		}
	pthread_mutex_unlock(&live_lock);
	free(l->live);
	l->live = NULL;
}
