/*
 * fio_store.h - the fio side of the store layer, shared by every engine:
 * the store=/ceph_conf=/clientname=/pool=/rbdname= options, thread=1, the
 * store's per-call latency table (stderr) and its JSON sidecar.
 *
 * Include after fio's headers. An engine embeds a struct store_opts in its
 * options struct and splices FIO_STORE_OPTIONS(its_struct, member) into its
 * option table.
 */
#ifndef DBFIO_FIO_STORE_H
#define DBFIO_FIO_STORE_H

#include "store/store.h"

struct store_opts {
	char *store;
	char *ceph_conf;
	char *clientname;
	char *pool;
	char *rbdname;
	unsigned long long rbd_size;
	char *store_root;
	unsigned int lat_table;
	char *lat_json;
};

/*
 * One engine option, for the option tables of every engine:
 *   FIO_ENGINE_OPT(struct x_options, "name", FIO_OPT_INT, field, "help", "default")
 * A FIO_OPT_STR_VAL_TIME option takes a bare number as seconds, as runtime= does.
 */
#define FIO_ENGINE_OPT(T, nm, typ, field, hlp, dflt)				\
	{								\
		.name		= nm,					\
		.lname		= nm,					\
		.type		= typ,					\
		.off1		= offsetof(T, field),			\
		.help		= hlp,					\
		.def		= dflt,					\
		.is_seconds	= (typ) == FIO_OPT_STR_VAL_TIME,	\
		.is_time	= (typ) == FIO_OPT_STR_VAL_TIME,	\
		.category	= FIO_OPT_C_ENGINE,			\
		.group		= FIO_OPT_G_INVALID,			\
	}

#define FIO_STORE_OPT_STR(T, m, field, nm, hlp, dflt)			\
	FIO_ENGINE_OPT(T, nm, FIO_OPT_STR_STORE, m.field, hlp, dflt)

#define FIO_STORE_OPTIONS(T, m)						\
	FIO_STORE_OPT_STR(T, m, store, "store",				\
		"Store backend: posix, uring, aio, cephfs or rbd", "posix"),	\
	FIO_STORE_OPT_STR(T, m, ceph_conf, "ceph_conf",			\
		"ceph.conf for cephfs/rbd (default: $CEPH_CONF)", NULL),	\
	FIO_STORE_OPT_STR(T, m, clientname, "clientname",			\
		"Ceph client name, without 'client.'", "admin"),		\
	FIO_STORE_OPT_STR(T, m, pool, "pool",				\
		"RADOS pool of the rbd store", "rbd"),				\
	FIO_STORE_OPT_STR(T, m, rbdname, "rbdname",				\
		"RBD image of the rbd store (created when missing)", "dbfio-store"), \
	FIO_ENGINE_OPT(T, "rbd_size", FIO_OPT_STR_VAL, m.rbd_size,		\
		"Size of the rbd store image when created (default 4G)", "4G"), \
	FIO_STORE_OPT_STR(T, m, store_root, "store_root",		\
		"cephfs: directory inside CephFS (default /); posix: fio's directory", NULL), \
	FIO_ENGINE_OPT(T, "lat_table", FIO_OPT_BOOL, m.lat_table,		\
		"Time every store call; print the table to stderr at the end", "0"), \
	FIO_STORE_OPT_STR(T, m, lat_json, "lat_json",			\
		"Write the per-call latency table as JSON to this file (implies timing)", NULL)

/*
 * Refuse, with one line, a running fio whose version differs from the one
 * the engine was built against (DBFIO_FIO_VERSION, set by the Makefile).
 */
int fio_store_check_version(const char *engine);

/*
 * Setup-time checks in fio's main process: the fio version, forces thread=1 (librados, librbd
 * and libcephfs do not survive fork) and validates store=. Returns 0 or 1
 * after one log_err line.
 */
int fio_store_setup(struct thread_data *td, const char *engine,
		    const struct store_opts *o);

/*
 * Connect the store in the job's thread. root: the posix-like backends'
 * directory (NULL: "."); cephfs uses store_root. timing: also time calls
 * even without lat_table/lat_json.
 */
int fio_store_connect(struct thread_data *td, const char *engine,
		      const struct store_opts *o, const char *root,
		      int timing, struct store **sp);

/*
 * Refuse, with one line naming the backend and the operation, when the
 * store lacks a capability the engine needs.
 */
int fio_store_require(struct thread_data *td, const char *engine,
		      const struct store *s, unsigned int caps);

/*
 * Print the store's per-call table to stderr (lat_table) and write the
 * JSON sidecar (lat_json).
 */
void fio_store_report(struct thread_data *td, const char *engine,
		      const struct store_opts *o, const struct store *s);

/*
 * Path of the sidecar for this job: base, with ".<thread number>" for every
 * job of a numjobs > 1 job (fio's clones included).
 */
void fio_store_sidecar_path(struct thread_data *td, const char *base,
			    char *buf, size_t len);

/*
 * One real flush of the engine's own (a commit group's fdatasync, a
 * checkpoint's fsync) as a fio sync latency sample; none during ramp_time.
 */
void fio_store_sync_sample(struct thread_data *td, uint64_t ns);

/*
 * Setup hook of an engine that flushes on its own schedule: drop the job's
 * fsync=/fdatasync= (one stderr line saying why) so that fio's sync
 * statistics hold the engine's real flushes only.
 */
void fio_store_no_fio_syncs(struct thread_data *td, const char *engine, const char *why);

#endif
