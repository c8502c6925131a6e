/*
 * metastorm_report.c - the per-syscall table (stderr, in the shape of the
 * strace tables of seed 000: one row per call, its count and times) and the
 * JSON sidecar with the same breakdown per DDL type and phase. The counts and
 * latencies per phase are the store layer's (store_phase_counts/_lat); this
 * file only picks the rows. Never through fio's log: with --output=FILE that
 * is the JSON users parse.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"

#include "glue/fio_report.h"
#include "glue/fio_store.h"
#include "store/json_out.h"
#include "metastorm.h"

static const char *const flavor_names[] = { "mysql", "mariadb", "postgres" };

const char *const ms_phase_names[MS_NR_PHASE] = {
	[MS_CREATE]	= "create",
	[MS_DROP]	= "drop",
	[MS_OPEN]	= "open",
	[MS_RENAME]	= "rename",
	[MS_SETUP]	= "setup",
	[MS_ALTER_COPY]	= "alter_copy",
	[MS_CHECKPOINT]	= "checkpoint",
	[MS_CLEANUP]	= "cleanup",
};

/* The rows of the table, in its order; named by store_op_name() */
const enum store_op ms_calls[MC_NR] = {
	SOP_OPEN, SOP_CLOSE, SOP_FSYNC, SOP_FDATASYNC, SOP_WRITE, SOP_READ, SOP_UNLINK,
	SOP_RENAME, SOP_MKDIR, SOP_FSTAT, SOP_TRUNCATE, SOP_RMDIR, SOP_SIZE, SOP_FALLOCATE,
	SOP_STAT, SOP_ACCESS,
};

/* rows of one phase (or of a merged set), ls indexed by store op */
static void call_rows(struct latstat_row rows[MC_NR], const struct latstat *ls)
{
	int c;

	for (c = 0; c < MC_NR; c++) {
		rows[c].name = store_op_name(ms_calls[c]);
		rows[c].ls = &ls[ms_calls[c]];
	}
}

static uint64_t phase_count(const struct ms_data *md, int phase, int c)
{
	const uint64_t *n = store_phase_counts(md->store, phase);

	return n ? n[ms_calls[c]] : 0;
}

static void print_tables(struct thread_data *td, struct ms_data *md,
			 const struct latstat *total)
{
	struct latstat_row rows[MC_NR + MS_NR_PHASE];
	uint64_t nops = 0;
	struct fio_report r;
	FILE *f = fio_report_begin(&r);
	char title[256];
	int p;

	for (p = 0; p < MS_NR_DDL; p++)
		nops += md->ops[p];
	for (p = 0; p < MS_NR_DDL; p++) {
		rows[p].name = ms_phase_names[p];
		rows[p].ls = &md->oplat[p];
	}
	snprintf(title, sizeof(title), "metastorm: DDL statements (job %s, flavor=%s, "
		 "store=%s): %llu ops", td->o.name, flavor_names[md->flavor],
		 store_backend_name(md->store->cfg.backend), (unsigned long long)nops);
	latstat_print_table(f, title, rows, MS_NR_DDL);
	if (md->dt.rtt_due_ns || md->dt.cpu_ns) {
		fprintf(f, "metastorm: non-storage time in the statements above: rtt %lluus; cpu",
			(unsigned long long)md->rtt_ns / 1000);
		for (p = 0; p < MS_NR_DDL; p++)
			fprintf(f, " %s %lluus", ms_phase_names[p],
				(unsigned long long)md->cpu_ns[p] / 1000);
		if (md->scale.factor != 1.0)
			fprintf(f, "; x%.3f for this host's CPU (cpu_ref)", md->scale.factor);
		fprintf(f, "; slept %.3f ms, burned %.3f ms of thread CPU\n",
			md->dt.rtt_ns / 1e6, md->dt.cpu_ns / 1e6);
	}

	call_rows(rows, total);
	snprintf(title, sizeof(title), "metastorm: syscalls of all DDL statements (job %s)",
		 td->o.name);
	latstat_print_table(f, title, rows, MC_NR);
	for (p = 0; p < MS_NR_DDL; p++) {
		if (!md->ops[p])
			continue;
		call_rows(rows, store_phase_lat(md->store, p));
		snprintf(title, sizeof(title), "metastorm: syscalls of %s (%llu ops)",
			 ms_phase_names[p], (unsigned long long)md->ops[p]);
		latstat_print_table(f, title, rows, MC_NR);
	}
	fprintf(f, "metastorm: not in the tables above (no io_u pays for them):");
	for (p = MS_NR_DDL; p < MS_NR_PHASE; p++) {
		uint64_t n = 0;
		int c;

		for (c = 0; c < MC_NR; c++)
			n += phase_count(md, p, c);
		fprintf(f, " %s %llu calls%s", ms_phase_names[p], (unsigned long long)n,
			p + 1 < MS_NR_PHASE ? "," : "\n");
	}
	fio_report_end(&r);
}

