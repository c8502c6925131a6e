/*
 * metastorm - CREATE/DROP TABLE metadata storms, with a per-syscall table.
 *
 * One io_u is one DDL statement drawn from ddl_mix (create, drop, open,
 * rename), replayed as the file calls MySQL 8.0, MariaDB 10.11 or
 * PostgreSQL 15 make for it (metastorm_ddl.c), through the store layer:
 * store=posix on any mounted file system, store=cephfs through libcephfs.
 * Each statement first spends the database's non-storage time: a client
 * round trip (rtt, slept) and its parse/catalog CPU (cpu_per_stmt, ddl_cpu:
 * burned as thread CPU time; dbtime.c, shared with txn), 0 by default; a
 * calibrated profile sets them (calibration=, from jobs/metastorm-profiles/).
 * Without one a statement is its file calls only: the per-syscall table and
 * the storage's share, which is what several jobs ask, so no profile is not
 * refused here (txn refuses: its tps without one is no database's).
 * fio's latency of an io_u is the whole statement, timed here (fio's
 * fileoperations engines do the same). Every call is counted, and timed
 * unless syscall_table=0, per (DDL type, call) by the store layer, under the
 * phase the recipes set (store_set_phase); the table goes to stderr at the
 * end, the breakdown per DDL type to table_json=FILE.
 *
 * The engine names its own files: a job needs directory= (or store=cephfs
 * store_root=) and number_ios= or runtime=. It refuses to start where a
 * name with its prefix "dbfio_ms_" already exists, and removes only what it
 * made (keep=1 keeps it).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"
#include "optgroup.h"

#include "glue/fio_calib.h"
#include "glue/fio_store.h"
#include "metastorm.h"
#include "redolog/redolog_opts.h"

struct metastorm_options {
	void *pad;	/* fio stores td here; off1 must not be 0 */
	struct store_opts so;
	char *ddl_mix;
	unsigned int flavor;
	unsigned int tables;
	unsigned int init_pages;
	unsigned long long page_size;
	unsigned long long log_bytes;
	unsigned int dirsync;
	unsigned int checkpoint_ops;
	unsigned int keep;
	unsigned int syscall_table;
	char *table_json;
	unsigned long long rtt;		/* usec */
	unsigned long long cpu;		/* usec */
	char *ddl_cpu;
	unsigned long long cpu_ref;	/* ns, the profile's machine (0: none) */
	unsigned int cpu_scale;
	char *calibration;		/* calibration= as typed */
	char calib_id[FIO_CALIB_ID_LEN];	/* the applied profile's identity */
};

#define MS_MAX_STMT_NS	10000000000ull	/* 10 s of CPU or round trip per statement */
#define MS_MAX_STMT_US	(MS_MAX_STMT_NS / 1000)

#define T struct metastorm_options

static int ms_calibration(void *data, const char *value);

