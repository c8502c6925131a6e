/*
 * fio_report.h - where an engine's end-of-job table goes.
 *
 * Locally: stderr, so that fio's --output=FILE (which fio's log, log_info
 * and log_err included, is pointed at) stays the JSON users parse.
 * Under fio --server the job runs in the server's backend (is_backend), and
 * the server's stderr stays on the server's host, where nobody reads it.
 * There the table is collected in memory and sent line by line through
 * fio's log: the server hands each line to the client, which prints it as
 * "<host> line" beside its own output (docs/multihost.md).
 *
 *	struct fio_report r;
 *	FILE *f = fio_report_begin(&r);
 *	fprintf(f, ...);			(or latstat_print_table(f, ...))
 *	fio_report_end(&r);
 *
 * Call both from the job's thread (setup, init, cleanup): fio's server
 * knows the connection to the client only there.
 */
#ifndef DBFIO_FIO_REPORT_H
#define DBFIO_FIO_REPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"

struct fio_report {
	FILE *f;	/* the memory stream under fio's backend, else NULL */
	char *buf;
	size_t len;
};

static inline FILE *fio_report_begin(struct fio_report *r)
{
	r->buf = NULL;
	r->len = 0;
	r->f = is_backend ? open_memstream(&r->buf, &r->len) : NULL;
	return r->f ? r->f : stderr;
}

static inline void fio_report_end(struct fio_report *r)
{
	char *p, *nl;

	if (!r->f)
		return;
	fclose(r->f);
	r->f = NULL;
	/* one log line per table line: the client prefixes each with its host */
	for (p = r->buf; p && *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl) {
			log_info("%s\n", p);
			break;
		}
		log_info("%.*s\n", (int)(nl - p), p);
	}
	free(r->buf);
	r->buf = NULL;
}

#endif
