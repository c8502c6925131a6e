/*
 * store_rbd.h - private to the rbd backend (store_rbd.c: the store_ops;
 * store_rbd_table.c: the shared connection, the image and its extent table;
 * store_rbd_lock.c: the image's lock, one run per store).
 *
 * Layout of the image (little-endian, host order on the only hosts we run):
 *
 *   0        header: magic "DBFIORBD", version, entry size, slots used,
 *            slots max, next free offset (bump allocator), data start
 *   512      table: RBD_TAB_SLOTS entries of 128 bytes
 *            {name[64], off, cap, size, hw, flags}
 *   1 MiB    data: one extent per file, cap bytes (a multiple of 4 MiB)
 *
 * The table lives in the image's first object (objects of 1 MiB or more;
 * 4 MiB by default), so every table update is one atomic RADOS write (a
 * rename that replaces its target writes both entries at once).
 */
#ifndef DBFIO_STORE_RBD_H
#define DBFIO_STORE_RBD_H

#include <pthread.h>
#include <stdint.h>
#include <rados/librados.h>
#include <rbd/librbd.h>

#include "ceph_conn.h"
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
	struct ceph_conn *conn;	/* the shared client it is open on */
	char *pool;
	char *name;
	int refs;
	rados_ioctx_t io;
	rbd_image_t img;
	uint64_t img_size;
	int locked;		/* 1: our advisory lock (cookie below), 2: librbd's exclusive lock */
	char cookie[256];
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

/*
 * The image cfg names, on the shared client of cfg's cluster (ceph_conn.h),
 * opened (created when cfg->rbd_size allows) and its table loaded on first
 * use; both refcounted. On failure -errno and a one-line reason in err.
 */
int rbds_image_attach(const struct store_config *cfg, struct rbds_image **imp,
		      char *err, size_t errlen);
void rbds_image_detach(struct rbds_image *im);

/*
 * Why an open with O_CREAT found no room: a one-line account of the image's
 * table for the store's error message. Called with im->lock held.
 */
void rbds_tab_full_msg(struct rbds_image *im, const char *name, uint64_t hint,
		       char *buf, size_t len);

/*
 * store_rbd_lock.c: the image's lock for this process (one run per store);
 * on failure -errno and a one-line reason naming the holder in err.
 */
int rbds_image_lock(struct rbds_image *im, char *err, size_t errlen);
void rbds_image_unlock(struct rbds_image *im);

/* The table name of a path: relative, without leading slashes. */
int rbds_ent_name(const char *path, const char **name);

/* The table functions below are called with im->lock held. */
int rbds_tab_find(struct rbds_image *im, const char *name);
/* Look the path up, creating or truncating it as the open flags say: the slot. */
int rbds_tab_open(struct rbds_image *im, const char *name, int flags, uint64_t hint);
/* Store entries lo..hi (one atomic write), then the header if TAB_HDR. */
int rbds_tab_store(struct rbds_image *im, unsigned int lo, unsigned int hi, int flags);
/* Before a file's size grows to 'to': zero the old bytes of its extent in the hole. */
int rbds_ent_zero_hole(struct rbds_image *im, struct rbds_ent *e, uint64_t to);
/* Set a file's size (zeroing a hole it opens) and store it durably. */
int rbds_ent_resize(struct rbds_image *im, unsigned int idx, uint64_t len);
/* Make an entry free (in memory): its extent can go to a later file. */
void rbds_ent_release(struct rbds_ent *e);

#endif
