/*
 * store_rbd_table.c - the rbd backend's shared state and extent table: the
 * process's cluster connection, the open image (created when asked) and the
 * table of files at its start, read and checked at open, written entry by
 * entry; extent allocation, the free list and the high-water mark. The
 * layout is in store_rbd.h, the store_ops in store_rbd.c.
 *
 * librados and librbd handles are shared by the threads of a process: the
 * cluster client comes from ceph_conn.c (one per cluster and client, with
 * its timeout policy), one open image (and its table) per client and
 * pool/image, both refcounted, as fio's rbd engine shares its cluster handle. The table is
 * read once, at open, and extents come from a bump pointer in memory: one
 * process per image, which an advisory exclusive lock (rbd lock ls) makes
 * sure of. Its cookie names the holder (store_holder_self); a holder of this
 * host that is gone is broken at once, one of another host is only named
 * (`rbd lock rm` when it is known dead). An image we create has the layering
 * feature only (no exclusive-lock or object-map round trips). An image it
 * did not create is adopted only with dbfio's table at its start, or when
 * librbd lists no allocated extent in it (never written): anything else is
 * somebody's data, refused untouched.
 *
 * open(O_CREAT) reserves an extent of size_hint bytes, rounded up to 4 MiB;
 * without a hint, 64 MiB, or the largest extent left when that does not fit.
 * A freed extent is reused by a later file that fits. Its old bytes are not
 * visible: reads stop at the file's size, and a write or truncate that
 * leaves a hole zeroes the part of the hole below the extent's high-water
 * mark (hw: bytes at or above it were never written; hw reaches the table
 * with the size, so after a crash, data never fsynced may show in such a
 * hole).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_rbd.h"

/* The process's open images (each on its shared client, ceph_conn.h). */
static struct {
	pthread_mutex_t lock;
	struct rbds_image *images;
} rbds_proc = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Write table bytes [off, off + len) from memory; TAB_FLUSH makes them durable. */
static int tab_write(struct rbds_image *im, uint64_t off, size_t len, int flags)
{
	ssize_t ret;

	ret = rbd_write(im->img, off, len, im->tab + off);
	if (ret >= 0 && (size_t)ret != len)
		ret = -EIO;
	if (ret >= 0 && (flags & TAB_FLUSH))
		ret = rbd_flush(im->img);
	return ret < 0 ? (int)ret : 0;
}

int rbds_tab_store(struct rbds_image *im, unsigned int lo, unsigned int hi, int flags)
{
	uint64_t off = RBD_HDR_BYTES + (uint64_t)lo * sizeof(struct rbds_ent);
	size_t len = (size_t)(hi - lo + 1) * sizeof(struct rbds_ent);
	int ret;

	ret = tab_write(im, off, len, flags & TAB_HDR ? 0 : flags);
	if (!ret && (flags & TAB_HDR))
		ret = tab_write(im, 0, sizeof(struct rbds_hdr), flags);
	if (!ret)
		for (; lo <= hi; lo++)
			im->slot[lo].dirty = 0;
	return ret;
}

static void tab_format(struct rbds_image *im)
{
	memset(im->tab, 0, RBD_TAB_BYTES);
	memcpy(im->hdr->magic, RBD_MAGIC, sizeof(im->hdr->magic));
	im->hdr->version = RBD_VERSION;
	im->hdr->ent_size = sizeof(struct rbds_ent);
	im->hdr->max_slots = RBD_TAB_SLOTS;
	im->hdr->data_start = RBD_TAB_BYTES;
	im->hdr->next_free = RBD_TAB_BYTES;
}

static int tab_all_zero(const char *p, size_t len)
{
	return !p[0] && !memcmp(p, p + 1, len - 1);
}

/* rbd_diff_iterate2 callback: the first allocated extent ends the walk. */
static int tab_first_extent(uint64_t off, size_t len, int exists, void *arg)
{
	(void)len;
	if (!exists)
		return 0;
	*(uint64_t *)arg = off;
	return -EEXIST;
}

/*
 * An image without dbfio's table is adopted only when it was never written:
 * a zero first MiB says nothing of the rest (a disk whose label was wiped).
 * librbd's allocated extents (the parent's included) say it.
 */
static int tab_never_written(struct rbds_image *im, char *err, size_t errlen)
{
	uint64_t at = 0;
	int ret;

	ret = rbd_diff_iterate2(im->img, NULL, 0, im->img_size, 1, 0, tab_first_extent, &at);
	if (ret == -EEXIST) {
		snprintf(err, errlen, "rbd: image '%s/%s' is not a dbfio store and holds data "
			 "(an allocated extent at byte %llu; rbd diff %s/%s): refusing to "
			 "overwrite it", im->pool, im->name, (unsigned long long)at,
			 im->pool, im->name);
		return -EEXIST;
	}
	if (ret < 0)
		snprintf(err, errlen, "rbd: rbd_diff_iterate2(%s/%s) failed: %s (cannot tell "
			 "whether the image was ever written: not adopted)", im->pool,
			 im->name, strerror(-ret));
	return ret < 0 ? ret : 0;
}

