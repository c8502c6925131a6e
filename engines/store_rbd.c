/*
 * store_rbd.c - the rbd backend: one RBD image used as a block store through
 * librbd, with files mapped to extents inside it.
 *
 * Layout of the image (little-endian, host order on the only hosts we run):
 *
 *   0        header: magic "DBFIORBD", version, entry size, slots used,
 *            slots max, next free offset (bump allocator), data start
 *   512      table: RBD_TAB_SLOTS entries of 128 bytes
 *            {name[64], off, cap, size, hw, flags}
 *   1 MiB    data: one extent per file, cap bytes, 4 MiB aligned
 *
 * The table lives in the image's first object (objects of 1 MiB or more;
 * 4 MiB by default), so every table update is one atomic RADOS write (a
 * rename that replaces its target writes both entries at once). Creating, unlinking, renaming and truncating write the table at
 * once and rbd_flush() it; a file's size grows in memory with its writes and
 * reaches the table on fsync/fdatasync/close, so data writes stay pure data.
 * fsync and fdatasync are rbd_flush(), which flushes the whole image: the
 * cache flush of a block device, and the only sync there is (no
 * sync_range). Directories do not exist (names are flat strings, '/'
 * included), so mkdir, rmdir and dirsync are unsupported rather than faked.
 *
 * open(O_CREAT) reserves an extent of size_hint bytes (0: 64 MiB), rounded
 * up to 4 MiB; a write past it fails with -EFBIG. A freed extent is reused by
 * a later file that fits. Its old bytes are not visible: reads stop at the
 * file's size, and a write or truncate that leaves a hole zeroes the part of
 * the hole below the extent's high-water mark (hw: bytes at or above it were
 * never written; hw reaches the table with the size, so after a crash, data
 * never fsynced may show in such a hole). A file's size grows when a write
 * is issued, not when it completes.
 *
 * librados and librbd handles are shared by the threads of a process: one
 * cluster connection, one open image (and its table) per pool/image, both
 * refcounted, as fio's rbd engine shares its cluster handle. The table is
 * read once, at open: one process per image. An image we create has the
 * layering feature only (no exclusive-lock or object-map round trips);
 * librbd's cache follows ceph.conf / CEPH_ARGS (e.g. --rbd_cache=false).
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
#include <time.h>
#include <rados/librados.h>
#include <rbd/librbd.h>

#include "store.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the rbd store table is written in host order: little-endian hosts only"
#endif

#define RBD_MAGIC		"DBFIORBD"
#define RBD_VERSION		1
#define RBD_TAB_BYTES		(1u << 20)
#define RBD_HDR_BYTES		512u
#define RBD_NAME_MAX		64
#define RBD_TAB_SLOTS		((RBD_TAB_BYTES - RBD_HDR_BYTES) / sizeof(struct rbds_ent))
#define RBD_EXTENT_ALIGN	(4ull << 20)
#define RBD_EXTENT_DEFAULT	(64ull << 20)
#define RBD_QD_DEFAULT		64
#define RBD_TIMEOUT		"30"	/* s: mon, osd and mount timeouts */

enum { ENT_UNUSED, ENT_FILE, ENT_FREE };
enum { TAB_HDR = 1, TAB_FLUSH = 2 };

struct rbds_hdr {
	char magic[8];
	uint32_t version;
	uint32_t ent_size;
	uint32_t nslots;	/* slots ever used: the rest are zero */
	uint32_t max_slots;
	uint64_t next_free;	/* image offset of the next new extent */
	uint64_t data_start;
};

struct rbds_ent {
	char name[RBD_NAME_MAX];	/* path relative to the store, NUL-terminated */
	uint64_t off;			/* extent: image offset and capacity */
	uint64_t cap;
	uint64_t size;			/* file size */
	uint64_t hw;			/* bytes at or above hw were never written */
	uint32_t flags;			/* ENT_* */
	uint8_t pad[28];
};

