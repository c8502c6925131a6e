/*
 * ceph_conn.c - the process's Ceph clients (see ceph_conn.h): one registry,
 * one timeout policy, one error line. Built when configure found librbd or
 * libcephfs; each kind of client only when its library is there.
 *
 * A client is connected under the registry's lock, so a second thread
 * asking for the same client waits for the first connect (bounded by the
 * policy) instead of opening a second session.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64	/* libcephfs.h insists on it */
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef CONFIG_RBD
#include <rados/librados.h>
#endif
#ifdef CONFIG_LIBCEPHFS
#include <cephfs/libcephfs.h>
#endif

#include "ceph_conn.h"

/*
 * The timeout policy: every client gets these, after its ceph.conf and
 * before CEPH_ARGS (which may override them). NULL: the connect bound
 * (CEPH_CONN_TIMEOUT_S, or the caller's timeout_s).
 */
static const struct ceph_setting {
	const char *name;
	const char *value;	/* NULL: the connect bound; "osd": the OSD bound */
} ceph_policy[] = {
	/* an unreachable monitor (a mount: or MDS) fails the connect */
	{ "client_mount_timeout",	NULL },
	/* monitor commands (pool lookups, rbdsnap's health polls) fail too */
	{ "rados_mon_op_timeout",	NULL },
	/*
	 * OSD ops wait for the OSD, as a kernel client does: librbd's
	 * write-around cache acknowledges a write when it is sent, and reports
	 * its failure only to a flush that is waiting for other writes, so a
	 * timed-out write was lost without an error (t-rel-osd-long).
	 */
	{ "rados_osd_op_timeout",	"osd" },	/* osd_timeout_s: 0 unless asked */
};

struct ceph_conn {
	struct ceph_conn *next;
	int refs;
	enum ceph_conn_kind kind;
	unsigned int timeout_s;
	unsigned int osd_timeout_s;
	char cluster[64];
	char client[128];	/* the id, without "client." */
	char conf[512];		/* "" when Ceph searches its default paths */
	char mon[256];		/* mon_host, as read from the configuration */
	void *rados;
	struct ceph_mount_info *cm;
};

/*
 * The registry: one per process, as libdbfio.so (this file's library) is
 * loaded once however many engines a fio loads.
 */
static struct ceph_reg {
	pthread_mutex_t lock;
	struct ceph_conn *conns;
} reg_own = { .lock = PTHREAD_MUTEX_INITIALIZER };
static struct ceph_reg *const reg = &reg_own;

int ceph_conn_fail(const struct ceph_conn *c, const char *who, const char *call,
		   const char *arg, int ret, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s(%s) failed: %s (client.%s, cluster %s at %s, conf %s)",
		 who, call, arg, strerror(-ret), c->client, c->cluster,
		 c->mon[0] ? c->mon : "mon_host unset", c->conf[0] ? c->conf : "default search");
	return ret;
}

static const char *conf_path(const struct ceph_conn *c)
{
	return c->conf[0] ? c->conf : NULL;
}

/* A client library's connect steps, with the call names for the error line. */
enum { STEP_CREATE, STEP_READ, STEP_SET, STEP_ENV, STEP_CONNECT, NSTEPS };

struct ceph_lib {
	const char *call[NSTEPS];
	int (*create)(const struct ceph_conn *c, void **h);
	int (*read)(void *h, const char *path);
	int (*get)(void *h, const char *key, char *buf, size_t len);
	int (*set)(void *h, const char *key, const char *val);
	int (*env)(void *h);
	int (*connect)(void *h);
	void (*release)(void *h);
};

