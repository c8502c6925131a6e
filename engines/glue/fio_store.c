/*
 * fio_store.c - fio glue shared by the dbfio engines: what fio's option
 * parser lets through, the store connection in the job's thread, and the
 * per-call latency report.
 * Tables go to stderr and the JSON sidecar, never through fio's log: with
 * --output=FILE fio writes its log into the file users parse as JSON. Under
 * fio --server, where stderr stays on the server, fio_report.h sends them
 * through the log to the client.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fio.h"
#include "fio_time.h"
#include "optgroup.h"

#include "store/json_out.h"
#include "fio_store.h"
#include "fio_report.h"

/*
 * fio exports its version string (it links -rdynamic). Weak: a fio binary
 * without the symbol still loads the engine, the check is then skipped.
 */
#pragma weak fio_version_string

int fio_store_check_version(const char *engine)
{
#ifdef DBFIO_FIO_VERSION
	const char *running = fio_version_string;

	if (!running || !strcmp(running, DBFIO_FIO_VERSION))
		return 0;
	log_err("%s: fio version %s: this engine was built against %s "
		"(struct layouts differ); rebuild it: ./configure && make\n",
		engine, running, DBFIO_FIO_VERSION);
	return 1;
#else
	return 0;
#endif
}

/*
 * store='s choices: the backends this build has, as the store layer says
 * (a new backend needs no edit here). An option table is a C initializer
 * and the engine's .so links its own store layer: this constructor fills
 * the "store" option's posval when fio dlopen()s the engine, before fio
 * reads the table (--enghelp, parsing). rbdsnap has no store option.
 */
extern struct ioengine_ops ioengine;

static const char *backend_about(unsigned int caps)
{
	if (caps & STORE_CAP_IMAGE)
		return "every file in one image (pool=, rbdname=)";
	if (!(caps & STORE_CAP_LOCAL_DIR))
		return "files in its own tree (store_root=)";
	return caps & STORE_CAP_ASYNC ? "files in directory=, asynchronous I/O" :
					"files in directory=, synchronous calls";
}

__attribute__((constructor)) static void fio_store_choices(void)
{
	struct fio_option *o;
	int i, n = 0;

	for (o = ioengine.options; o && o->name && strcmp(o->name, "store"); o++)
		;
	if (!o || !o->name)
		return;
	for (i = 0; i < STORE_NR_BACKENDS && n < PARSE_MAX_VP - 1; i++) {
		if (store_backend_parse(store_backend_name(i)) < 0)
			continue;	/* not built */
		o->posval[n].ival = store_backend_name(i);
		o->posval[n].oval = i;
		o->posval[n].help = backend_about(store_backend_caps(i));
		n++;
	}
}

/* The value typed for option name (the last one fio parsed), or NULL. */
static const char *typed_value(struct thread_data *td, const char *name)
{
	struct flist_head *n;
	const char *v = NULL;

	flist_for_each(n, &td->opt_list) {
		struct print_option *p = flist_entry(n, struct print_option, list);

		if (p->name && !strcmp(p->name, name))
			v = p->value;
	}
	return v;
}

/* Does s, case aside, equal one of the words of list (NULL-terminated)? */
static int one_of(const char *s, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == n && !strncasecmp(s, *list, n))
			return 1;
	return 0;
}

/*
 * What fio 3.33's parser takes from a number: strtoll's digits, then a unit
 * found by a prefix match (parse.c: get_mult_time takes "12uss" as 12 us and
 * "5sec" as 5 us; __get_mult_bytes takes "1m2" as 1M and "5x" as 5), so a
 * typo is silently another number. Here the whole value must be a whole
 * number and, at most, one of the units fio really means; fio's arithmetic
 * "(...)" is left to fio. NULL: fine; else what was expected.
 */
static const char *bad_number(const struct fio_option *o, const char *v)
{
	static const char *const sizes[] = { "b", "k", "kb", "kib", "m", "mb", "mib", "g", "gb",
		"gib", "t", "tb", "tib", "p", "pb", "pib", NULL };
	static const char *const times[] = { "us", "usec", "ms", "msec", "s", "m", "h", "d", NULL };
	int time = o->type == FIO_OPT_STR_VAL_TIME, hex = 0;
	const char *p = v, *u;
	size_t n;

	if (*p == '(')
		return NULL;
	if (o->type == FIO_OPT_BOOL)
		return p[0] && (p[0] == '0' || p[0] == '1') && !p[1] ? NULL : "0 or 1";
	if (!time && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
		hex = 1;
		p += 2;
	}
	for (u = p; hex ? isxdigit((unsigned char)*u) : isdigit((unsigned char)*u); u++)
		;
	n = strlen(u);
	while (n && isspace((unsigned char)u[n - 1]))
		n--;
	if (u > p && (!n || (!hex && one_of(u, n, time ? times : sizes))))
		return NULL;
	if (time)
		return o->is_seconds ? "a whole number and a unit: us, ms, s, m, h or d (none: seconds)" :
				       "a whole number and a unit: us, ms, s, m, h or d (none: microseconds)";
	return o->type == FIO_OPT_INT ? "a whole number (a suffix k, m, g... multiplies it)" :
					"a whole number of bytes, with a suffix k, m, g, t or p if any";
}

