/*
 * rbdsnap_conn.c - the rbdsnap engine's option checks (fio does not
 * range-check engine integers) and its cluster connections: one per
 * process and cluster/client name, shared by the jobs (refcount + mutex),
 * with bounded monitor timeouts so that a dead monitor, a wrong key or a
 * missing pool fail instead of hanging. No fio header: messages go to
 * stderr, one line each.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbdsnap.h"

#define USEC_DAY	(86400ull * 1000000ull)

static pthread_mutex_t rbdsnap_conn_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rbdsnap_conn *rbdsnap_conns;

static bool rbdsnap_bad_time(const char *opt, unsigned long long v, unsigned long long max)
{
	if ((long long)v < 0 || v > max) {
		fprintf(stderr, "rbdsnap: %s=%lld: out of range (0 .. %llus)\n", opt,
			(long long)v / 1000000, max / 1000000);
		return true;
	}
	return false;
}

static bool rbdsnap_bad_int(const char *opt, int v)
{
	if (v < 0) {
		fprintf(stderr, "rbdsnap: %s=%d: must not be negative\n", opt, v);
		return true;
	}
	return false;
}

/* fio does not range-check engine options: refuse nonsense here */
int rbdsnap_check_opts(struct rbdsnap_options *o)
{
	bool trigger = o->snap_interval || o->snap_every || o->snap_start_delay;

	if (!o->pool_name || !o->rbd_name) {
		fprintf(stderr, "rbdsnap: %s= is required\n", o->pool_name ? "rbdname" : "pool");
		return 1;
	}
	if (rbdsnap_bad_time("snap_interval", o->snap_interval, 30 * USEC_DAY) ||
	    rbdsnap_bad_time("snap_start_delay", o->snap_start_delay, 30 * USEC_DAY) ||
	    rbdsnap_bad_time("snap_hold", o->snap_hold, 30 * USEC_DAY) ||
	    rbdsnap_bad_time("slow_threshold", o->slow_threshold, USEC_DAY) ||
	    rbdsnap_bad_time("health_interval", o->health_interval, USEC_DAY) ||
	    rbdsnap_bad_time("connect_timeout", o->connect_timeout, USEC_DAY) ||
	    rbdsnap_bad_int("snap_every", o->snap_every) ||
	    rbdsnap_bad_int("snap_keep", o->snap_keep) ||
	    rbdsnap_bad_int("snap_count", o->snap_count))
		return 1;
	if (!trigger && (o->snap_keep || o->snap_count || o->snap_hold)) {
		fprintf(stderr, "rbdsnap: snap_%s=%llu: needs snap_interval, snap_every or snap_start_delay\n",
			o->snap_keep ? "keep" : o->snap_count ? "count" : "hold",
			o->snap_keep ? (unsigned long long)o->snap_keep :
			o->snap_count ? (unsigned long long)o->snap_count : o->snap_hold / 1000000);
		return 1;
	}
	if (!o->snap_interval && !o->snap_every && o->snap_count > 1) {
		fprintf(stderr, "rbdsnap: snap_count=%d: snap_start_delay alone takes one snapshot; "
			"add snap_interval or snap_every\n", o->snap_count);
		return 1;
	}
	if (o->snap_hold && !o->snap_count && (o->snap_interval || o->snap_every)) {
		fprintf(stderr, "rbdsnap: snap_hold=%llus: needs snap_count (when is the last snapshot?)\n",
			o->snap_hold / 1000000);
		return 1;
	}
	if (!o->snap_prefix || !*o->snap_prefix || strlen(o->snap_prefix) > 64 ||
	    strpbrk(o->snap_prefix, "@/ \t")) {
		fprintf(stderr, "rbdsnap: snap_prefix=%s: 1-64 characters, no '@', '/' or blanks\n",
			o->snap_prefix ? o->snap_prefix : "");
		return 1;
	}
	if (!o->slow_threshold) {
		fprintf(stderr, "rbdsnap: slow_threshold=0: every I/O would be slow\n");
		return 1;
	}
	if (o->health_interval && o->health_interval < 100000) {
		fprintf(stderr, "rbdsnap: health_interval=%lluus: below 100ms floods the monitor\n",
			o->health_interval);
		return 1;
	}
	if (o->connect_timeout < 1000000) {
		fprintf(stderr, "rbdsnap: connect_timeout=%lluus: at least 1s (0 would wait forever)\n",
			o->connect_timeout);
		return 1;
	}
	return 0;
}

