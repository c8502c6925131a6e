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
	int off;			/* rbd: nothing to check */
	char **claims;			/* the marker's lines, as last read, plus ours */
	unsigned int nclaims, cap;
	char **mine;			/* lines this owner added or relied on */
	unsigned int nmine, mine_cap;
	char err[256];			/* the last refusal or failure, one line */
};

/* Read the marker (if any). Returns 0 or -errno (o->err says why). */
int owner_init(struct owner *o, struct store *s);
void owner_exit(struct owner *o);

/* 1 when name is claimed (by the marker or by this owner). */
int owner_claimed(const struct owner *o, const char *name);

/* 0 when name is claimed or absent; -EEXIST (o->err set) when it is not dbfio's. */
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

/* Make the claims made without OWNER_DURABLE durable: one fsync of the marker. */
int owner_sync(struct owner *o);

/*
 * unlink=1 after the files are gone: drop this owner's lines from the
 * marker; remove the marker when no claim is left.
 */
int owner_release(struct owner *o);

#endif
