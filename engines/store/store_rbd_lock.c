/*
 * store_rbd_lock.c - one run per rbd store: the image's lock, taken when the
 * process first opens the image and held until its last store lets go (the
 * table is read once and extents come from a bump pointer in memory, so a
 * second process would hand out the same extents). An image the store made
 * (layering only) gets an advisory exclusive lock whose cookie names the
 * holder (store_holder_self); an image with the exclusive-lock feature gets
 * librbd's own lock, acquired explicitly so that librbd does not hand it
 * over, the holder's name in the image's metadata. A holder of this host
 * that is gone (SIGKILL) is broken at once; any other is named in the
 * one-line refusal (`rbd lock rm` when it is known dead).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "store_rbd.h"

#define RBD_HOLDER_KEY		"dbfio.holder"	/* image metadata: who holds its exclusive lock */
#define RBD_OWNER_KEY		"dbfio.owner"	/* ... as which lock owner (client.N) */

/*
 * The first locker of the image: 0, -ENOENT when none, another -errno. Read
 * from the header object itself: rbd_list_lockers answers from what the
 * image handle cached when it was opened, which misses a lock taken since.
 */
static int rbds_locker(struct rbds_image *im, char *client, char *cookie, char *addr)
{
	size_t tlen = 256, clen = 256, klen = 256, alen = 256;
	char tag[256], id[128], oid[160];
	int excl;
	ssize_t n;

	n = rbd_get_id(im->img, id, sizeof(id));
	if (n < 0)
		return n;
	snprintf(oid, sizeof(oid), "rbd_header.%s", id);
	n = rados_list_lockers(im->io, oid, "rbd_lock", &excl, tag, &tlen, client, &clen,
			       cookie, &klen, addr, &alen);
	if (n < 0)
		return n;
	return n ? 0 : -ENOENT;
}

/*
 * This process holds the image already, through another cluster client:
 * stores on one client share the image and its extent table
 * (rbds_image_get), but a job with another ceph.conf or client id opens a
 * second handle, and the two would allocate from two copies of the table.
 * Refuse.
 */
static int rbds_lock_self(struct rbds_image *im, char *err, size_t errlen)
{
	snprintf(err, errlen, "rbd: image '%s/%s' is in use by another job of this fio "
		 "(pid %ld) through another cluster client (ceph.conf or client id): jobs "
		 "share an image only on one client; give each its own rbdname",
		 im->pool, im->name, (long)getpid());
	return -EBUSY;
}

/* "client.N" of the managed lock's first owner into buf (empty: none). */
static void rbds_owner(struct rbds_image *im, char *buf, size_t len)
{
	char *owners[8];
	size_t n = 8;
	rbd_lock_mode_t mode;

	buf[0] = '\0';
	if (rbd_lock_get_owners(im->img, &mode, owners, &n) || !n)
		return;
	snprintf(buf, len, "%s", owners[0]);
	rbd_lock_get_owners_cleanup(owners, n);
}

/*
 * An image with the exclusive-lock feature: librbd's own lock, which it
 * also takes (and hands over on request) for every write, and which the
 * advisory lock would block forever. Acquired explicitly, it is not handed
 * over; the holder's name and lock owner go into the image's metadata
 * (dbfio.holder, dbfio.owner) while it holds it.
 */

/* The dbfio holder recorded for the lock's current owner (empty: none - the
 * owner is not a dbfio run, or the record is of another owner). */
static void rbds_holder(struct rbds_image *im, const char *owner, char *holder, size_t len)
{
	char rec[256];
	size_t hlen = len, rlen = sizeof(rec);

	if (!owner[0] || rbd_metadata_get(im->img, RBD_OWNER_KEY, rec, &rlen) ||
	    strcmp(rec, owner) || rbd_metadata_get(im->img, RBD_HOLDER_KEY, holder, &hlen))
		holder[0] = '\0';
}

/* Ours, as the lock's owner; -errno with the line in err. */
static int rbds_holder_set(struct rbds_image *im, char *err, size_t errlen)
{
	const char *key = RBD_OWNER_KEY;
	char owner[256];
	int ret;

	rbds_owner(im, owner, sizeof(owner));
	ret = rbd_metadata_set(im->img, key, owner);
	if (!ret) {
		key = RBD_HOLDER_KEY;
		ret = rbd_metadata_set(im->img, key, im->cookie);
	}
	if (ret)
		snprintf(err, errlen, "rbd: rbd_metadata_set(%s/%s, %s) failed: %s",
			 im->pool, im->name, key, strerror(-ret));
	return ret;
}

