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

#include "store/json_out.h"
#include "store/store.h"

struct store_opts {
	unsigned int store;	/* enum store_backend: fio's parser maps the name */
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
 * Engine options, for the option tables of every engine. fio's own parser
 * (parse.c) refuses a value outside what the table says, with a line naming
 * the option and the value ("fio: failed parsing name=value"), and
 * fio --enghelp=<engine>.so,<name> shows the range or the choices:
 *   FIO_ENGINE_OPT(T, "name", FIO_OPT_STR_STORE, field, "help", "default")	free text
 *   FIO_ENGINE_BOOL(T, "name", field, "help", "default")			0 or 1
 *   FIO_ENGINE_RANGE(T, "name", type, field, "help", "default", min, max)
 *   FIO_ENGINE_POW2(T, "name", type, field, "help", "default", min, max)	and a power of two
 *   FIO_ENGINE_FRAC(T, "name", field, "help", "default", min, max)	a fio_fp64_t field
 *   FIO_ENGINE_CHOICE(T, "name", field, "help", "default",
 *		{ .ival = "word", .oval = VALUE, .help = "..." }, ...)	an int field
 * type: FIO_OPT_INT (unsigned int field), FIO_OPT_ULL (unsigned long long;
 * k/m/g suffixes as bs=) or FIO_OPT_STR_VAL_TIME (unsigned long long, in
 * microseconds; a bare number is seconds, as runtime=). min is an int (fio's
 * minval); 0 means no minimum. fio 3.33's --enghelp prints max with %d: a max
 * of 2^31 or more shows wrong there (its refusals print it right), so such an
 * option says its range in its help too. What fio 3.33's parser lets through
 * is refused by fio_engine_check_opts() (FIO_OPT_INT wraps a negative value).
 */
#define FIO_ENGINE_OPT_(T, nm, typ, field, hlp, dflt, lo, hi, p2)		\
		.name		= nm,					\
		.lname		= nm,					\
		.type		= typ,					\
		.off1		= offsetof(T, field),			\
		.help		= hlp,					\
		.def		= dflt,					\
		.minval		= lo,					\
		.maxval		= hi,					\
		.pow2		= p2,					\
		.is_seconds	= (typ) == FIO_OPT_STR_VAL_TIME,	\
		.is_time	= (typ) == FIO_OPT_STR_VAL_TIME,	\
		.category	= FIO_OPT_C_ENGINE,			\
		.group		= FIO_OPT_G_INVALID

#define FIO_ENGINE_OPT(T, nm, typ, field, hlp, dflt)				\
	{ FIO_ENGINE_OPT_(T, nm, typ, field, hlp, dflt, 0, 0, 0) }
/* maxval 1 here too: fio sets a bool's range itself only when it runs a job */
#define FIO_ENGINE_BOOL(T, nm, field, hlp, dflt)				\
	{ FIO_ENGINE_OPT_(T, nm, FIO_OPT_BOOL, field, hlp, dflt, 0, 1, 0) }
#define FIO_ENGINE_RANGE(T, nm, typ, field, hlp, dflt, lo, hi)		\
	{ FIO_ENGINE_OPT_(T, nm, typ, field, hlp, dflt, lo, hi, 0) }
#define FIO_ENGINE_POW2(T, nm, typ, field, hlp, dflt, lo, hi)		\
	{ FIO_ENGINE_OPT_(T, nm, typ, field, hlp, dflt, lo, hi, 1) }
#define FIO_ENGINE_FRAC(T, nm, field, hlp, dflt, lo, hi)			\
	{ FIO_ENGINE_OPT_(T, nm, FIO_OPT_FLOAT_LIST, field, hlp, dflt, 0, 0, 0), \
	  .maxlen = 1, .minfp = lo, .maxfp = hi }
#define FIO_ENGINE_CHOICE(T, nm, field, hlp, dflt, ...)			\
	{ FIO_ENGINE_OPT_(T, nm, FIO_OPT_STR, field, hlp, dflt, 0, 0, 0),	\
	  .posval = { __VA_ARGS__ } }

#define FIO_STORE_OPT_STR(T, m, field, nm, hlp, dflt)			\
	FIO_ENGINE_OPT(T, nm, FIO_OPT_STR_STORE, m.field, hlp, dflt)

#define FIO_STORE_OPTIONS(T, m)						\
	/* its choices: the backends built, filled in at load (fio_store.c) */	\
	{ FIO_ENGINE_OPT_(T, "store", FIO_OPT_STR, m.store,		\
		"Store backend (those this build has)", "posix", 0, 0, 0) },	\
	FIO_STORE_OPT_STR(T, m, ceph_conf, "ceph_conf",			\
		"ceph.conf for cephfs/rbd (default: $CEPH_CONF)", NULL),	\
	FIO_STORE_OPT_STR(T, m, clientname, "clientname",			\
		"Ceph client name, without 'client.'", "admin"),		\
	FIO_STORE_OPT_STR(T, m, pool, "pool",				\
		"RADOS pool of the rbd store", "rbd"),				\
	FIO_STORE_OPT_STR(T, m, rbdname, "rbdname",				\
		"RBD image of the rbd store (created when missing)", "dbfio-store"), \
	FIO_ENGINE_RANGE(T, "rbd_size", FIO_OPT_ULL, m.rbd_size,		\
		"Size of the rbd store image when created (0..1P; 0: never create it)", \
		"4G", 0, 1ull << 50),						\
	FIO_STORE_OPT_STR(T, m, store_root, "store_root",		\
		"cephfs: directory inside CephFS (default /); posix: fio's directory", NULL), \
	FIO_ENGINE_BOOL(T, "lat_table", m.lat_table,			\
		"Time every store call; print the table to stderr at the end", "0"), \
	FIO_STORE_OPT_STR(T, m, lat_json, "lat_json",			\
		"Write the per-call latency table as JSON to this file (implies timing)", NULL)

/*
 * Refuse, with one line, a running fio whose version differs from the one
 * the engine was built against (DBFIO_FIO_VERSION, set by the Makefile).
 */
int fio_store_check_version(const char *engine);

/*
 * What fio 3.33's parser lets through, for any engine's options (td->eo):
 * a FIO_OPT_INT or FIO_OPT_BOOL value outside the option's range (fio
 * compares them as signed ints: with no minimum, -1 or 2^31 is stored
 * wrapped) and a negative number typed for any numeric option (fio splits
 * "-3" at its '-' as a range: it refuses "-3" with an error line, then takes
 * "3" without storing it, and the default stays), and a number followed by
 * anything but the units fio means ("5x", "1m2", "12uss", "5sec": fio takes
 * 5, 1M, 12 us and 5 us). 0, or 1 after one log_err line naming the option,
 * the value as typed and what is expected.
 */
int fio_engine_check_opts(struct thread_data *td, const char *engine);

/*
 * The typed value of one numeric engine option, as fio_engine_check_opts()
 * checks it (a '-', units fio misreads); 0, or 1 after one log_err line.
 * For values that reach fio's parser another way (calibration=, fio_calib.c).
 */
int fio_engine_check_typed(const struct fio_option *o, const char *typed, const char *engine);

/*
 * Setup-time checks in fio's main process: the fio version, the options
 * (fio_engine_check_opts), one directory= (not fio's "a:b"), and forces thread=1 (librados, librbd and
 * libcephfs do not survive fork). Returns 0 or 1 after one log_err line.
 */
int fio_store_setup(struct thread_data *td, const char *engine,
		    const struct store_opts *o);

/*
 * Refuse the two fio modes that run an engine's hooks outside the job's
 * thread (fio 3.33): create_serialize=0 (setup after init, in the job's own
 * process: forked unless thread=1, as setup never got to force it) and
 * io_submit_mode=offload (worker threads run init/queue/cleanup on copies
 * of the job, cleanup with td->eo already freed). Returns 0 or 1 after one
 * log_err line. fio_store_setup() and fio_store_connect() call it; rbdsnap's
 * setup and init do too.
 */
int fio_store_check_modes(struct thread_data *td, const char *engine);

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
 * JSON sidecar (lat_json, through fio_store_sidecar).
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
 * Every end-of-job JSON sidecar of every engine (lat_json, table_json,
 * snap_json, summary_json): written whole or not at all (json_sidecar: a
 * temporary file beside it, then rename) at fio_store_sidecar_path(base).
 * A failure is one stderr line (not log_err: with --output=FILE fio writes
 * its log into the JSON) naming the engine, the option, the path and the
 * cause: "<engine>: <opt>=<path>: <call>(<file>) failed: <cause>".
 * td NULL: a sidecar of something the jobs share (txn's summary_json, one a
 * database), at base as given. 0, or -errno.
 */
int fio_store_sidecar(struct thread_data *td, const char *engine, const char *opt,
		      const char *base, int pretty, json_body_fn body, void *arg);

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
