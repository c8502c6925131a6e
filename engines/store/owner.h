/*
 * owner.h - which database-named files in a store dbfio made. No fio headers:
 * the redolog log writer and pgpage use it at the points where they create a
 * file under a database's own name (ib_logfile0, a WAL segment, a relation).
 *
 * Pointed at a real database's directory, a run must not overwrite the
 * database. Every such name is first claimed in a marker file at the store's
 * root, OWNER_MARKER, one name per line; a line "<name>.*" claims <name> and
 * every "<name>.<suffix>" (a relation and its segments). A name that exists
 * but is not claimed is not dbfio's: the engine refuses to touch it. The
 * claim is written before the file is created, so whatever a crash leaves
 * behind is claimed. The marker's I/O bypasses the store's per-call counters:
 * it is dbfio's bookkeeping, not the database's I/O. store=rbd needs no
 * marker: its image is dbfio's by construction.
 *
 * One struct owner per struct store (one thread); jobs of one fio process
 * sharing a directory serialise their marker updates on a process-wide lock.
 *
 * Jobs of one process: every owner alive in the process is known (libdbfio
 * is loaded once, whichever engines a fio loads), so a name one job uses is
 * refused to another job of the same fio while the first runs (-EBUSY, one
 * line naming both jobs): a txn database and a redolog job, or pgpage and
 * txn, on one directory would otherwise write the same files. The clones of
 * one job (numjobs) share their job's name and so its files.
 *
 * The marker stays small: a name that is renamed away or removed while the
 * job runs (a recycled WAL segment's old name) is dropped (owner_drop), and
 * once enough are dropped the marker is rewritten without them, atomically
 * (a new file renamed over it), so a long run neither grows it nor slows
 * its look-ups.
 */
#ifndef DBFIO_OWNER_H
#define DBFIO_OWNER_H

#include <stddef.h>
#include "store.h"

#define OWNER_MARKER	".dbfio-owned"

enum owner_flags {
	OWNER_DURABLE	= 1u << 0,	/* fsync the marker after the claim */
	OWNER_PREFIX	= 1u << 1,	/* claim "<name>.*": the name and its segments */
};

struct owner {
	struct store *s;
	struct owner *next;		/* the process's live owners (owner.c) */
	int live;			/* on that list */
	char where[1024];		/* the store, resolved (store_where) */
	char job[128];			/* the fio job (store_config.job) */
	int off;			/* rbd: nothing to check */
	char **claims;			/* the marker's lines, as last read, plus ours */
	unsigned int nclaims, cap;
	char **mine;			/* lines this owner added or relied on */
	unsigned int nmine, mine_cap;
	char **gone;			/* dropped names still in the marker file */
	unsigned int ngone, gone_cap;
	char err[768];			/* the last refusal or failure, one line */
};

/* Read the marker (if any). Returns 0 or -errno (o->err says why). */
int owner_init(struct owner *o, struct store *s);
void owner_exit(struct owner *o);

/* 1 when name is claimed (by the marker or by this owner). */
int owner_claimed(const struct owner *o, const char *name);

/*
 * 0 when name is claimed or absent; -EEXIST (o->err set) when it is not
 * dbfio's; -EBUSY when another job of this process uses it.
 */
int owner_check(struct owner *o, const char *name);

/*
 * Make name dbfio's before creating it: claimed already, or absent (then
 * claimed now). -EEXIST when it exists and is not claimed (o->err: "<name>
 * exists and dbfio did not create it ..."); another -errno on a marker error.
 */
int owner_claim(struct owner *o, const char *name, unsigned int flags);

/*
 * Like owner_claim, but the existence of each of names[0..n) is checked
 * first (a relation: its segment files); the claim itself is line.
 */
int owner_claim_set(struct owner *o, const char *line, const char *const *names,
		    unsigned int n, unsigned int flags);

/*
 * name (claimed by this owner) no longer exists: renamed away or removed.
 * It leaves this owner's claims; the marker is compacted when many have.
 */
int owner_drop(struct owner *o, const char *name);

/* Make the claims made without OWNER_DURABLE durable: one fsync of the marker. */
int owner_sync(struct owner *o);

/*
 * unlink=1 after the files are gone: drop this owner's lines from the
 * marker; remove the marker when no claim is left.
 */
int owner_release(struct owner *o);

#endif