/* The policy, through the library's conf setter; the failed name in *what. */
static int ceph_apply_policy(const struct ceph_conn *c, void *h,
			     const struct ceph_lib *lib, const char **what)
{
	char tmo[16], otmo[16];
	const char *v;
	size_t i;
	int ret;

	snprintf(tmo, sizeof(tmo), "%u", c->timeout_s);
	snprintf(otmo, sizeof(otmo), "%u", c->osd_timeout_s);
	for (i = 0; i < sizeof(ceph_policy) / sizeof(ceph_policy[0]); i++) {
		*what = ceph_policy[i].name;
		v = ceph_policy[i].value;
		ret = lib->set(h, ceph_policy[i].name, !v ? tmo : !strcmp(v, "osd") ? otmo : v);
		if (ret)
			return ret;
	}
	return 0;
}

/* Create, configure (ceph.conf, the policy, CEPH_ARGS) and connect. */
static int ceph_connect(struct ceph_conn *c, const struct ceph_lib *lib,
			const char *who, void **hp, char *err, size_t errlen)
{
	char arg[160];
	const char *what = arg;
	int step = STEP_CREATE, ret;
	void *h;

	snprintf(arg, sizeof(arg), "client.%s", c->client);
	ret = lib->create(c, &h);
	if (ret)
		return ceph_conn_fail(c, who, lib->call[step], arg, ret, err, errlen);
	step = STEP_READ;
	ret = lib->read(h, conf_path(c));
	if (!ret) {
		lib->get(h, "mon_host", c->mon, sizeof(c->mon));
		step = STEP_SET;
		ret = ceph_apply_policy(c, h, lib, &what);
	}
	if (!ret) {
		step = STEP_ENV;
		what = "CEPH_ARGS";
		ret = lib->env(h);
	}
	if (!ret) {
		step = STEP_CONNECT;
		what = arg;
		ret = lib->connect(h);
	}
	if (ret) {
		lib->release(h);
		if (step == STEP_READ)
			what = c->conf[0] ? c->conf : "default search";
		return ceph_conn_fail(c, who, lib->call[step], what, ret, err, errlen);
	}
	*hp = h;
	return 0;
}

#ifdef CONFIG_RBD
static int rados_new(const struct ceph_conn *c, void **h)
{
	char name[160];

	snprintf(name, sizeof(name), "client.%s", c->client);
	return rados_create2(h, c->cluster, name, 0);
}

static int rados_env(void *h)
{
	return rados_conf_parse_env(h, NULL);
}

static const struct ceph_lib ceph_rados = {
	.call		= { "rados_create2", "rados_conf_read_file", "rados_conf_set",
			    "rados_conf_parse_env", "rados_connect" },
	.create		= rados_new,
	.read		= rados_conf_read_file,
	.get		= rados_conf_get,
	.set		= rados_conf_set,
	.env		= rados_env,
	.connect	= rados_connect,
	.release	= rados_shutdown,
};
#endif

#ifdef CONFIG_LIBCEPHFS
/* libcephfs takes a struct ceph_mount_info *, not a void *: thin wrappers */
static int fs_new(const struct ceph_conn *c, void **h)
{
	struct ceph_mount_info *cm;
	int ret = ceph_create(&cm, c->client);

	*h = ret ? NULL : cm;
	return ret;
}

static int fs_read(void *h, const char *path)
{
	return ceph_conf_read_file(h, path);
}

static int fs_get(void *h, const char *key, char *buf, size_t len)
{
	return ceph_conf_get(h, key, buf, len);
}

static int fs_set(void *h, const char *key, const char *val)
{
	return ceph_conf_set(h, key, val);
}

static int fs_env(void *h)
{
	return ceph_conf_parse_env(h, NULL);
}

static int fs_mount(void *h)
{
	return ceph_mount(h, "/");
}

static void fs_release(void *h)
{
	ceph_release(h);
}

static const struct ceph_lib ceph_fs = {
	.call		= { "ceph_create", "ceph_conf_read_file", "ceph_conf_set",
			    "ceph_conf_parse_env", "ceph_mount" },
	.create		= fs_new,
	.read		= fs_read,
	.get		= fs_get,
	.set		= fs_set,
	.env		= fs_env,
	.connect	= fs_mount,
	.release	= fs_release,
};
#endif