static struct fio_option options[] = {
	FIO_STORE_OPTIONS(T, so),
	FIO_CALIB_OPTION(T, calibration, ms_calibration,
		"The round trip and CPU of a real database's DDL: postgres15 or mariadb1011 "
		"(shipped), a profile file written by lab/ddlcalib (a path with a '/'), or none "
		"(the default: file calls only); options after it override it"),
	FIO_ENGINE_OPT(T, "ddl_mix", FIO_OPT_STR_STORE, ddl_mix,
		"DDL mix, op:weight,... of create, drop, open, rename",
		"create:50,drop:30,open:20"),
	FIO_ENGINE_CHOICE(T, "flavor", flavor,
		"Whose DDL: mysql (8.0), mariadb (10.11) or postgres (15)", "mysql",
		{ .ival = "mysql", .oval = MS_MYSQL,
		  .help = "MySQL 8.0 InnoDB file-per-table, redo + binlog" },
		{ .ival = "mariadb", .oval = MS_MARIADB,
		  .help = "MariaDB 10.11: .frm + .ibd, ddl_recovery.log" },
		{ .ival = "postgres", .oval = MS_POSTGRES,
		  .help = "PostgreSQL 15: relation files, WAL, deferred unlink" }),
	FIO_ENGINE_RANGE(T, "tables", FIO_OPT_INT, tables,
		"Tables created before the run (for drop, open, rename)", "16", 0, 1000000),
	FIO_ENGINE_RANGE(T, "init_pages", FIO_OPT_INT, init_pages,
		"Pages written into a new .ibd (0: mysql 7, mariadb 4, postgres none)", "0", 0, 1024),
	FIO_ENGINE_RANGE(T, "page_size", FIO_OPT_ULL, page_size,
		"Database page size (0: 16k for mysql/mariadb, 8k for postgres; else a power of 2 in 4k..64k)",
		"0", 0, 65536),
	FIO_ENGINE_RANGE(T, "log_bytes", FIO_OPT_ULL, log_bytes,
		"Bytes one redo/WAL/binlog record of a DDL appends (0: mysql 2k, mariadb 1k, postgres 16k)",
		"0", 0, 1 << 20),
	FIO_ENGINE_BOOL(T, "dirsync", dirsync,
		"fsync the schema directory after creating or renaming files", "1"),
	FIO_ENGINE_RANGE(T, "checkpoint_ops", FIO_OPT_INT, checkpoint_ops,
		"postgres: checkpoint (unlink dropped files) every N DDL ops", "64", 1, 1000000),
	FIO_ENGINE_BOOL(T, "keep", keep,
		"Keep the tables and logs at the end (the next run then refuses)", "0"),
	FIO_ENGINE_BOOL(T, "syscall_table", syscall_table,
		"Time every call and print the per-syscall table to stderr", "1"),
	FIO_ENGINE_OPT(T, "table_json", FIO_OPT_STR_STORE, table_json,
		"Write the per-DDL-type, per-syscall breakdown as JSON to this file", NULL),
	FIO_ENGINE_RANGE(T, "rtt", FIO_OPT_STR_VAL_TIME, rtt,
		"Client round trip per statement, slept (e.g. 60us; 0: none)", "0", 0, MS_MAX_STMT_US),
	FIO_ENGINE_RANGE(T, "cpu_per_stmt", FIO_OPT_STR_VAL_TIME, cpu,
		"Parse/catalog CPU per statement, burned as thread CPU time (e.g. 500us)", "0",
		0, MS_MAX_STMT_US),
	FIO_ENGINE_OPT(T, "ddl_cpu", FIO_OPT_STR_STORE, ddl_cpu,
		"CPU per DDL type, overriding cpu_per_stmt: create:900us,drop:400us,open:..,rename:..",
		NULL),
	FIO_ENGINE_RANGE(T, "cpu_ref", FIO_OPT_ULL, cpu_ref,
		"The CPU reference figure of the machine the profile was calibrated on: ns of "
		"thread CPU time for a fixed spin (lab/ddlcalib; 0: none, no scaling; 0..1G)",
		"0", 0, 1ull << 30),
	FIO_ENGINE_BOOL(T, "cpu_scale", cpu_scale,
		"Scale cpu_per_stmt and ddl_cpu by this host's reference figure over cpu_ref", "1"),
	{
		.name	= NULL,
	},
};

#undef T

static int ms_calibration(void *data, const char *value)
{
	struct metastorm_options *o = data;

	return fio_calib_apply("metastorm", o, value, options, o->calib_id);
}

/* "create:50,drop:30" -> weights; 0 or one log_err line */
static int parse_mix(const char *s, unsigned int mix[MS_NR_DDL], unsigned int *total)
{
	char *dup, *tok, *save = NULL;
	int ret = 0, i;

	memset(mix, 0, MS_NR_DDL * sizeof(mix[0]));
	*total = 0;
	dup = strdup(s ? s : "");
	if (!dup)
		return 1;
	for (tok = strtok_r(dup, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *end;
		unsigned long w = 1;

		if (colon) {
			*colon = '\0';
			w = strtoul(colon + 1, &end, 10);
			if (end == colon + 1 || *end || w > 1000000) {
				log_err("metastorm: ddl_mix=%s: bad weight for '%s'\n", s, tok);
				ret = 1;
				break;
			}
		}
		for (i = 0; i < MS_NR_DDL; i++)
			if (!strcmp(tok, ms_phase_names[i]))
				break;
		if (i == MS_NR_DDL) {
			log_err("metastorm: ddl_mix=%s: unknown operation '%s' "
				"(create, drop, open, rename)\n", s, tok);
			ret = 1;
			break;
		}
		mix[i] += w;
		*total += w;
	}
	if (!ret && !*total) {
		log_err("metastorm: ddl_mix=%s: no operation with a weight above 0\n", s);
		ret = 1;
	}
	free(dup);
	return ret;
}

/* "900us" -> ns; the unit is required (ns, us, ms, s) */
static int parse_time(const char *v, uint64_t *ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double x = strtod(v, &end);
	unsigned int i;

	if (end == v || x < 0)
		return 1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			*ns = (uint64_t)(x * units[i].ns + 0.5);
			return 0;
		}
	return 1;
}