static int tab_load(struct rbds_image *im, int created, char *err, size_t errlen)
{
	const struct rbds_hdr *h = im->hdr;
	ssize_t ret;

	ret = rbd_read(im->img, 0, RBD_TAB_BYTES, im->tab);
	if (ret >= 0 && ret != RBD_TAB_BYTES)
		ret = -EIO;
	if (ret < 0) {
		snprintf(err, errlen, "rbd: rbd_read(%s/%s, table) failed: %s",
			 im->pool, im->name, strerror((int)-ret));
		return ret;
	}
	if (!memcmp(h->magic, RBD_MAGIC, sizeof(h->magic))) {
		if (h->version == RBD_VERSION && h->ent_size == sizeof(struct rbds_ent) &&
		    h->max_slots == RBD_TAB_SLOTS && h->nslots <= h->max_slots &&
		    h->data_start == RBD_TAB_BYTES && h->next_free >= h->data_start)
			return 0;
		snprintf(err, errlen, "rbd: image '%s/%s' has a dbfio table of another "
			 "version or a corrupt one (version %u)", im->pool, im->name,
			 h->version);
		return -EINVAL;
	}
	if (!created && !tab_all_zero(im->tab, RBD_TAB_BYTES)) {
		snprintf(err, errlen, "rbd: image '%s/%s' holds data that is not a dbfio "
			 "store (refusing to overwrite)", im->pool, im->name);
		return -EEXIST;
	}
	if (!created) {
		ret = tab_never_written(im, err, errlen);
		if (ret)
			return ret;
	}
	tab_format(im);
	ret = tab_write(im, 0, sizeof(struct rbds_hdr), TAB_FLUSH);
	if (ret)
		snprintf(err, errlen, "rbd: rbd_write(%s/%s, table) failed: %s",
			 im->pool, im->name, strerror((int)-ret));
	return ret;
}

/* Open (creating if allowed) the image: fills im->io, im->img, im->img_size. */
static int rbds_image_connect(struct rbds_image *im, const struct store_config *cfg,
			     int *created, char *err, size_t errlen)
{
	char what[256];
	int order = 0, ret;

	ret = rados_ioctx_create(ceph_conn_rados(im->conn), im->pool, &im->io);
	if (ret) {
		im->io = NULL;
		return ceph_conn_fail(im->conn, "rbd", "rados_ioctx_create", im->pool, ret,
				      err, errlen);
	}
	ret = rbd_open(im->io, im->name, &im->img, NULL);
	if (ret == -ENOENT && cfg->rbd_size) {
		ret = rbd_create2(im->io, im->name, cfg->rbd_size, RBD_FEATURE_LAYERING,
				  &order);
		if (ret && ret != -EEXIST) {
			snprintf(err, errlen, "rbd: rbd_create2(%s/%s) failed: %s",
				 im->pool, im->name, strerror(-ret));
			return ret;
		}
		*created = !ret;
		ret = rbd_open(im->io, im->name, &im->img, NULL);
	}
	if (ret) {
		im->img = NULL;
		snprintf(what, sizeof(what), "%s/%s", im->pool, im->name);
		ceph_conn_fail(im->conn, "rbd", "rbd_open", what, ret, err, errlen);
		if (ret == -ENOENT)	/* and what to do about it */
			snprintf(err + strlen(err), errlen - strlen(err),
				 ": set rbd_size to create it");
		return ret;
	}
	ret = rbds_image_lock(im, err, errlen);
	if (ret)
		return ret;
	ret = rbd_get_size(im->img, &im->img_size);
	if (ret < 0) {	/* the call failed: no size to speak of */
		snprintf(what, sizeof(what), "%s/%s", im->pool, im->name);
		return ceph_conn_fail(im->conn, "rbd", "rbd_get_size", what, ret, err, errlen);
	}
	if (im->img_size < RBD_TAB_BYTES + RBD_EXTENT_ALIGN) {
		snprintf(err, errlen, "rbd: image '%s/%s' unusable (%llu bytes, needs "
			 "at least 5 MiB): %s", im->pool, im->name,
			 (unsigned long long)im->img_size, strerror(ENOSPC));
		return -ENOSPC;
	}
	return 0;
}

static void rbds_image_free(struct rbds_image *im)
{
	rbds_image_unlock(im);
	if (im->img)
		rbd_close(im->img);
	if (im->io)
		rados_ioctx_destroy(im->io);
	pthread_mutex_destroy(&im->lock);
	ceph_conn_put(im->conn);
	free(im->slot);
	free(im->tab);
	free(im->pool);
	free(im->name);
	free(im);
}

