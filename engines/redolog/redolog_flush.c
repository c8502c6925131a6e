/*
 * redolog_flush.c - the log writer's flush path (engines/redolog/redolog_log.c
 * writes the groups): a group's writes and fdatasyncs as linked requests
 * on backends that link them (uring), the per-file flushes elsewhere, and
 * what happens after a write or flush failed (fsyncgate). Talks to the
 * store layer only.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "store/latstat.h"
#include "redolog.h"

/*
 * Wait until every submitted request (l->inflight) completed; the first
 * failure is the group's. The group's other requests are reaped too even
 * after one failed: a request left in the ring would be completed into
 * l->reqs after rl_log_close freed it.
 */
static int rl_reap_all(struct rl_log *l)
{
	struct store_req *done[16];
	unsigned int i;
	int ret, first = 0;

	while (l->inflight) {
		ret = store_reap(l->s, 1, 16, done, -1);
		if (ret == 0)	/* waited forever and got nothing: a dead backend */
			ret = -EIO;
		if (ret < 0)	/* nothing more comes back: rl_log_close waits, bounded */
			return first ? first : rl_fail(l, ret, "store_reap", "log write");
		l->inflight -= (unsigned int)ret;
		for (i = 0; i < (unsigned int)ret && !first; i++) {
			struct store_req *r = done[i];
			char name[128];

			if (r->result >= 0)
				continue;
			/* rl_put_run keeps the file number in priv */
			rl_file_name(&l->c.g, (uintptr_t)r->priv, name, sizeof(name));
			first = rl_fail(l, (int)r->result, r->flags & SREQ_DATASYNC ?
					"pwrite+fdatasync" : "pwrite", name);
		}
	}
	return first;
}

/* Submit one request; a full queue is emptied first. */
static int rl_submit(struct rl_log *l, struct store_req *r)
{
	int ret = store_submit(l->s, r);

	if (ret == -EBUSY && l->inflight) {
		ret = rl_reap_all(l);
		if (ret)
			return ret;
		ret = store_submit(l->s, r);
	}
	if (ret)
		return rl_fail(l, ret, "store_submit", "log write");
	l->inflight++;
	return 0;
}

/*
 * At close: requests still in the store (a reap that failed) are waited
 * for, bounded, before their buffers go. Returns how many never came back
 * (the caller must not free what they point into).
 */
unsigned int rl_drain(struct rl_log *l)
{
	struct store_req *done[16];
	int ret;

	while (l->inflight) {
		ret = store_reap(l->s, l->inflight < 16 ? l->inflight : 16, 16, done,
				 RL_DRAIN_NS);
		if (ret <= 0)
			break;
		l->inflight -= (unsigned int)ret;
	}
	return l->inflight;
}

/*
 * Linked mode: the last write run of each file carries its fdatasync as a
 * linked pair. io_uring does not order unlinked requests, so the other runs
 * to the same file (a group straddling the wrap of a circular file) are
 * written and reaped first: an fdatasync never starts while a write of its
 * group is still running (what fio's libaio engine does before a sync).
 * *flush_ns is the whole group (writes + linked flushes): a linked pair
 * cannot be split (docs/redolog.md says so).
 */
int rl_linked(struct rl_log *l, unsigned int nreq, uint64_t *flush_ns)
{
	uint64_t t0 = latstat_now_ns();
	unsigned int i, j;
	int ret = 0, reaped, pass;

	for (i = 0; i < nreq; i++) {
		for (j = i + 1; j < nreq && l->reqs[j].file != l->reqs[i].file; j++)
			;
		l->reqs[i].flags = j == nreq ? SREQ_DATASYNC : 0;
	}
	for (pass = 0; pass < 2 && !ret; pass++) {
		for (i = 0; i < nreq && !ret; i++) {
			/* pass 0: runs without the file's fdatasync; pass 1: with it */
			if (!!(l->reqs[i].flags & SREQ_DATASYNC) != pass)
				continue;
			ret = rl_submit(l, &l->reqs[i]);
		}
		/* what was submitted comes back before the group fails or goes on */
		reaped = rl_reap_all(l);
		ret = ret ? ret : reaped;
	}
	if (ret)
		return ret;
	memset(l->dirty, 0, l->nslots);
	l->st.flushes++;
	l->durable_lsn = l->written_lsn;
	l->last_flush_ns = latstat_now_ns();
	*flush_ns = latstat_now_ns() - t0;
	return 0;
}

int rl_flush_files(struct rl_log *l, uint64_t *flush_ns)
{
	uint64_t t0 = latstat_now_ns();
	unsigned int i;
	char name[128];
	int ret, any = 0;

	*flush_ns = 0;
	for (i = 0; i < l->nslots; i++) {
		if (!l->dirty[i])
			continue;
		ret = l->c.flush == RL_FLUSH_FSYNC ? store_fsync(l->s, l->fh[i]) :
						     store_fdatasync(l->s, l->fh[i]);
		if (ret) {
			rl_file_name(&l->c.g, l->fh_no[i], name, sizeof(name));
			return rl_fail(l, ret, "flush", name);
		}
		if (l->trace) {
			rl_file_name(&l->c.g, l->fh_no[i], name, sizeof(name));
			fprintf(l->trace, "F %s\n", name);
		}
		l->dirty[i] = 0;
		any = 1;
	}
	if (any) {
		l->st.flushes++;
		*flush_ns = latstat_now_ns() - t0;
	}
	l->durable_lsn = l->written_lsn;
	l->last_flush_ns = latstat_now_ns();
	return 0;
}

/*
 * fsyncgate: after a failed write or flush, Linux may report the next fsync
 * of the file as a success although the pages it failed to write are gone
 * (marked clean). PostgreSQL and InnoDB stop there; so does the log: every
 * later group fails with the first error and nothing is acknowledged again,
 * not even by the flush of a clean shutdown.
 */
static int rl_failed(struct rl_log *l, int ret)
{
	if (!l->failed) {
		l->failed = ret;
		memcpy(l->failed_why, l->err, sizeof(l->failed_why));
		l->failed_why[sizeof(l->failed_why) - 1] = '\0';
	} else
		snprintf(l->err, sizeof(l->err), "log unusable since an earlier failure: %s",
			 l->failed_why);
	return l->failed;
}

int rl_log_write(struct rl_log *l, int flush, uint64_t *flush_ns)
{
	int ret;

	*flush_ns = 0;
	ret = l->failed ? l->failed : rl_write_group(l, flush, flush_ns);
	return ret ? rl_failed(l, ret) : 0;
}

int rl_log_flush(struct rl_log *l, uint64_t *flush_ns)
{
	int ret;

	*flush_ns = 0;
	ret = l->failed ? l->failed : rl_flush_files(l, flush_ns);
	return ret ? rl_failed(l, ret) : 0;
}