/* rtt, cpu_per_stmt and ddl_cpu -> md->rtt_ns, md->cpu_ns[]; 0 or one log_err line */
static int parse_dbtime(const struct metastorm_options *o, uint64_t *rtt_ns,
			uint64_t cpu_ns[MS_NR_DDL])
{
	char *dup, *tok, *save = NULL;
	int ret = 0, i;

	*rtt_ns = o->rtt * 1000;
	for (i = 0; i < MS_NR_DDL; i++)
		cpu_ns[i] = o->cpu * 1000;
	if (!o->ddl_cpu || !*o->ddl_cpu)
		return 0;
	dup = strdup(o->ddl_cpu);
	if (!dup)
		return 1;
	for (tok = strtok_r(dup, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		uint64_t ns = 0;

		if (colon)
			*colon = '\0';
		for (i = 0; i < MS_NR_DDL; i++)
			if (!strcmp(tok, ms_phase_names[i]))
				break;
		if (i == MS_NR_DDL || !colon || parse_time(colon + 1, &ns) || ns > MS_MAX_STMT_NS) {
			log_err("metastorm: ddl_cpu=%s: '%s%s%s': want <create|drop|open|rename>:"
				"<time with unit ns, us, ms or s, at most 10s>\n", o->ddl_cpu, tok,
				colon ? ":" : "", colon ? colon + 1 : "");
			ret = 1;
			break;
		}
		cpu_ns[i] = ns;
	}
	free(dup);
	return ret;
}

/*
 * On a posix-like store, refuse when any name with our prefix exists in the
 * directory: the jobs of this run have not made theirs yet (setup runs for
 * every job before any job starts).
 */
static int check_foreign(struct thread_data *td)
{
	const char *dir = td->o.directory && *td->o.directory ? td->o.directory : ".";
	struct dirent *de;
	int ret = 0;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		log_err("metastorm: directory=%s: %s\n", dir, strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, MS_PREFIX, strlen(MS_PREFIX)))
			continue;
		log_err("metastorm: %s/%s exists and was not made by this run (a foreign "
			"file, or a run with keep=1): it is left alone; remove it or use "
			"another directory\n", dir, de->d_name);
		ret = 1;
		break;
	}
	closedir(d);
	return ret;
}

static int check_options(struct thread_data *td, struct metastorm_options *o)
{
	unsigned int mix[MS_NR_DDL], total;
	uint64_t rtt, cpu[MS_NR_DDL];
	unsigned int caps = store_backend_caps(o->so.store);

	/* a synchronous store with real directories */
	if (!(caps & STORE_CAP_NAMESPACE) || (caps & STORE_CAP_ASYNC)) {
		log_err("metastorm: store=%s: DDL is synchronous metadata work; use store=posix "
			"(any mounted fs) or store=cephfs\n", store_backend_name(o->so.store));
		return 1;
	}
	/* fio's direct=1 would open every file O_DIRECT (glue/fio_store.c) */
	if (td->o.odirect) {
		log_err("metastorm: direct=1 is not supported: DDL writes small unaligned log, table "
			"and directory updates through the page cache (O_DIRECT fails them with EINVAL)\n");
		return 1;
	}
	if (parse_mix(o->ddl_mix, mix, &total) || parse_dbtime(o, &rtt, cpu))
		return 1;
	/* "0 or ...": fio's pow2 would refuse the 0 that means the flavor's size */
	if (o->page_size && (o->page_size < 4096 || (o->page_size & (o->page_size - 1)))) {
		log_err("metastorm: page_size=%llu: must be 0 or a power of 2 in 4k..64k\n", o->page_size);
		return 1;
	}
	if (!td->o.size && !td->o.number_ios && !td->o.timeout) {
		log_err("metastorm: give number_ios= or runtime= (or size=, one op per bs)\n");
		return 1;
	}
	return caps & STORE_CAP_LOCAL_DIR ? check_foreign(td) : 0;
}

static int fio_metastorm_setup(struct thread_data *td)
{
	struct metastorm_options *o = td->eo;
	struct fio_file *f;
	unsigned int i;

	if (fio_store_setup(td, "metastorm", &o->so) || check_options(td, o))
		return 1;
	/* a pseudo file fio never touches: its size only bounds fio's offsets */
	for_each_file(td, f, i) {
		f->real_file_size = 1ULL << 50;
		fio_file_set_size_known(f);
	}
	return 0;
}

