/*
 * ceph_conn.h - the one place dbfio connects to Ceph: the rbd store, the
 * cephfs store and rbdsnap take their cluster clients from here. fio-free
 * and free of dbfio's config.h (rbdsnap includes it with fio's headers), so
 * the handles cross this header as void * / an opaque struct.
 *
 * - One registry of shared clients per process: a librados client per
 *   (cluster name, ceph.conf, client id, connect bound), a libcephfs mount
 *   (of "/") per the same; refcounted, thread-safe. This file lives in
 *   libdbfio.so, which a process loads once: storeio, redolog and rbdsnap
 *   jobs in one fio share one client session with the monitor.
 * - One timeout policy (ceph_conn.c, ceph_policy[]; docs/failure-behaviour.md
 *   says which values and why): connecting and monitor calls are bounded by
 *   CEPH_CONN_TIMEOUT_S; OSD ops are never timed out (unless the caller asks
 *   for osd_timeout_s, a client of its own that writes no data: librbd's write-around
 *   cache has acknowledged a write before its OSD op can time out, and a
 *   timed-out write would be lost silently). Set before CEPH_ARGS is parsed:
 *   the environment may override.
 * - One error line for every connect/open failure:
 *   "<who>: <call>(<arg>) failed: <strerror> (client.<id>, cluster <name>
 *   at <mon_host>, conf <ceph.conf>)".
 */
#ifndef DBFIO_CEPH_CONN_H
#define DBFIO_CEPH_CONN_H

#include <stddef.h>

/* The bound (s) on connecting (client_mount_timeout) and on monitor calls. */
#define CEPH_CONN_TIMEOUT_S	30
#define CEPH_CONN_TIMEOUT_STR	"30"	/* the same, for option defaults */

struct ceph_conn;
struct ceph_mount_info;

enum ceph_conn_kind {
	CEPH_CONN_RADOS,	/* librados (librbd opens images on it) */
	CEPH_CONN_CEPHFS,	/* libcephfs, mounted at "/" */
};

struct ceph_conn_id {
	const char *who;	/* prefix of error lines: "rbd", "cephfs", "rbdsnap" */
	const char *cluster;	/* NULL: "ceph" */
	const char *conf;	/* NULL: $CEPH_CONF, then Ceph's default search */
	const char *client;	/* cephx id, with or without "client."; NULL: "admin" */
	unsigned int timeout_s;	/* connect/monitor bound; 0: CEPH_CONN_TIMEOUT_S */
	unsigned int osd_timeout_s;	/* OSD ops (librados only): 0 = never, as for
					 * data; a client of its own (rbdsnap's OSD reads) */
};

/*
 * The shared client for id, connected on first use. 0, or -errno with the
 * one-line reason in err (naming who, the call, client, cluster and cause).
 */
int ceph_conn_get(enum ceph_conn_kind kind, const struct ceph_conn_id *id,
		  struct ceph_conn **cp, char *err, size_t errlen);
void ceph_conn_put(struct ceph_conn *c);

void *ceph_conn_rados(const struct ceph_conn *c);		/* rados_t */
struct ceph_mount_info *ceph_conn_cephfs(const struct ceph_conn *c);

/*
 * A failure of a call on c's cluster, in the one format; ret is -errno.
 * Returns ret, so callers can `return ceph_conn_fail(...)`.
 */
int ceph_conn_fail(const struct ceph_conn *c, const char *who, const char *call,
		   const char *arg, int ret, char *err, size_t errlen);

#endif