int fio_engine_check_opts(struct thread_data *td, const char *engine)
{
	const struct fio_option *o;

	for (o = td->io_ops->options; o && o->name; o++) {
		const char *typed = typed_value(td, o->name);
		unsigned long long max = o->maxval ? o->maxval : UINT_MAX;
		unsigned int v;

		if (o->type == FIO_OPT_INT || o->type == FIO_OPT_BOOL) {
			v = *(unsigned int *)((char *)td->eo + o->off1);
			if (v > max) {
				log_err("%s: %s=%u: at most %llu (typed: %s=%s, which fio's "
					"parser stores wrapped)\n", engine, o->name, v, max,
					o->name, typed ? typed : "?");
				return 1;
			}
		}
		if (typed && fio_engine_check_typed(o, typed, engine))
			return 1;
	}
	return 0;
}

int fio_engine_check_typed(const struct fio_option *o, const char *typed, const char *engine)
{
	const char *want;

	if (o->type != FIO_OPT_INT && o->type != FIO_OPT_BOOL &&
	    o->type != FIO_OPT_ULL && o->type != FIO_OPT_STR_VAL &&
	    o->type != FIO_OPT_STR_VAL_TIME)
		return 0;
	while (isspace((unsigned char)*typed))
		typed++;
	if (*typed == '-') {
		log_err("%s: %s=%s: must not be negative (fio's parser would keep "
			"the default)\n", engine, o->name, typed);
		return 1;
	}
	if ((want = bad_number(o, typed))) {
		log_err("%s: %s=%s: expected %s (fio's parser would take another "
			"number from it)\n", engine, o->name, typed, want);
		return 1;
	}
	return 0;
}

/* fio's directory=a:b spreads a job's files over several directories. */
static int check_directory(struct thread_data *td, const char *engine)
{
	const char *d = td->o.directory, *p;

	for (p = d ? strchr(d, ':') : NULL; p; p = strchr(p + 1, ':'))
		if (p == d || p[-1] != '\\') {
			log_err("%s: directory=%s: this engine takes one directory "
				"(fio's ':' separates several)\n", engine, d);
			td_verror(td, EINVAL, "directory");
			return 1;
		}
	return 0;
}

int fio_store_setup(struct thread_data *td, const char *engine,
		    const struct store_opts *o)
{
	if (fio_store_check_version(engine) || fio_store_check_modes(td, engine) ||
	    fio_engine_check_opts(td, engine) || check_directory(td, engine))
		return 1;
	/* librados, librbd and libcephfs do not survive fork(): run as threads */
	td->o.use_thread = 1;
	return 0;
}

int fio_store_check_modes(struct thread_data *td, const char *engine)
{
	if (!td->o.create_serialize) {
		log_err("%s: create_serialize=0 is not supported: fio would run the engine's "
			"setup after its init, in a forked process unless thread=1 "
			"(librados, librbd and libcephfs do not survive fork)\n", engine);
		return 1;
	}
	if (td->o.io_submit_mode == IO_MODE_OFFLOAD) {
		log_err("%s: io_submit_mode=offload is not supported: fio's workers would run "
			"the engine on copies of the job, each with a store and state of its own\n",
			engine);
		return 1;
	}
	return 0;
}

int fio_store_connect(struct thread_data *td, const char *engine,
		      const struct store_opts *o, const char *root,
		      int timing, struct store **sp)
{
	struct store_config cfg = { 0 };
	unsigned int caps;
	char err[512];
	int ret;

	if (fio_store_check_modes(td, engine))
		return 1;
	cfg.backend = o->store;
	caps = store_backend_caps(cfg.backend);
	/* a directory tree of its own (not this host's directory=) */
	if ((caps & STORE_CAP_NAMESPACE) && !(caps & STORE_CAP_LOCAL_DIR))
		cfg.root = o->store_root && *o->store_root ? o->store_root : "/";
	else
		cfg.root = root && *root ? root : ".";
	cfg.ceph_conf = o->ceph_conf && *o->ceph_conf ? o->ceph_conf : NULL;
	cfg.clientname = o->clientname;
	cfg.pool = o->pool;
	cfg.rbdname = o->rbdname;
	cfg.rbd_size = o->rbd_size;
	cfg.queue_depth = td->o.iodepth > 64 ? td->o.iodepth : 64;
	cfg.direct = td->o.odirect;
	cfg.timing = timing || o->lat_table || (o->lat_json && *o->lat_json);
	cfg.job = td->o.name;

	ret = store_init(sp, &cfg, err, sizeof(err));
	if (ret) {
		log_err("%s: %s\n", engine, err);
		td_verror(td, -ret, "store_init");
		return 1;
	}
	return 0;
}

