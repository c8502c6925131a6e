/*
 * txn_pool_test.c - the txn buffer pool's dirty flag, driven directly.
 * Description: a page changed right after the checkpointer wrote it stays dirty (and in the next checkpoint's set); a failed eviction write leaves its page dirty in the pool
 *
 *	./txn_pool_test --dir=DIR
 *
 * The pool (txn_pool.c) and a real checkpointer thread (pgpage_ckpt.c) run
 * over a posix store in DIR, wired as txn_db.c wires them. The sources are
 * compiled in here: the unit programs link the store layer only.
 *
 * redirty: the checkpointer's "written" callback first changes the page
 * again, as a connection does in the moment between the checkpoint's pwrite
 * and the pool hearing of it, then tells the pool the page was written. The
 * page must still be dirty afterwards, and in the checkpointer's set for the
 * next checkpoint: marked clean, the change is never written.
 *
 * evict: a pool of two frames whose segment handle is read-only, so that
 * the eviction write of a dirty page fails (EBADF). The access must fail
 * with that error and the page must still be in the pool, dirty, and in the
 * checkpointer's set: the write did not happen.
 *
 * Exit 0 pass, 1 fail, 77 skip: tests/unit/check.h.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "txn/txn_pool.c"
#include "pgpage/pgpage_ckpt.c"
#include "pgpage/pgpage_dblwr.c"
#include "check.h"

#define PAGE	5

static struct pg_geom geom = {
	.bs = 8192, .pages_per_seg = 64, .rel_pages = 64, .max_pages = 64,
	.segs_per_rel = 1, .relations = 1, .relfilenode = 16384, .nsegs = 1,
};

struct ctx {
	struct txn_pool pool;
	struct txn_io io;		/* the connection's (test thread) */
	int changed_after_write;	/* the written callback dirties the page first */
	unsigned int written;
};

/* As txn_db.c's ckpt_writing / ckpt_written (one segment: gpage = page). */
static void hook_writing(void *arg, unsigned int idx, uint64_t page)
{
	txn_pool_writing(&((struct ctx *)arg)->pool, page);
}

static void hook_written(void *arg, unsigned int idx, uint64_t page)
{
	struct ctx *c = arg;

	c->written++;
	/* a connection's UPDATE of the page: a hit, no I/O */
	if (c->changed_after_write)
		CHECK(txn_pool_access(&c->pool, &c->io, page, 1, 0, NULL) == 1, "page %llu: not a hit",
		      (unsigned long long)page);
	txn_pool_cleaned(&c->pool, page);
}

static int start(struct ctx *c, struct store *s, const struct store_config *cfg,
		 uint32_t frames, struct pg_ckpt **ck)
{
	struct pg_ckpt_conf conf = {
		.target = 0.5, .no_reread = 1,
		.writing = hook_writing, .written = hook_written, .written_arg = c,
	};
	char err[256];

	memset(c, 0, sizeof(*c));
	EXPECT(!txn_pool_init(&c->pool, frames, &geom, 0), "txn_pool_init");
	EXPECT(!txn_io_init(&c->io, s, &geom), "txn_io_init");
	EXPECT(!pg_ckpt_start(ck, &geom, &conf, cfg, err, sizeof(err)), "pg_ckpt_start: %s", err);
	c->pool.ck = *ck;
	return 0;
}

static void stop(struct ctx *c, struct pg_ckpt *ck)
{
	c->pool.ck = NULL;
	pg_ckpt_free(ck);
	txn_io_free(&c->io);
	txn_pool_free(&c->pool);
}

static int in_cur_set(struct pg_ckpt *ck, uint64_t page)
{
	return ck->cur->bits[0] && (ck->cur->bits[0][page / 64] & (1ull << (page % 64)));
}

static int frame_dirty(struct txn_pool *p, uint64_t page)
{
	int32_t v = lookup(p, page);

	return v < 0 ? -1 : p->f[v].dirty;
}

static int redirty(struct store *s, const struct store_config *cfg)
{
	struct pg_ckpt *ck;
	struct ctx c;

	if (start(&c, s, cfg, 16, &ck))
		return T_EXIT_FAIL;
	EXPECT(txn_pool_access(&c.pool, &c.io, PAGE, 1, 0, NULL) == 0, "first access: %s", c.io.err);
	c.changed_after_write = 1;
	pg_ckpt_request(ck, "test");
	pg_ckpt_stop(ck, 0);		/* a pending request runs before the thread ends */
	EXPECT(c.written == 1, "the checkpoint wrote %u pages, expected 1 (%s)", c.written, ck->errmsg);
	EXPECT(frame_dirty(&c.pool, PAGE) == 1,
	       "page %d changed right after the checkpoint's write is marked clean: the change "
	       "is lost (dirty=%d)", PAGE, frame_dirty(&c.pool, PAGE));
	EXPECT(in_cur_set(ck, PAGE), "page %d is dirty but in no checkpoint's set", PAGE);
	stop(&c, ck);
	printf("redirty: page changed after the checkpoint's write stays dirty, in the next set\n");
	return 0;
}

static int evict(struct store *s, const struct store_config *cfg)
{
	struct pg_ckpt *ck;
	struct ctx c;
	char name[64];
	int ret;

	if (start(&c, s, cfg, 2, &ck))
		return T_EXIT_FAIL;
	pg_seg_name(&geom, 0, name, sizeof(name));
	EXPECT(!store_open(s, name, O_RDONLY | O_CREAT, 0600, 0, &c.io.files[0]),
	       "open %s read-only", name);
	EXPECT(txn_pool_access(&c.pool, &c.io, 1, 1, 0, NULL) == 0, "page 1: %s", c.io.err);
	EXPECT(txn_pool_access(&c.pool, &c.io, 2, 0, 0, NULL) == 0, "page 2: %s", c.io.err);
	/* both frames used: page 3 evicts page 1 (the clock's first), whose write fails */
	ret = txn_pool_access(&c.pool, &c.io, 3, 0, 0, NULL);
	EXPECT(ret == -EBADF, "page 3: %d, expected -EBADF from the eviction write (%s)", ret, c.io.err);
	EXPECT(strstr(c.io.err, "pwrite("), "the error names no pwrite: %s", c.io.err);
	EXPECT(frame_dirty(&c.pool, 1) == 1,
	       "page 1's eviction write failed but the page is %s",
	       frame_dirty(&c.pool, 1) < 0 ? "gone from the pool" : "clean");
	EXPECT(in_cur_set(ck, 1), "page 1 is dirty but in no checkpoint's set");
	EXPECT(frame_dirty(&c.pool, 3) < 0, "page 3 is in the pool though it was never read");
	EXPECT(c.pool.st.evict_writes == 0, "a failed eviction counted as written");
	stop(&c, ck);
	printf("evict: failed eviction write left page 1 dirty (%s)\n", c.io.err);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = { { "dir", required_argument, NULL, 'd' }, { 0 } };
	struct store_config cfg = { .backend = STORE_POSIX };
	struct store *s;
	char err[256];
	int opt;

	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1)
		if (opt == 'd')
			cfg.root = optarg;
	if (!cfg.root) {
		fprintf(stderr, "usage: %s --dir=DIR\n", argv[0]);
		return T_EXIT_FAIL;
	}
	if (store_init(&s, &cfg, err, sizeof(err))) {
		printf("FAIL: store_init: %s\n", err);
		return T_EXIT_FAIL;
	}
	if (redirty(s, &cfg) || evict(s, &cfg))
		return T_EXIT_FAIL;
	store_exit(s);
	return t_finish("txn_pool_test");
}