_Static_assert(sizeof(struct rbds_ent) == 128, "rbds_ent is 128 bytes on disk");
_Static_assert(sizeof(struct rbds_hdr) <= RBD_HDR_BYTES, "rbds_hdr fits its sector");

/* Per-slot state of this process. */
struct rbds_slot {
	unsigned int opens;	/* a freed extent stays reserved until closed */
	int dirty;		/* size/hw not yet in the table */
};

/* One open image and its table, shared by the threads of a process. */
struct rbds_image {
	struct rbds_image *next;
	char *pool;
	char *name;
	int refs;
	rados_ioctx_t io;
	rbd_image_t img;
	uint64_t img_size;
	pthread_mutex_t lock;	/* the table */
	char *tab;		/* RBD_TAB_BYTES, as on disk */
	struct rbds_hdr *hdr;
	struct rbds_ent *ent;
	struct rbds_slot *slot;
};

/* Per struct store (per thread). */
struct rbds_data {
	struct rbds_image *im;
	unsigned int qd;
	pthread_mutex_t lock;	/* the completion list */
	pthread_cond_t cond;
	struct store_req *done_head, *done_tail;
	unsigned int ndone;
};

struct store_file {
	struct rbds_data *rd;
	struct rbds_image *im;
	unsigned int idx;
	uint64_t off, cap;
	int accmode;		/* O_RDONLY, O_WRONLY or O_RDWR */
};

/* The process-wide cluster connection and open images. */
static struct {
	pthread_mutex_t lock;
	rados_t cluster;
	int refs;
	char id[128];
	char conf[512];
	struct rbds_image *images;
} rbds_proc = { .lock = PTHREAD_MUTEX_INITIALIZER };

static const char *conf_name(const char *conf)
{
	if (conf)
		return conf;
	return getenv("CEPH_CONF") ? getenv("CEPH_CONF") : "default search";
}

static int rbds_cluster_connect(const struct store_config *cfg, const char *id,
			       char *err, size_t errlen)
{
	static const char *const timeouts[] = {
		"client_mount_timeout", "rados_mon_op_timeout", "rados_osd_op_timeout",
	};
	const char *call = "rados_create";
	rados_t c;
	size_t i;
	int ret;

	ret = rados_create(&c, id);
	if (ret)
		goto fail;
	call = "rados_conf_read_file";
	ret = rados_conf_read_file(c, cfg->ceph_conf);
	/* bounded connect: an unreachable cluster fails instead of hanging */
	for (i = 0; !ret && i < sizeof(timeouts) / sizeof(timeouts[0]); i++) {
		call = "rados_conf_set";
		ret = rados_conf_set(c, timeouts[i], RBD_TIMEOUT);
	}
	if (!ret) {
		call = "rados_conf_parse_env";
		ret = rados_conf_parse_env(c, NULL);
	}
	if (!ret) {
		call = "rados_connect";
		ret = rados_connect(c);
	}
	if (ret) {
		rados_shutdown(c);
		goto fail;
	}
	rbds_proc.cluster = c;
	return 0;
fail:
	snprintf(err, errlen, "rbd: %s as client.%s failed: %s (ceph.conf: %s)",
		 call, id, strerror(-ret), conf_name(cfg->ceph_conf));
	return ret;
}

/* Called with rbds_proc.lock held. */
static int rbds_cluster_get(const struct store_config *cfg, char *err, size_t errlen)
{
	const char *id = cfg->clientname ? cfg->clientname : "admin";
	const char *conf = cfg->ceph_conf ? cfg->ceph_conf : "";
	int ret;

	if (rbds_proc.refs) {
		if (strcmp(id, rbds_proc.id) || strcmp(conf, rbds_proc.conf)) {
			snprintf(err, errlen, "rbd: this process is connected as client.%s "
				 "(ceph.conf: %s): one cluster connection per process",
				 rbds_proc.id, conf_name(*rbds_proc.conf ? rbds_proc.conf : NULL));
			return -EINVAL;
		}
		rbds_proc.refs++;
		return 0;
	}
	ret = rbds_cluster_connect(cfg, id, err, errlen);
	if (ret)
		return ret;
	snprintf(rbds_proc.id, sizeof(rbds_proc.id), "%s", id);
	snprintf(rbds_proc.conf, sizeof(rbds_proc.conf), "%s", conf);
	rbds_proc.refs = 1;
	return 0;
}