/* The registry's entry for id (its fields filled in c). Lock held. */
static struct ceph_conn *ceph_conn_find(const struct ceph_conn *c)
{
	struct ceph_conn *o;

	for (o = reg->conns; o; o = o->next)
		if (o->kind == c->kind && o->timeout_s == c->timeout_s &&
		    o->osd_timeout_s == c->osd_timeout_s &&
		    !strcmp(o->cluster, c->cluster) && !strcmp(o->client, c->client) &&
		    !strcmp(o->conf, c->conf))
			return o;
	return NULL;
}

static void ceph_conn_key(struct ceph_conn *c, enum ceph_conn_kind kind,
			  const struct ceph_conn_id *id)
{
	const char *client = id->client && *id->client ? id->client : "admin";
	const char *conf = id->conf ? id->conf : getenv("CEPH_CONF");

	if (!strncmp(client, "client.", 7))
		client += 7;
	c->kind = kind;
	c->timeout_s = id->timeout_s ? id->timeout_s : CEPH_CONN_TIMEOUT_S;
	c->osd_timeout_s = kind == CEPH_CONN_RADOS ? id->osd_timeout_s : 0;
	snprintf(c->cluster, sizeof(c->cluster), "%s",
		 id->cluster && *id->cluster ? id->cluster : "ceph");
	snprintf(c->client, sizeof(c->client), "%s", client);
	snprintf(c->conf, sizeof(c->conf), "%s", conf ? conf : "");
}

int ceph_conn_get(enum ceph_conn_kind kind, const struct ceph_conn_id *id,
		  struct ceph_conn **cp, char *err, size_t errlen)
{
	struct ceph_conn *c, *o;
	int ret = -EOPNOTSUPP, tried = 0;

	*cp = NULL;
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "%s: out of memory", id->who);
		return -ENOMEM;
	}
	ceph_conn_key(c, kind, id);
	pthread_mutex_lock(&reg->lock);
	o = ceph_conn_find(c);
	if (o) {
		o->refs++;
		free(c);
		*cp = o;
		pthread_mutex_unlock(&reg->lock);
		return 0;
	}
#ifdef CONFIG_RBD
	if (kind == CEPH_CONN_RADOS && ++tried)
		ret = ceph_connect(c, &ceph_rados, id->who, &c->rados, err, errlen);
#endif
#ifdef CONFIG_LIBCEPHFS
	if (kind == CEPH_CONN_CEPHFS && ++tried) {
		void *h = NULL;

		ret = ceph_connect(c, &ceph_fs, id->who, &h, err, errlen);
		c->cm = h;
	}
#endif
	if (!tried)	/* this kind's library was not built */
		ceph_conn_fail(c, id->who, "connect", "not built", ret, err, errlen);
	if (!ret) {
		c->refs = 1;
		c->next = reg->conns;
		reg->conns = c;
		*cp = c;
	}
	pthread_mutex_unlock(&reg->lock);
	if (ret)
		free(c);
	return ret;
}

void ceph_conn_put(struct ceph_conn *c)
{
	struct ceph_conn **pp;

	if (!c)
		return;
	pthread_mutex_lock(&reg->lock);
	if (--c->refs > 0) {
		pthread_mutex_unlock(&reg->lock);
		return;
	}
	for (pp = &reg->conns; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
#ifdef CONFIG_RBD
	if (c->rados)
		rados_shutdown(c->rados);
#endif
#ifdef CONFIG_LIBCEPHFS
	if (c->cm) {
		ceph_unmount(c->cm);
		ceph_release(c->cm);
	}
#endif
	pthread_mutex_unlock(&reg->lock);
	free(c);
}

void *ceph_conn_rados(const struct ceph_conn *c)
{
	return c->rados;
}

struct ceph_mount_info *ceph_conn_cephfs(const struct ceph_conn *c)
{
	return c->cm;
}