/*
 * The host's CPU against the profile's (dbtime.h): the same spin the
 * statements burn, measured here once per process, scales what they burn
 * when the profile has a figure and cpu_scale=1; said once per process. A
 * job that burns nothing measures nothing.
 */
static void cpu_scaling(const struct metastorm_options *o, struct ms_data *md)
{
	static int said;
	char line[160];
	int i, any = 0;

	for (i = 0; i < MS_NR_DDL; i++)
		any |= md->cpu_ns[i] != 0;
	md->scale.factor = 1.0;
	if (any)
		dbtime_scale_init(&md->scale, o->cpu_ref, o->cpu_scale, 0);
	for (i = 0; i < MS_NR_DDL; i++)
		md->burn_ns[i] = (uint64_t)(md->cpu_ns[i] * md->scale.factor + 0.5);
	if (!any || __atomic_exchange_n(&said, 1, __ATOMIC_SEQ_CST))
		return;
	dbtime_scale_line(line, sizeof(line), &md->scale);
	fprintf(stderr, "metastorm: cpu: %s\n", line);
}

static int alloc_data(struct ms_data *md, const struct metastorm_options *o,
		      struct thread_data *td)
{
	static const unsigned int def_pages[] = { 7, 4, 0 };
	/*
	 * traced: MariaDB 10.11's redo advances 1067 bytes a DDL write on average
	 * (CREATE's two 1024, DROP's one 1155; written as whole 4 kB blocks on a
	 * 4k disk, a quarter of them 8 kB), PostgreSQL 15's WAL 11-42 kB
	 */
	static const unsigned int def_log[] = { 2048, 1067, 16384 };
	size_t wlen;

	md->flavor = o->flavor;
	/* MariaDB 10.11 decides at start: ib_logfile0 O_DIRECT on a block device */
	md->redo_block = md->flavor == MS_MARIADB ?
		rl_mariadb_store_block(store_backend_caps(o->so.store), td->o.directory) : 0;
	md->page_size = o->page_size ? o->page_size :
			(md->flavor == MS_POSTGRES ? 8192 : 16384);
	md->init_pages = o->init_pages ? o->init_pages : def_pages[md->flavor];
	md->log_bytes = o->log_bytes ? o->log_bytes : def_log[md->flavor];
	md->dirsync = o->dirsync;
	md->ckpt_ops = o->checkpoint_ops;
	md->keep = o->keep;
	md->account = o->syscall_table || (o->table_json && *o->table_json);
	md->rnd = (td->o.rand_seed ? td->o.rand_seed : 0x9e3779b97f4a7c15ULL) +
		  td->thread_number;
	parse_mix(o->ddl_mix, md->mix, &md->mix_total);
	parse_dbtime(o, &md->rtt_ns, md->cpu_ns);
	cpu_scaling(o, md);
	snprintf(md->dir, sizeof(md->dir), MS_PREFIX "%d", td->thread_number);

	/* writes come from the front, reads land behind them */
	wlen = (size_t)md->init_pages * md->page_size;
	if (wlen < (64 << 10))
		wlen = 64 << 10;
	if (wlen < md->log_bytes + 8192)	/* + the blocks a record's ends round to */
		wlen = md->log_bytes + 8192;
	md->buflen = wlen + (md->page_size > 4096 ? md->page_size : 4096);
	/* aligned for the O_DIRECT redo log */
	if (posix_memalign((void **)&md->buf, 4096, md->buflen))
		return 1;
	memset(md->buf, 0, md->buflen);
	snprintf(md->buf, 128, "dbfio metastorm page, job %d", td->thread_number);
	return 0;
}

static void free_data(struct ms_data *md)
{
	free(md->buf);
	free(md->tables);
	free(md->tombs);
	free(md);
}