/* Called with rbds_proc.lock held. */
static void rbds_cluster_put(void)
{
	if (rbds_proc.refs && !--rbds_proc.refs) {
		rados_shutdown(rbds_proc.cluster);
		rbds_proc.cluster = NULL;
	}
}

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

/* Store entries lo..hi (one atomic write), then the header if asked. */
static int tab_store(struct rbds_image *im, unsigned int lo, unsigned int hi, int flags)
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
	int order = 0, ret;

	ret = rados_ioctx_create(rbds_proc.cluster, im->pool, &im->io);
	if (ret) {
		im->io = NULL;
		if (ret == -ENOENT)
			snprintf(err, errlen, "rbd: pool '%s' does not exist", im->pool);
		else
			snprintf(err, errlen, "rbd: rados_ioctx_create(%s) failed: %s",
				 im->pool, strerror(-ret));
		return ret;
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
		if (ret == -ENOENT)
			snprintf(err, errlen, "rbd: image '%s/%s' does not exist "
				 "(set rbd_size to create it)", im->pool, im->name);
		else
			snprintf(err, errlen, "rbd: rbd_open(%s/%s) failed: %s",
				 im->pool, im->name, strerror(-ret));
		return ret;
	}
	ret = rbd_get_size(im->img, &im->img_size);
	if (!ret && im->img_size < RBD_TAB_BYTES + RBD_EXTENT_ALIGN)
		ret = -ENOSPC;
	if (ret)
		snprintf(err, errlen, "rbd: image '%s/%s' unusable (%llu bytes, needs "
			 "at least 5 MiB): %s", im->pool, im->name,
			 (unsigned long long)im->img_size, strerror(-ret));
	return ret;
}

static void rbds_image_free(struct rbds_image *im)
{
	if (im->img)
		rbd_close(im->img);
	if (im->io)
		rados_ioctx_destroy(im->io);
	pthread_mutex_destroy(&im->lock);
	free(im->slot);
	free(im->tab);
	free(im->pool);
	free(im->name);
	free(im);
}