/* Called with rbds_proc.lock held; takes over the reference to conn. */
static int rbds_image_get(const struct store_config *cfg, struct ceph_conn *conn,
			 struct rbds_image **imp, char *err, size_t errlen)
{
	const char *pool = cfg->pool ? cfg->pool : "rbd";
	struct rbds_image *im;
	int created = 0, ret = -ENOMEM;

	for (im = rbds_proc.images; im; im = im->next) {
		if (im->conn == conn && !strcmp(im->pool, pool) &&
		    !strcmp(im->name, cfg->rbdname)) {
			im->refs++;
			ceph_conn_put(conn);	/* the image holds one already */
			*imp = im;
			return 0;
		}
	}
	im = calloc(1, sizeof(*im));
	if (!im) {
		ceph_conn_put(conn);
		goto nomem;
	}
	pthread_mutex_init(&im->lock, NULL);
	im->conn = conn;
	im->pool = strdup(pool);
	im->name = strdup(cfg->rbdname);
	im->tab = malloc(RBD_TAB_BYTES);
	im->slot = calloc(RBD_TAB_SLOTS, sizeof(*im->slot));
	if (!im->pool || !im->name || !im->tab || !im->slot)
		goto nomem;
	im->hdr = (struct rbds_hdr *)im->tab;
	im->ent = (struct rbds_ent *)(im->tab + RBD_HDR_BYTES);
	ret = rbds_image_connect(im, cfg, &created, err, errlen);
	if (!ret)
		ret = tab_load(im, created, err, errlen);
	if (ret)
		goto fail;
	im->refs = 1;
	im->next = rbds_proc.images;
	rbds_proc.images = im;
	*imp = im;
	return 0;
nomem:
	snprintf(err, errlen, "rbd: out of memory");
fail:
	if (im)
		rbds_image_free(im);
	return ret;
}

/* Called with rbds_proc.lock held. */
static void rbds_image_put(struct rbds_image *im)
{
	struct rbds_image **pp;

	if (--im->refs)
		return;
	for (pp = &rbds_proc.images; *pp; pp = &(*pp)->next) {
		if (*pp == im) {
			*pp = im->next;
			break;
		}
	}
	rbds_image_free(im);
}

int rbds_image_attach(const struct store_config *cfg, struct rbds_image **imp,
		      char *err, size_t errlen)
{
	const struct ceph_conn_id id = {
		.who = "rbd", .conf = cfg->ceph_conf, .client = cfg->clientname,
	};
	struct ceph_conn *conn;
	int ret;

	ret = ceph_conn_get(CEPH_CONN_RADOS, &id, &conn, err, errlen);
	if (ret)
		return ret;
	pthread_mutex_lock(&rbds_proc.lock);
	ret = rbds_image_get(cfg, conn, imp, err, errlen);
	pthread_mutex_unlock(&rbds_proc.lock);
	return ret;
}

void rbds_image_detach(struct rbds_image *im)
{
	pthread_mutex_lock(&rbds_proc.lock);
	rbds_image_put(im);
	pthread_mutex_unlock(&rbds_proc.lock);
}

int rbds_ent_name(const char *path, const char **name)
{
	while (*path == '/')
		path++;
	if (!*path)
		return -ENOENT;
	if (strlen(path) >= RBD_NAME_MAX)
		return -ENAMETOOLONG;
	*name = path;
	return 0;
}

int rbds_tab_find(struct rbds_image *im, const char *name)
{
	unsigned int i;

	for (i = 0; i < im->hdr->nslots; i++)
		if (im->ent[i].flags == ENT_FILE && !strcmp(im->ent[i].name, name))
			return i;
	return -ENOENT;
}

/* A slot with an extent of >= need bytes: the smallest free one, else a new one. */
static int tab_alloc_fit(struct rbds_image *im, uint64_t need, int *tabflags)
{
	struct rbds_hdr *h = im->hdr;
	unsigned int i;
	int best = -1;

	for (i = 0; i < h->nslots; i++) {
		const struct rbds_ent *e = &im->ent[i];

		if (e->flags == ENT_FREE && !im->slot[i].opens && e->cap >= need &&
		    (best < 0 || e->cap < im->ent[best].cap))
			best = i;
	}
	if (best >= 0)
		return best;
	if (h->nslots >= h->max_slots || need > im->img_size - h->next_free)
		return -ENOSPC;
	i = h->nslots++;
	im->ent[i].off = h->next_free;
	im->ent[i].cap = need;
	im->ent[i].hw = 0;
	h->next_free += need;
	*tabflags |= TAB_HDR;
	return i;
}