static int rbdsnap_conn_new(struct rbdsnap_options *o, struct rbdsnap_conn *c)
{
	char tmo[32], *client = NULL;
	const char *who;
	int r;

	if (o->cluster_name) {
		/* rados_create2 wants a full type.id name */
		if (o->client_name && !strchr(o->client_name, '.') &&
		    asprintf(&client, "client.%s", o->client_name) < 0)
			return -ENOMEM;
		r = rados_create2(&c->cluster, o->cluster_name,
				  client ? client : o->client_name, 0);
		free(client);
	} else
		r = rados_create(&c->cluster, o->client_name);
	who = o->client_name ? o->client_name : "admin";
	if (r < 0) {
		fprintf(stderr, "rbdsnap: rados_create(%s) failed: %s\n", who, strerror(-r));
		return r;
	}
	r = rados_conf_read_file(c->cluster, NULL);
	if (r < 0) {
		fprintf(stderr, "rbdsnap: rados_conf_read_file(%s) failed: %s\n",
			getenv("CEPH_CONF") ? getenv("CEPH_CONF") : "default path", strerror(-r));
		goto out;
	}
	rados_conf_parse_env(c->cluster, NULL);	/* CEPH_ARGS */
	/* a dead monitor, a wrong key or a missing pool must fail, not hang */
	snprintf(tmo, sizeof(tmo), "%llu", o->connect_timeout / 1000000);
	rados_conf_set(c->cluster, "client_mount_timeout", tmo);
	rados_conf_set(c->cluster, "rados_mon_op_timeout", tmo);
	r = rados_connect(c->cluster);
	if (r < 0) {
		fprintf(stderr, "rbdsnap: rados_connect(client.%s) failed: %s (connect_timeout=%ss)\n",
			who, strerror(-r), tmo);
		goto out;
	}
	return 0;
out:
	rados_shutdown(c->cluster);
	c->cluster = NULL;
	return r;
}

struct rbdsnap_conn *rbdsnap_conn_get(struct rbdsnap_options *o)
{
	struct rbdsnap_conn *c;
	char *key;

	if (asprintf(&key, "%s\n%s", o->cluster_name ? o->cluster_name : "",
		     o->client_name ? o->client_name : "") < 0)
		return NULL;
	pthread_mutex_lock(&rbdsnap_conn_lock);
	for (c = rbdsnap_conns; c; c = c->next)
		if (!strcmp(c->key, key))
			break;
	if (c) {
		c->refs++;
		free(key);
	} else if ((c = calloc(1, sizeof(*c)))) {
		c->key = key;
		if (rbdsnap_conn_new(o, c)) {
			free(c->key);
			free(c);
			c = NULL;
		} else {
			c->refs = 1;
			c->next = rbdsnap_conns;
			rbdsnap_conns = c;
		}
	} else
		free(key);
	pthread_mutex_unlock(&rbdsnap_conn_lock);
	return c;
}

void rbdsnap_conn_put(struct rbdsnap_conn *c)
{
	struct rbdsnap_conn **pp;

	pthread_mutex_lock(&rbdsnap_conn_lock);
	if (--c->refs == 0) {
		for (pp = &rbdsnap_conns; *pp; pp = &(*pp)->next)
			if (*pp == c) {
				*pp = c->next;
				break;
			}
		rados_shutdown(c->cluster);
		free(c->key);
		free(c);
	}
	pthread_mutex_unlock(&rbdsnap_conn_lock);
}
