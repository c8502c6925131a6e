/*
 * pgpage_files.c - the pgpage engine's relation files: their geometry (in
 * 64 bits, impossible values refused), which segment files are dbfio's (the
 * ownership marker, owner.h), opening them on first use, reserving them up
 * front on store=rbd, and removing them for unlink=1.
 * No fio headers: errors come back as -errno with pf->err naming the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgpage.h"

#define GEOM_ERR(...) do { snprintf(err, errlen, __VA_ARGS__); return -EINVAL; } while (0)

/* The sizes' products: every one in 64 bits, bounded before it is narrowed. */
static int geom_sizes(const struct pg_geom_in *in, uint64_t lim, struct pg_geom *g,
		      char *err, size_t errlen)
{
	uint64_t spr;

	if (in->relation_size > UINT64_MAX / in->relations || lim > UINT64_MAX / in->relations)
		GEOM_ERR("relation_size=%llu: relations=%u x the relation size exceeds 2^64 bytes",
			 (unsigned long long)in->relation_size, in->relations);
	if ((uint64_t)in->relfilenode + in->relations - 1 > UINT32_MAX)
		GEOM_ERR("relfilenode=%u: relfilenode + relations exceeds 2^32 (an OID)", in->relfilenode);
	g->bs = in->block_size;
	g->pages_per_seg = in->segment_size / in->block_size;
	if (g->pages_per_seg > (1ull << 31))	/* dirty-page counts are 32 bits per segment */
		GEOM_ERR("segment_size=%llu: more than 2^31 pages of block_size=%llu",
			 (unsigned long long)in->segment_size, (unsigned long long)in->block_size);
	g->rel_pages = in->relation_size / in->block_size;
	g->max_pages = lim / in->block_size;
	spr = (g->max_pages + g->pages_per_seg - 1) / g->pages_per_seg;
	if (spr > 1000000 || spr * in->relations > 1000000)
		GEOM_ERR("segment_size=%llu: %llu segment files, more than 1000000",
			 (unsigned long long)in->segment_size,
			 (unsigned long long)(spr > 1000000 ? spr : spr * in->relations));
	g->segs_per_rel = spr;
	g->relations = in->relations;
	g->relfilenode = in->relfilenode;
	g->nsegs = spr * in->relations;
	return 0;
}

int pg_geom_build(const struct pg_geom_in *in, struct pg_geom *g, char *err, size_t errlen)
{
	uint64_t lim;

	memset(g, 0, sizeof(*g));
	if (in->segment_size < in->block_size || in->segment_size % in->block_size)
		GEOM_ERR("segment_size=%llu: smaller than or not a multiple of block_size=%llu",
			 (unsigned long long)in->segment_size, (unsigned long long)in->block_size);
	if (in->relation_size < in->block_size || in->relation_size % in->block_size)
		GEOM_ERR("relation_size=%llu: not a multiple of block_size=%llu",
			 (unsigned long long)in->relation_size, (unsigned long long)in->block_size);
	lim = in->extend_limit ? in->extend_limit : in->relation_size;
	if (!in->extend_limit && in->extend_ratio)	/* 2 x relation_size, as far as 64 bits go */
		lim = in->relation_size > UINT64_MAX / 2 ?
			UINT64_MAX / in->block_size * in->block_size : 2 * in->relation_size;
	if (lim < in->relation_size || lim % in->block_size)
		GEOM_ERR("extend_limit=%llu: below relation_size or not a multiple of block_size",
			 (unsigned long long)in->extend_limit);
	return geom_sizes(in, lim, g, err, errlen);
}

static int pf_fail(struct pg_files *pf, int ret, const char *call, const char *name)
{
	snprintf(pf->err, sizeof(pf->err), "%s(%s) failed: %s", call, name, strerror(-ret));
	return ret;
}

/*
 * A relation's files are created only where dbfio made them: every segment
 * of every relation not claimed yet must be absent (all checked before any
 * claim, so a refused run leaves nothing), then each relation is claimed as
 * "<relfilenode>.*" and the claims made durable before any file exists.
 */
static int pf_claim(struct pg_files *pf)
{
	const struct pg_geom *g = pf->g;
	char name[64], line[72];
	unsigned int r, k, pass;
	int ret = 0;

	for (pass = 0; !ret && pass < 2; pass++) {
		for (r = 0; !ret && r < g->relations; r++) {
			pg_seg_name(g, pg_seg_index(g, r, 0), name, sizeof(name));
			snprintf(line, sizeof(line), "%s.*", name);
			for (k = 0; !ret && !pass && !owner_claimed(&pf->own, name) &&
			     k < g->segs_per_rel; k++) {
				pg_seg_name(g, pg_seg_index(g, r, k), name, sizeof(name));
				ret = owner_check(&pf->own, name);
			}
			if (pass)	/* already claimed: still ours to remove with unlink=1 */
				ret = owner_claim_set(&pf->own, line, NULL, 0, 0);
		}
	}
	if (!ret)
		ret = owner_sync(&pf->own);
	if (ret)
		snprintf(pf->err, sizeof(pf->err), "%s", pf->own.err);
	return ret;
}

int pg_files_init(struct pg_files *pf, struct store *s, const struct pg_geom *g)
{
	int ret;

	memset(pf, 0, sizeof(*pf));
	pf->store = s;
	pf->g = g;
	pf->files = calloc(g->nsegs, sizeof(*pf->files));
	if (!pf->files) {
		snprintf(pf->err, sizeof(pf->err), "out of memory");
		return -ENOMEM;
	}
	ret = owner_init(&pf->own, s);
	if (ret) {
		snprintf(pf->err, sizeof(pf->err), "%s", pf->own.err);
		return ret < 0 ? ret : -EIO;
	}
	return pf_claim(pf);
}

int pg_files_open(struct pg_files *pf, unsigned int idx)
{
	char name[64];
	int ret;

	if (pf->files[idx])
		return 0;
	pg_seg_name(pf->g, idx, name, sizeof(name));
	ret = store_open(pf->store, name, O_RDWR | O_CREAT, 0600,
			 pg_seg_bytes(pf->g, idx), &pf->files[idx]);
	return ret ? pf_fail(pf, ret, "open", name) : 0;
}

int pg_files_reserve(struct pg_files *pf, unsigned int *failed)
{
	unsigned int i;
	int ret;

	for (i = 0; i < pf->g->nsegs; i++) {
		ret = pg_files_open(pf, i);
		if (ret) {
			*failed = i;
			return ret;
		}
	}
	return 0;
}

void pg_files_close(struct pg_files *pf)
{
	unsigned int i;

	for (i = 0; pf->files && i < pf->g->nsegs; i++) {
		if (pf->files[i])
			store_close(pf->store, pf->files[i]);
		pf->files[i] = NULL;
	}
}

int pg_files_unlink(struct pg_files *pf)
{
	char name[64];
	unsigned int i;
	int ret;

	pg_files_close(pf);
	for (i = 0; i < pf->g->nsegs; i++) {
		pg_seg_name(pf->g, i, name, sizeof(name));
		ret = owner_claimed(&pf->own, name) ? store_unlink(pf->store, name) : 0;
		if (ret && ret != -ENOENT)
			return pf_fail(pf, ret, "unlink", name);
	}
	ret = owner_release(&pf->own);
	if (ret)
		snprintf(pf->err, sizeof(pf->err), "%s", pf->own.err);
	return ret;
}

void pg_files_exit(struct pg_files *pf)
{
	pg_files_close(pf);
	owner_exit(&pf->own);
	free(pf->files);
	pf->files = NULL;
}
