/*
 * pgpage_dblwr.c - the checkpointer's InnoDB doublewrite, for txn's
 * mysql/mariadb flavors: before a batch of up to PG_DBLWR_BATCH page writes,
 * the batch goes to the doublewrite file (conf.dblwr_name) in writes of
 * PG_DBLWR_BLOCK pages from offset 0 (the doublewrite buffer's two 64-page
 * blocks), then the file is synced, as MariaDB 10.11's
 * buf_dblwr_t::flush_buffered_writes does before the pages go to their
 * tablespaces. Contents are not modelled: the blocks are zeros.
 */
#include <fcntl.h>
#include <string.h>

#include "pgpage.h"

int pg_ckpt_doublewrite(struct pg_ckpt *ck, uint64_t n)
{
	const char *call = "open";
	uint64_t k, off = 0;
	ssize_t r;
	int ret;

	if (!ck->dw && (ret = store_open(ck->store, ck->conf.dblwr_name, O_RDWR | O_CREAT, 0640,
					 PG_DBLWR_BATCH * ck->g->bs, &ck->dw)))
		goto fail;
	call = "pwrite";
	for (; n; n -= k, off += k * ck->g->bs) {
		k = n < PG_DBLWR_BLOCK ? n : PG_DBLWR_BLOCK;
		r = store_pwrite(ck->store, ck->dw, ck->dwbuf, k * ck->g->bs, off);
		if (r < 0) {
			ret = (int)r;
			goto fail;
		}
		ck->dblwr_pages += k;
	}
	call = ck->conf.dblwr_sync == 2 ? "fdatasync" : "fsync";
	ret = ck->conf.dblwr_sync == 2 ? store_fdatasync(ck->store, ck->dw) :
		store_fsync(ck->store, ck->dw);
	if (!ret) {
		ck->dblwr_syncs++;
		return 0;
	}
fail:
	pthread_mutex_lock(&ck->lock);
	if (!ck->error) {
		ck->error = ret;
		snprintf(ck->errmsg, sizeof(ck->errmsg), "checkpointer: doublewrite %s(%s) failed: %s",
			 call, ck->conf.dblwr_name, strerror(-ret));
		atomic_store(&ck->error_hint, 1);
	}
	pthread_mutex_unlock(&ck->lock);
	return ret;
}