static int fio_metastorm_init(struct thread_data *td)
{
	struct metastorm_options *o = td->eo;
	struct ms_data *md;
	int ret;

	md = calloc(1, sizeof(*md));
	if (!md)
		return 1;
	if (alloc_data(md, o, td))
		goto err;
	/* the store counts every call per phase, and times them when we account */
	if (fio_store_connect(td, "metastorm", &o->so, td->o.directory, md->account,
			      &md->store))
		goto err;
	if (fio_store_require(td, "metastorm", md->store,
			      STORE_CAP_MKDIR | STORE_CAP_RENAME |
			      (md->flavor == MS_POSTGRES ? STORE_CAP_TRUNCATE : 0)))
		goto err_store;
	ret = store_phases_init(md->store, ms_phase_names, MS_NR_PHASE);
	if (ret) {
		log_err("metastorm: store_phases_init(%d phases): %s\n", MS_NR_PHASE,
			strerror(-ret));
		td_verror(td, -ret, "store_phases_init");
		goto err_store;
	}
	td->io_ops_data = md;
	ret = ms_ddl_setup(md, o->tables);
	if (ret) {
		log_err("metastorm: setup: %s\n", md->err);
		td_verror(td, ret < 0 ? -ret : EIO, "metastorm setup");
		return 1;	/* cleanup() removes what setup made */
	}
	return 0;
err_store:
	store_exit(md->store);
err:
	free_data(md);
	return 1;
}

static enum ms_phase pick_ddl(struct ms_data *md)
{
	uint32_t r = ms_rand(md) % md->mix_total;
	int i;

	for (i = 0; i < MS_NR_DDL - 1; i++) {
		if (r < md->mix[i])
			break;
		r -= md->mix[i];
	}
	return i;
}

static enum fio_q_status fio_metastorm_queue(struct thread_data *td, struct io_u *io_u)
{
	struct ms_data *md = td->io_ops_data;
	enum ms_phase ddl;
	uint64_t t0, ns;
	int ret;

	fio_ro_check(td, io_u);
	if (!ddir_rw(io_u->ddir))
		return FIO_Q_COMPLETED;
	ddl = pick_ddl(md);
	if (ddl != MS_CREATE && !md->ntables)
		ddl = MS_CREATE;	/* nothing to drop, open or alter yet */
	ret = ms_ddl_prepare(md, ddl);
	if (!ret) {
		t0 = latstat_now_ns();
		/* the database's own time first: the client's round trip, parse and catalog */
		if (md->rtt_ns)
			dbtime_round_trip(&md->dt, md->rtt_ns);
		if (md->burn_ns[ddl])
			dbtime_burn(&md->dt, md->burn_ns[ddl]);
		ret = ms_ddl_run(md, ddl);
		ns = latstat_now_ns() - t0;
		md->ops[ddl]++;
		latstat_add(&md->oplat[ddl], ns);
		if (!td->o.disable_lat)
			add_clat_sample(td, io_u->ddir, ns, io_u->xfer_buflen,
					io_u->offset, 0, 0);
	}
	if (!ret && md->flavor == MS_POSTGRES && md->since_ckpt >= md->ckpt_ops)
		ret = ms_ddl_checkpoint(md);
	if (ret) {
		log_err("metastorm: %s: %s\n", ms_phase_names[ms_phase(md)], md->err);
		io_u->error = -ret;
		td_verror(td, io_u->error, "metastorm DDL");
	}
	return FIO_Q_COMPLETED;
}

static void fio_metastorm_cleanup(struct thread_data *td)
{
	struct metastorm_options *o = td->eo;
	struct ms_data *md = td->io_ops_data;

	if (!md)
		return;
	if (ms_ddl_cleanup(md))
		log_err("metastorm: cleanup: %s\n", md->err);
	ms_report(td, md, o->syscall_table, o->table_json);
	fio_store_report(td, "metastorm", &o->so, md->store);
	store_exit(md->store);
	free_data(md);
	td->io_ops_data = NULL;
}

static int fio_metastorm_open_file(struct thread_data *td, struct fio_file *f)
{
	return 0;	/* the pseudo file is never opened: DDL names its own files */
}

static int fio_metastorm_close_file(struct thread_data *td, struct fio_file *f)
{
	return 0;
}

struct ioengine_ops ioengine = {
	.name			= "metastorm",
	.version		= FIO_IOOPS_VERSION,
	.flags			= FIO_SYNCIO | FIO_DISKLESSIO | FIO_NODISKUTIL |
				  FIO_NOSTATS,
	.setup			= fio_metastorm_setup,
	.init			= fio_metastorm_init,
	.cleanup		= fio_metastorm_cleanup,
	.queue			= fio_metastorm_queue,
	.open_file		= fio_metastorm_open_file,
	.close_file		= fio_metastorm_close_file,
	.option_struct_size	= sizeof(struct metastorm_options),
	.options		= options,
};