/* The largest extent tab_alloc_fit() could hand out now (0: none). */
static uint64_t tab_largest(struct rbds_image *im)
{
	const struct rbds_hdr *h = im->hdr;
	uint64_t best = 0;
	unsigned int i;

	if (h->nslots < h->max_slots)
		best = (im->img_size - h->next_free) & ~(RBD_EXTENT_ALIGN - 1);
	for (i = 0; i < h->nslots; i++)
		if (im->ent[i].flags == ENT_FREE && !im->slot[i].opens &&
		    im->ent[i].cap > best)
			best = im->ent[i].cap;
	return best;
}

/*
 * An extent for a new file. A size hint is what the caller needs: no room
 * for it is -ENOSPC. Without one the default is only a preference: when it
 * does not fit (a small image, or one whose free extents are all smaller),
 * the file gets the largest extent there is rather than failing while the
 * image still has room.
 */
static int tab_alloc(struct rbds_image *im, uint64_t hint, int *tabflags)
{
	uint64_t need = hint ? hint : RBD_EXTENT_DEFAULT;
	int idx;

	if (need > im->img_size)
		return -ENOSPC;
	need = (need + RBD_EXTENT_ALIGN - 1) & ~(RBD_EXTENT_ALIGN - 1);
	idx = tab_alloc_fit(im, need, tabflags);
	if (idx != -ENOSPC || hint)
		return idx;
	need = tab_largest(im);
	return need ? tab_alloc_fit(im, need, tabflags) : -ENOSPC;
}

void rbds_tab_full_msg(struct rbds_image *im, const char *name, uint64_t hint,
		       char *buf, size_t len)
{
	const struct rbds_hdr *h = im->hdr;
	uint64_t need = hint ? hint : RBD_EXTENT_DEFAULT;

	snprintf(buf, len, "rbd image '%s/%s' is full: no room for '%s' (%llu MiB %s; "
		 "image %llu MiB, %llu MiB never allocated, largest free extent %llu MiB, "
		 "%u of %u table slots used): use a larger image or another rbdname",
		 im->pool, im->name, name, (unsigned long long)(need >> 20),
		 hint ? "asked" : "by default", (unsigned long long)(im->img_size >> 20),
		 (unsigned long long)((im->img_size - h->next_free) >> 20),
		 (unsigned long long)(tab_largest(im) >> 20), h->nslots, h->max_slots);
}

static int tab_create(struct rbds_image *im, const char *name, uint64_t hint)
{
	struct rbds_hdr oldh = *im->hdr;
	struct rbds_ent olde;
	int flags = TAB_FLUSH, idx, ret;

	idx = tab_alloc(im, hint, &flags);
	if (idx < 0)
		return idx;
	olde = im->ent[idx];
	memset(im->ent[idx].name, 0, RBD_NAME_MAX);
	strcpy(im->ent[idx].name, name);
	im->ent[idx].size = 0;
	im->ent[idx].flags = ENT_FILE;
	ret = rbds_tab_store(im, idx, idx, flags);
	if (ret) {
		im->ent[idx] = olde;
		*im->hdr = oldh;
		return ret;
	}
	return idx;
}

int rbds_ent_zero_hole(struct rbds_image *im, struct rbds_ent *e, uint64_t to)
{
	uint64_t end = to < e->hw ? to : e->hw;
	ssize_t ret;

	if (end <= e->size)
		return 0;
	ret = rbd_write_zeroes(im->img, e->off + e->size, end - e->size, 0, 0);
	return ret < 0 ? (int)ret : 0;
}

int rbds_ent_resize(struct rbds_image *im, unsigned int idx, uint64_t len)
{
	struct rbds_ent *e = &im->ent[idx];
	uint64_t old = e->size;
	int ret;

	ret = rbds_ent_zero_hole(im, e, len);
	if (ret)
		return ret;
	e->size = len;
	ret = rbds_tab_store(im, idx, idx, TAB_FLUSH);
	if (ret)
		e->size = old;
	return ret;
}

void rbds_ent_release(struct rbds_ent *e)
{
	memset(e->name, 0, RBD_NAME_MAX);
	e->size = 0;
	e->flags = ENT_FREE;
}

int rbds_tab_open(struct rbds_image *im, const char *name, int flags, uint64_t hint)
{
	int idx = rbds_tab_find(im, name);

	if (idx >= 0 && (flags & O_CREAT) && (flags & O_EXCL))
		return -EEXIST;
	if (idx >= 0 && (flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY) {
		int ret = rbds_ent_resize(im, idx, 0);

		return ret ? ret : idx;
	}
	if (idx == -ENOENT && (flags & O_CREAT))
		return tab_create(im, name, hint);
	return idx;
}