static int rbds_image_lock_managed(struct rbds_image *im, char *err, size_t errlen)
{
	char owner[256], holder[256] = "", desc[320] = "";
	int ret;

	/*
	 * Broken only when the owner is a run of this host that died (SIGKILL).
	 * A live owner is refused: rbd_lock_acquire would ask a plain librbd
	 * client (a VM, rbd bench) to hand the lock over and stall its writes.
	 */
	rbds_owner(im, owner, sizeof(owner));
	rbds_holder(im, owner, holder, sizeof(holder));
	if (holder[0] && store_holder_gone(holder) &&
	    !rbd_lock_break(im->img, RBD_LOCK_MODE_EXCLUSIVE, owner))
		owner[0] = '\0';
	ret = owner[0] ? -EBUSY : rbd_lock_acquire(im->img, RBD_LOCK_MODE_EXCLUSIVE);
	if (!ret) {
		im->locked = 2;
		return rbds_holder_set(im, err, errlen);
	}
	rbds_owner(im, owner, sizeof(owner));
	rbds_holder(im, owner, holder, sizeof(holder));
	if (holder[0] && store_holder_is_self(holder))
		return rbds_lock_self(im, err, errlen);
	if (holder[0]) {
		strcpy(desc, ", ");
		store_holder_describe(holder, desc + 2, sizeof(desc) - 2);
	}
	if (owner[0])
		snprintf(err, errlen, "rbd: image '%s/%s' is in use by %s%s (its exclusive lock; "
			 "rbd lock ls %s/%s): one run per store, or the two would corrupt each "
			 "other", im->pool, im->name, owner, desc, im->pool, im->name);
	else
		snprintf(err, errlen, "rbd: rbd_lock_acquire(%s/%s) failed: %s", im->pool,
			 im->name, strerror(-ret));
	return -EBUSY;
}

/*
 * The image's lock, for the life of this process's use of it: an advisory
 * exclusive lock, or librbd's own when the image has the exclusive-lock
 * feature. A holder of this host that no longer runs is broken; any other
 * holder is named in the refusal.
 */
int rbds_image_lock(struct rbds_image *im, char *err, size_t errlen)
{
	char client[256], cookie[256], addr[256], desc[320];
	uint64_t features = 0;
	int tries, ret;

	store_holder_self(im->cookie, sizeof(im->cookie));
	if (!rbd_get_features(im->img, &features) && (features & RBD_FEATURE_EXCLUSIVE_LOCK))
		return rbds_image_lock_managed(im, err, errlen);
	for (tries = 0; tries < 5; tries++) {
		ret = rbd_lock_exclusive(im->img, im->cookie);
		if (!ret) {
			im->locked = 1;
			return 0;
		}
		if (ret != -EBUSY && ret != -EEXIST)
			break;
		ret = rbds_locker(im, client, cookie, addr);
		if (ret == -ENOENT)
			continue;	/* released meanwhile */
		if (ret)
			break;
		if (store_holder_is_self(cookie))
			return rbds_lock_self(im, err, errlen);
		if (!store_holder_gone(cookie)) {
			store_holder_describe(cookie, desc, sizeof(desc));
			snprintf(err, errlen, "rbd: image '%s/%s' is in use by %s at %s, %s "
				 "(rbd lock ls %s/%s): one run per store, or the two would "
				 "corrupt each other", im->pool, im->name, client, addr, desc,
				 im->pool, im->name);
			return -EBUSY;
		}
		/* a run of this host that died (SIGKILL): its lock is stale */
		ret = rbd_break_lock(im->img, client, cookie);
		if (ret && ret != -ENOENT)
			break;
	}
	snprintf(err, errlen, "rbd: rbd_lock_exclusive(%s/%s) failed: %s", im->pool,
		 im->name, strerror(-ret));
	return ret ? ret : -EBUSY;
}

void rbds_image_unlock(struct rbds_image *im)
{
	if (im->locked == 1)
		rbd_unlock(im->img, im->cookie);
	else if (im->locked == 2) {
		/* no record of ours survives the lock: it would name the next owner */
		rbd_metadata_remove(im->img, RBD_HOLDER_KEY);
		rbd_metadata_remove(im->img, RBD_OWNER_KEY);
		rbd_lock_release(im->img);
	}
	im->locked = 0;
}