static const char *cap_name(unsigned int cap)
{
	switch (cap) {
	case STORE_CAP_MKDIR:		return "mkdir";
	case STORE_CAP_RENAME:		return "rename";
	case STORE_CAP_DIRSYNC:		return "directory fsync";
	case STORE_CAP_SYNC_RANGE:	return "sync_file_range";
	case STORE_CAP_ASYNC:		return "asynchronous I/O";
	case STORE_CAP_LINKED_SYNC:	return "linked write+fdatasync";
	case STORE_CAP_DIRECT:		return "O_DIRECT";
	case STORE_CAP_TRUNCATE:	return "truncate";
	}
	return "?";
}

int fio_store_require(struct thread_data *td, const char *engine,
		      const struct store *s, unsigned int caps)
{
	unsigned int missing = caps & ~store_caps(s);
	unsigned int bit;

	if (!missing)
		return 0;
	for (bit = 1; !(missing & bit); bit <<= 1)
		;
	log_err("%s: store=%s cannot do %s, which this job needs\n", engine,
		store_backend_name(s->cfg.backend), cap_name(bit));
	td_verror(td, EOPNOTSUPP, "store capability");
	return 1;
}

void fio_store_sidecar_path(struct thread_data *td, const char *base,
			    char *buf, size_t len)
{
	/* fio sets numjobs = 1 on the clones of a numjobs=N job: they have subjob_number > 0 */
	if (td->o.numjobs > 1 || td->subjob_number > 0)
		snprintf(buf, len, "%s.%d", base, td->thread_number);
	else
		snprintf(buf, len, "%s", base);
}

int fio_store_sidecar(struct thread_data *td, const char *engine, const char *opt,
		      const char *base, int pretty, json_body_fn body, void *arg)
{
	char path[4096], what[4200];
	int r;

	if (td)
		fio_store_sidecar_path(td, base, path, sizeof(path));
	else
		snprintf(path, sizeof(path), "%s", base);
	r = json_sidecar(path, pretty, body, arg, what, sizeof(what));
	if (r)
		/* stderr, not log_err: with --output=FILE fio writes its log into the JSON */
		fprintf(stderr, "%s: %s=%s: %s failed: %s\n", engine, opt, path, what,
			strerror(-r));
	return r;
}

struct lat_sidecar {
	struct thread_data *td;
	const char *engine;
	const struct store *s;
	struct latstat_row *rows;
};

static void lat_json_body(struct json_out *j, void *arg)
{
	struct lat_sidecar *a = arg;

	json_obj_begin(j);
	json_kstr(j, "engine", a->engine);
	json_kstr(j, "job", a->td->o.name);
	json_kstr(j, "store", store_backend_name(a->s->cfg.backend));
	json_key(j, "calls");
	latstat_json(j, a->rows, SOP_NR);
	json_obj_end(j);
}

void fio_store_report(struct thread_data *td, const char *engine,
		      const struct store_opts *o, const struct store *s)
{
	struct latstat_row rows[SOP_NR];
	struct lat_sidecar a = { .td = td, .engine = engine, .s = s, .rows = rows };
	char title[256];

	if (!s || !s->cfg.timing)
		return;
	store_lat_rows(s, rows);
	if (o->lat_table) {
		struct fio_report r;

		snprintf(title, sizeof(title), "%s: store calls (job %s, store=%s)",
			 engine, td->o.name, store_backend_name(s->cfg.backend));
		latstat_print_table(fio_report_begin(&r), title, rows, SOP_NR);
		fio_report_end(&r);
	}
	if (o->lat_json && *o->lat_json)
		fio_store_sidecar(td, engine, "lat_json", o->lat_json, 2, lat_json_body, &a);
}

void fio_store_sync_sample(struct thread_data *td, uint64_t ns)
{
	/*
	 * fio books its own samples only once ramp_time is over; its reset at
	 * the end of the ramp clears the sync histogram but not sync_stat: a
	 * sample taken during the ramp would stay in sync.lat_ns for good.
	 */
	if (in_ramp_time(td))
		return;
	add_sync_clat_sample(&td->ts, ns);
}

void fio_store_no_fio_syncs(struct thread_data *td, const char *engine, const char *why)
{
	if (!td->o.fsync_blocks && !td->o.fdatasync_blocks)
		return;
	/*
	 * fio would complete its fsync=/fdatasync= io_us as no-ops here and book
	 * each as a ~0 ns sync sample among the engine's real flushes.
	 */
	fprintf(stderr, "%s: %s=%u ignored: %s\n", engine,
		td->o.fsync_blocks ? "fsync" : "fdatasync",
		td->o.fsync_blocks ? td->o.fsync_blocks : td->o.fdatasync_blocks, why);
	td->o.fsync_blocks = td->o.fdatasync_blocks = 0;
}