/* Called with rbds_proc.lock held. */
static int rbds_image_get(const struct store_config *cfg, struct rbds_image **imp,
			 char *err, size_t errlen)
{
	const char *pool = cfg->pool ? cfg->pool : "rbd";
	struct rbds_image *im;
	int created = 0, ret = -ENOMEM;

	for (im = rbds_proc.images; im; im = im->next) {
		if (!strcmp(im->pool, pool) && !strcmp(im->name, cfg->rbdname)) {
			im->refs++;
			*imp = im;
			return 0;
		}
	}
	im = calloc(1, sizeof(*im));
	if (!im)
		goto nomem;
	pthread_mutex_init(&im->lock, NULL);
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

static void rbds_exit(struct store *s)
{
	struct rbds_data *rd = s->priv;

	if (!rd)
		return;
	pthread_mutex_lock(&rbds_proc.lock);
	if (rd->im) {
		rbds_image_put(rd->im);
		rd->im = NULL;
		rbds_cluster_put();
	}
	pthread_mutex_unlock(&rbds_proc.lock);
	pthread_cond_destroy(&rd->cond);
	pthread_mutex_destroy(&rd->lock);
	free(rd);
	s->priv = NULL;
}

static int rbds_init(struct store *s, char *err, size_t errlen)
{
	pthread_condattr_t ca;
	struct rbds_data *rd;
	int ret = 0;

	if (!s->cfg.rbdname || !*s->cfg.rbdname) {
		snprintf(err, errlen, "rbd: no image name (rbdname=)");
		return -EINVAL;
	}
	rd = calloc(1, sizeof(*rd));
	if (!rd) {
		snprintf(err, errlen, "rbd: out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&rd->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&rd->cond, &ca);
	pthread_condattr_destroy(&ca);
	rd->qd = s->cfg.queue_depth ? s->cfg.queue_depth : RBD_QD_DEFAULT;
	s->priv = rd;

	pthread_mutex_lock(&rbds_proc.lock);
	ret = rbds_cluster_get(&s->cfg, err, errlen);
	if (!ret) {
		ret = rbds_image_get(&s->cfg, &rd->im, err, errlen);
		if (ret)
			rbds_cluster_put();
	}
	pthread_mutex_unlock(&rbds_proc.lock);
	if (ret)
		rbds_exit(s);
	return ret;
}

/* The table name of a path: relative, without leading slashes. */
static int ent_name(const char *path, const char **name)
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

/* The table functions below are called with im->lock held. */
static int tab_find(struct rbds_image *im, const char *name)
{
	unsigned int i;

	for (i = 0; i < im->hdr->nslots; i++)
		if (im->ent[i].flags == ENT_FILE && !strcmp(im->ent[i].name, name))
			return i;
	return -ENOENT;
}

/* A slot with an extent of >= hint bytes: the smallest free one, else a new one. */
static int tab_alloc(struct rbds_image *im, uint64_t hint, int *tabflags)
{
	struct rbds_hdr *h = im->hdr;
	uint64_t need = hint ? hint : RBD_EXTENT_DEFAULT;
	unsigned int i;
	int best = -1;

	if (need > im->img_size)
		return -ENOSPC;
	need = (need + RBD_EXTENT_ALIGN - 1) & ~(RBD_EXTENT_ALIGN - 1);
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
	ret = tab_store(im, idx, idx, flags);
	if (ret) {
		im->ent[idx] = olde;
		*im->hdr = oldh;
		return ret;
	}
	return idx;
}

/* Before a file's size grows to 'to': zero the old bytes of its extent in the hole. */
static int ent_zero_hole(struct rbds_image *im, struct rbds_ent *e, uint64_t to)
{
	uint64_t end = to < e->hw ? to : e->hw;
	ssize_t ret;

	if (end <= e->size)
		return 0;
	ret = rbd_write_zeroes(im->img, e->off + e->size, end - e->size, 0, 0);
	return ret < 0 ? (int)ret : 0;
}

static int ent_resize(struct rbds_image *im, unsigned int idx, uint64_t len)
{
	struct rbds_ent *e = &im->ent[idx];
	uint64_t old = e->size;
	int ret;

	ret = ent_zero_hole(im, e, len);
	if (ret)
		return ret;
	e->size = len;
	ret = tab_store(im, idx, idx, TAB_FLUSH);
	if (ret)
		e->size = old;
	return ret;
}

static void ent_release(struct rbds_ent *e)
{
	memset(e->name, 0, RBD_NAME_MAX);
	e->size = 0;
	e->flags = ENT_FREE;
}

/* Look the path up, creating or truncating it as the open flags say. */
static int tab_open(struct rbds_image *im, const char *name, int flags, uint64_t hint)
{
	int idx = tab_find(im, name);

	if (idx >= 0 && (flags & O_CREAT) && (flags & O_EXCL))
		return -EEXIST;
	if (idx >= 0 && (flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY) {
		int ret = ent_resize(im, idx, 0);

		return ret ? ret : idx;
	}
	if (idx == -ENOENT && (flags & O_CREAT))
		return tab_create(im, name, hint);
	return idx;
}

static int rbds_open(struct store *s, const char *path, int flags, mode_t mode,
			 uint64_t size_hint, struct store_file **fp)
{
	struct rbds_data *rd = s->priv;
	struct rbds_image *im = rd->im;
	struct store_file *f;
	const char *name;
	int idx;

	(void)mode;
	idx = ent_name(path, &name);
	if (idx)
		return idx;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	pthread_mutex_lock(&im->lock);
	idx = tab_open(im, name, flags, size_hint);
	if (idx >= 0) {
		im->slot[idx].opens++;
		f->off = im->ent[idx].off;
		f->cap = im->ent[idx].cap;
	}
	pthread_mutex_unlock(&im->lock);
	if (idx < 0) {
		free(f);
		return idx;
	}
	f->rd = rd;
	f->im = im;
	f->idx = idx;
	f->accmode = flags & O_ACCMODE;
	*fp = f;
	return 0;
}

static int rbds_close(struct store *s, struct store_file *f)
{
	struct rbds_image *im = f->im;
	int ret = 0;

	(void)s;
	pthread_mutex_lock(&im->lock);
	if (im->slot[f->idx].dirty)
		ret = tab_store(im, f->idx, f->idx, 0);
	im->slot[f->idx].opens--;
	pthread_mutex_unlock(&im->lock);
	free(f);
	return ret;
}

/* Checks and size bookkeeping of a write, done when it is issued. */
static int rbds_write_prep(struct store_file *f, uint64_t off, size_t len)
{
	struct rbds_image *im = f->im;
	struct rbds_ent *e = &im->ent[f->idx];
	int ret = 0;

	if (f->accmode == O_RDONLY)
		return -EBADF;
	if (off > f->cap || len > f->cap - off)
		return -EFBIG;
	pthread_mutex_lock(&im->lock);
	if (off > e->size)
		ret = ent_zero_hole(im, e, off);
	if (!ret && off + len > e->size) {
		e->size = off + len;
		im->slot[f->idx].dirty = 1;
	}
	if (e->size > e->hw) {
		e->hw = e->size;
		im->slot[f->idx].dirty = 1;
	}
	pthread_mutex_unlock(&im->lock);
	return ret;
}

/* How many bytes from off a read may return (-EBADF on a write-only file). */
static int64_t rbds_readable(struct store_file *f, uint64_t off, size_t len)
{
	uint64_t size;

	if (f->accmode == O_WRONLY)
		return -EBADF;
	pthread_mutex_lock(&f->im->lock);
	size = f->im->ent[f->idx].size;
	pthread_mutex_unlock(&f->im->lock);
	if (off >= size)
		return 0;
	return len < size - off ? len : size - off;
}

static size_t iov_total(const struct iovec *iov, int iovcnt)
{
	size_t total = 0;
	int i;

	for (i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	return total;
}

static ssize_t rbds_sync_io(struct store_file *f, const struct iovec *iov,
			   int iovcnt, uint64_t off, int write)
{
	rbd_completion_t c;
	ssize_t ret;

	ret = rbd_aio_create_completion(NULL, NULL, &c);
	if (ret)
		return ret;
	if (write)
		ret = rbd_aio_writev(f->im->img, iov, iovcnt, f->off + off, c);
	else
		ret = rbd_aio_readv(f->im->img, iov, iovcnt, f->off + off, c);
	if (!ret) {
		rbd_aio_wait_for_complete(c);
		ret = rbd_aio_get_return_value(c);
	}
	rbd_aio_release(c);
	/* a write completes with 0, not its length */
	return write && !ret ? (ssize_t)iov_total(iov, iovcnt) : ret;
}

static ssize_t rbds_pwritev(struct store *s, struct store_file *f,
			   const struct iovec *iov, int iovcnt, uint64_t off)
{
	size_t len = iov_total(iov, iovcnt);
	int ret;

	(void)s;
	ret = rbds_write_prep(f, off, len);
	if (ret)
		return ret;
	return len ? rbds_sync_io(f, iov, iovcnt, off, 1) : 0;
}

static ssize_t rbds_preadv(struct store *s, struct store_file *f,
			  const struct iovec *iov, int iovcnt, uint64_t off)
{
	size_t total = iov_total(iov, iovcnt), left;
	int64_t len = rbds_readable(f, off, total);
	struct iovec *cut = NULL;
	ssize_t ret;
	int n;

	(void)s;
	if (len <= 0)
		return len;
	if ((size_t)len < total) {
		/* stop at the end of the file, as pread does */
		cut = malloc(iovcnt * sizeof(*cut));
		if (!cut)
			return -ENOMEM;
		for (n = 0, left = len; left; n++) {
			cut[n] = iov[n];
			if (cut[n].iov_len > left)
				cut[n].iov_len = left;
			left -= cut[n].iov_len;
		}
		iov = cut;
		iovcnt = n;
	}
	ret = rbds_sync_io(f, iov, iovcnt, off, 0);
	free(cut);
	return ret;
}

/*
 * The size is metadata a later read needs, so fdatasync persists it too;
 * both end in rbd_flush(), which covers every write issued before it.
 */
static int rbds_fsync(struct store *s, struct store_file *f, int datasync)
{
	struct rbds_image *im = f->im;
	int ret = 0;

	(void)s;
	(void)datasync;
	pthread_mutex_lock(&im->lock);
	if (im->slot[f->idx].dirty)
		ret = tab_store(im, f->idx, f->idx, 0);
	pthread_mutex_unlock(&im->lock);
	return ret ? ret : rbd_flush(im->img);
}

static int rbds_unlink(struct store *s, const char *path)
{
	struct rbds_image *im = ((struct rbds_data *)s->priv)->im;
	struct rbds_ent old;
	const char *name;
	int idx, ret;

	ret = ent_name(path, &name);
	if (ret)
		return ret;
	pthread_mutex_lock(&im->lock);
	idx = ret = tab_find(im, name);
	if (idx >= 0) {
		/* an open file's extent stays reserved (slot.opens) until closed */
		old = im->ent[idx];
		ent_release(&im->ent[idx]);
		ret = tab_store(im, idx, idx, TAB_FLUSH);
		if (ret)
			im->ent[idx] = old;
	}
	pthread_mutex_unlock(&im->lock);
	return ret;
}

/* Renaming over an existing file frees it; both entries go in one write. */
static int rbds_rename(struct store *s, const char *from, const char *to)
{
	struct rbds_image *im = ((struct rbds_data *)s->priv)->im;
	const char *src, *dst;
	struct rbds_ent olds, oldd;
	int si, di, ret;

	ret = ent_name(from, &src);
	if (!ret)
		ret = ent_name(to, &dst);
	if (ret)
		return ret;
	pthread_mutex_lock(&im->lock);
	si = ret = tab_find(im, src);
	di = tab_find(im, dst);
	if (si < 0 || si == di)
		goto out;
	di = di < 0 ? si : di;
	olds = im->ent[si];
	oldd = im->ent[di];
	if (di != si)
		ent_release(&im->ent[di]);
	memset(im->ent[si].name, 0, RBD_NAME_MAX);
	strcpy(im->ent[si].name, dst);
	ret = tab_store(im, si < di ? si : di, si < di ? di : si, TAB_FLUSH);
	if (ret) {
		im->ent[di] = oldd;
		im->ent[si] = olds;
	}
out:
	pthread_mutex_unlock(&im->lock);
	return ret < 0 ? ret : 0;
}

static int rbds_fstat(struct store *s, struct store_file *f, uint64_t *size)
{
	(void)s;
	pthread_mutex_lock(&f->im->lock);
	*size = f->im->ent[f->idx].size;
	pthread_mutex_unlock(&f->im->lock);
	return 0;
}

static int rbds_truncate(struct store *s, struct store_file *f, uint64_t len)
{
	int ret;

	(void)s;
	if (f->accmode == O_RDONLY)
		return -EINVAL;
	if (len > f->cap)
		return -EFBIG;
	pthread_mutex_lock(&f->im->lock);
	ret = ent_resize(f->im, f->idx, len);
	pthread_mutex_unlock(&f->im->lock);
	return ret;
}

/*
 * Asynchronous path. A request is one to three librbd completions (data,
 * table entry, flush); r->backend_data counts those still out, and the last
 * one moves r to this store's done list. Callbacks run in librbd's threads:
 * they take only rd->lock, never im->lock, which is held across synchronous
 * librbd calls that need those threads.
 */
enum { AIO_WRITE, AIO_READ, AIO_FLUSH };

struct rbds_meta {
	struct store_req *r;
	struct rbds_ent ent;
};

static void rbds_done_locked(struct rbds_data *rd, struct store_req *r)
{
	r->next = NULL;
	if (rd->done_tail)
		rd->done_tail->next = r;
	else
		rd->done_head = r;
	rd->done_tail = r;
	rd->ndone++;
	pthread_cond_signal(&rd->cond);
}

/* One completion of r ended with ret (data: bytes or -errno). */
static void rbds_req_put(struct store_req *r, ssize_t ret, int data)
{
	struct rbds_data *rd = r->file->rd;
	uintptr_t left;

	pthread_mutex_lock(&rd->lock);
	if (ret < 0 && (data || r->result >= 0))
		r->result = ret;	/* the data error wins over a flush error */
	else if (ret >= 0 && data && r->result >= 0)
		r->result = r->op == SOP_WRITE ? (ssize_t)r->len : ret;
	left = (uintptr_t)r->backend_data - 1;
	r->backend_data = (void *)left;
	if (!left)
		rbds_done_locked(rd, r);
	pthread_mutex_unlock(&rd->lock);
}

static void rbds_cb_data(rbd_completion_t c, void *arg)
{
	ssize_t ret = rbd_aio_get_return_value(c);

	rbd_aio_release(c);
	rbds_req_put(arg, ret, 1);
}

static void rbds_cb_flush(rbd_completion_t c, void *arg)
{
	ssize_t ret = rbd_aio_get_return_value(c);

	rbd_aio_release(c);
	rbds_req_put(arg, ret, 0);
}

static void rbds_cb_meta(rbd_completion_t c, void *arg)
{
	struct rbds_meta *m = arg;
	struct store_req *r = m->r;
	ssize_t ret = rbd_aio_get_return_value(c);

	rbd_aio_release(c);
	free(m);
	rbds_req_put(r, ret < 0 ? ret : 0, 0);
}

static int rbds_issue(struct store_req *r, int what, size_t len)
{
	struct store_file *f = r->file;
	rbd_completion_t c;
	int ret;

	ret = rbd_aio_create_completion(r, what == AIO_FLUSH ? rbds_cb_flush :
					rbds_cb_data, &c);
	if (ret)
		return ret;
	if (what == AIO_WRITE)
		ret = rbd_aio_write(f->im->img, f->off + r->off, len, r->buf, c);
	else if (what == AIO_READ)
		ret = rbd_aio_read(f->im->img, f->off + r->off, len, r->buf, c);
	else
		ret = rbd_aio_flush(f->im->img, c);
	if (ret)
		rbd_aio_release(c);
	return ret;
}

/* Write the file's table entry if its size changed: 1 issued, 0 clean, -errno. */
static int rbds_issue_meta(struct store_req *r)
{
	struct store_file *f = r->file;
	struct rbds_image *im = f->im;
	struct rbds_meta *m;
	rbd_completion_t c;
	int ret = 0;

	pthread_mutex_lock(&im->lock);
	if (!im->slot[f->idx].dirty)
		goto out;
	ret = -ENOMEM;
	m = malloc(sizeof(*m));
	if (!m)
		goto out;
	m->r = r;
	m->ent = im->ent[f->idx];
	ret = rbd_aio_create_completion(m, rbds_cb_meta, &c);
	if (!ret) {
		ret = rbd_aio_write(im->img, RBD_HDR_BYTES + f->idx * sizeof(m->ent),
				    sizeof(m->ent), (const char *)&m->ent, c);
		if (ret)
			rbd_aio_release(c);
	}
	if (ret) {
		free(m);
		goto out;
	}
	/* issued under im->lock: table writes reach the image in table order */
	im->slot[f->idx].dirty = 0;
	ret = 1;
out:
	pthread_mutex_unlock(&im->lock);
	return ret;
}

/* The sync part of a request: table entry, then a flush covering both. */
static void rbds_issue_sync(struct store_req *r)
{
	int ret;

	ret = rbds_issue_meta(r);
	if (ret <= 0)
		rbds_req_put(r, ret, 0);
	ret = rbds_issue(r, AIO_FLUSH, 0);
	if (ret)
		rbds_req_put(r, ret, 0);
}

static int rbds_submit(struct store *s, struct store_req *r)
{
	struct rbds_data *rd = s->priv;
	int datasync = r->op == SOP_WRITE && (r->flags & SREQ_DATASYNC);
	int64_t len;
	int ret;

	if (s->inflight >= rd->qd)
		return -EBUSY;
	r->result = 0;
	switch (r->op) {
	case SOP_WRITE:
		ret = rbds_write_prep(r->file, r->off, r->len);
		if (ret)
			return ret;
		r->backend_data = (void *)(uintptr_t)(datasync ? 3 : 1);
		ret = rbds_issue(r, AIO_WRITE, r->len);
		if (!ret && datasync)
			rbds_issue_sync(r);
		return ret;
	case SOP_READ:
		len = rbds_readable(r->file, r->off, r->len);
		if (len <= 0) {
			/* at or past the end of the file: done already */
			r->backend_data = (void *)(uintptr_t)1;
			rbds_req_put(r, len, 1);
			return 0;
		}
		r->backend_data = (void *)(uintptr_t)1;
		return rbds_issue(r, AIO_READ, len);
	case SOP_FSYNC:
	case SOP_FDATASYNC:
		r->backend_data = (void *)(uintptr_t)2;
		rbds_issue_sync(r);
		return 0;
	default:
		return -EINVAL;
	}
}

static int rbds_reap(struct store *s, unsigned int min, unsigned int max,
		    struct store_req **out, int64_t timeout_ns)
{
	struct rbds_data *rd = s->priv;
	struct timespec ts;
	unsigned int n = 0;

	if (min > s->inflight)
		min = s->inflight;
	if (timeout_ns >= 0) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		timeout_ns += ts.tv_nsec;
		ts.tv_sec += timeout_ns / 1000000000;
		ts.tv_nsec = timeout_ns % 1000000000;
	}
	pthread_mutex_lock(&rd->lock);
	while (rd->ndone < min) {
		if (timeout_ns < 0)
			pthread_cond_wait(&rd->cond, &rd->lock);
		else if (pthread_cond_timedwait(&rd->cond, &rd->lock, &ts))
			break;
	}
	for (; n < max && rd->done_head; n++) {
		out[n] = rd->done_head;
		rd->done_head = out[n]->next;
		rd->ndone--;
	}
	if (!rd->done_head)
		rd->done_tail = NULL;
	pthread_mutex_unlock(&rd->lock);
	return n;
}

const struct store_ops store_rbd_ops = {
	.name		= "rbd",
	.caps		= STORE_CAP_ASYNC | STORE_CAP_RENAME | STORE_CAP_TRUNCATE,
	.init		= rbds_init,
	.exit		= rbds_exit,
	.open		= rbds_open,
	.close		= rbds_close,
	.pwritev	= rbds_pwritev,
	.preadv		= rbds_preadv,
	.fsync		= rbds_fsync,
	.unlink		= rbds_unlink,
	.rename		= rbds_rename,
	.fstat		= rbds_fstat,
	.truncate	= rbds_truncate,
	.submit		= rbds_submit,
	.reap		= rbds_reap,
};