static void json_counts(struct json_out *j, const char *key, const uint64_t *count)
{
	int c;

	json_kobj(j, key);
	for (c = 0; c < MC_NR; c++)
		json_kuint(j, store_op_name(ms_calls[c]), count[c]);
	json_obj_end(j);
}

static void json_phase(struct json_out *j, const char *name, uint64_t ops,
		       const uint64_t *count, const struct latstat *lat,
		       const struct latstat *oplat)
{
	struct latstat_row rows[MC_NR];

	json_kobj(j, name);
	json_kuint(j, "ops", ops);
	json_counts(j, "counts", count);
	if (oplat) {
		struct latstat_row op = { .name = "statement", .ls = oplat };

		json_key(j, "latency");
		latstat_json(j, &op, 1);
	}
	if (lat) {
		call_rows(rows, lat);
		json_key(j, "calls");
		latstat_json(j, rows, MC_NR);
	}
	json_obj_end(j);
}

struct table_sidecar {
	struct thread_data *td;
	struct ms_data *md;
	const struct latstat *total;
};

static void table_json_body(struct json_out *j, void *arg)
{
	uint64_t ddl_count[MC_NR] = { 0 }, all_count[MC_NR] = { 0 }, nops = 0;
	struct table_sidecar *a = arg;
	struct thread_data *td = a->td;
	struct ms_data *md = a->md;
	const struct latstat *total = a->total;
	int p, c;

	for (p = 0; p < MS_NR_PHASE; p++)
		for (c = 0; c < MC_NR; c++) {
			all_count[c] += phase_count(md, p, c);
			if (p < MS_NR_DDL)
				ddl_count[c] += phase_count(md, p, c);
		}
	for (p = 0; p < MS_NR_DDL; p++)
		nops += md->ops[p];
	json_obj_begin(j);
	json_kstr(j, "engine", "metastorm");
	json_kstr(j, "job", td->o.name);
	json_kstr(j, "flavor", flavor_names[md->flavor]);
	json_kstr(j, "store", store_backend_name(md->store->cfg.backend));
	json_kbool(j, "timed", total != NULL);
	json_kobj(j, "phases");
	for (p = 0; p < MS_NR_PHASE; p++) {
		uint64_t count[MC_NR];

		for (c = 0; c < MC_NR; c++)
			count[c] = phase_count(md, p, c);
		json_phase(j, ms_phase_names[p], md->ops[p], count,
			   store_phase_lat(md->store, p), p < MS_NR_DDL ? &md->oplat[p] : NULL);
	}
	json_obj_end(j);
	json_kobj(j, "nonstorage");
	json_kuint(j, "rtt_ns", md->rtt_ns);
	json_kobj(j, "cpu_ns");
	for (p = 0; p < MS_NR_DDL; p++)
		json_kuint(j, ms_phase_names[p], md->cpu_ns[p]);
	json_obj_end(j);
	json_kobj(j, "cpu");
	dbtime_scale_json(j, &md->scale);
	json_obj_end(j);
	json_kuint(j, "rtt_slept_ns", md->dt.rtt_ns);
	json_kuint(j, "cpu_burned_ns", md->dt.cpu_ns);
	json_obj_end(j);
	json_phase(j, "ddl", nops, ddl_count, total, NULL);
	json_kobj(j, "all");
	json_counts(j, "counts", all_count);
	json_obj_end(j);
	json_obj_end(j);
}

void ms_report(struct thread_data *td, struct ms_data *md, int table,
	       const char *json_path)
{
	struct latstat *total = NULL;
	struct table_sidecar a = { .td = td, .md = md };
	int p, c;

	if (store_phase_lat(md->store, 0)) {
		/* all DDL types merged (indexed by store op): once, at the end */
		total = calloc(SOP_NR, sizeof(*total));
		if (!total)
			return;
		for (c = 0; c < SOP_NR; c++) {
			latstat_reset(&total[c]);
			for (p = 0; p < MS_NR_DDL; p++)
				latstat_merge(&total[c], &store_phase_lat(md->store, p)[c]);
		}
	}
	if (table && total)
		print_tables(td, md, total);
	a.total = total;
	/* a line per phase member; a call's row on one */
	if (json_path && *json_path)
		fio_store_sidecar(td, "metastorm", "table_json", json_path, 3, table_json_body, &a);
	free(total);
}
