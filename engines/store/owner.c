/*
 * owner.c - the ownership marker of the files dbfio creates under a
 * database's own names (see owner.h for the rules).
 *
 * The marker is a small text file at the store's root: a header line, then
 * one claimed name per line. Claims are appended (pwrite at the end), so a
 * crash at any point leaves every earlier claim intact; the claims made at
 * start-up are fsynced, so they survive a power loss as well. A claim made
 * while the job runs (a recycled WAL segment's new name) is not fsynced: it
 * survives a killed process (the page cache does), and a power loss can only
 * make the next run refuse a file dbfio made, never overwrite one it did not.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "owner.h"

#define OWNER_HEADER	"dbfio owner marker 1: the names below were created by dbfio's engines\n"
#define OWNER_MAX	(64u << 20)

/* compact the marker once this many dropped names (and as many as it claims) are in it */
#define OWNER_COMPACT_AT	64u
#define OWNER_TMP		OWNER_MARKER ".new"
/* a marker with more claims than this is compacted when a run starts */
#define OWNER_BIG		4096u

/* jobs of one fio process (threads) may share a directory and its marker */
static pthread_mutex_t owner_lock = PTHREAD_MUTEX_INITIALIZER;
/* every owner alive in this process (owner.h: jobs of one process); under owner_lock */
static struct owner *owners;

static int owner_fail(struct owner *o, int ret, const char *call, const char *name)
{
	snprintf(o->err, sizeof(o->err), "%s(%s) failed: %s", call, name, strerror(-ret));
	return ret;
}

static int push(char ***v, unsigned int *n, unsigned int *cap, const char *s, size_t len)
{
	char **nv;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		nv = realloc(*v, *cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
	}
	(*v)[*n] = strndup(s, len);
	if (!(*v)[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

static void free_list(char **v, unsigned int n)
{
	while (n--)
		free(v[n]);
	free(v);
}

static int in_list(char *const *v, unsigned int n, const char *line)
{
	while (n--)
		if (!strcmp(v[n], line))
			return 1;
	return 0;
}

static int compact(struct owner *o);

/*
 * The marker's calls go to the backend directly: not counted as the
 * database's I/O, and never O_DIRECT (the marker's buffers are not aligned).
 */
static int m_open(struct store *s, const char *name, int flags, struct store_file **fp)
{
	return s->ops->open(s, name, flags | STORE_O_BUFFERED, 0644, 4096, fp);
}

/* 1 when name exists in the store, 0 when not, or -errno. */
static int exists(struct store *s, const char *name)
{
	struct store_file *f;
	int ret = m_open(s, name, O_RDONLY, &f);

	if (!ret) {
		s->ops->close(s, f);
		return 1;
	}
	return ret == -ENOENT || ret == -ENOTDIR ? 0 : ret;
}

/* (Re)read the marker's claims. Caller holds owner_lock. */
static int load(struct owner *o)
{
	struct store_file *f;
	uint64_t size = 0;
	char *text, *p, *nl;
	ssize_t n;
	int ret;

	free_list(o->claims, o->nclaims);
	o->claims = NULL;
	o->nclaims = o->cap = 0;
	ret = m_open(o->s, OWNER_MARKER, O_RDONLY, &f);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return owner_fail(o, ret, "open", OWNER_MARKER);
	ret = o->s->ops->fstat(o->s, f, &size);
	if (!ret && size > OWNER_MAX)
		ret = -EFBIG;
	text = ret ? NULL : malloc(size + 1);
	if (!ret && !text)
		ret = -ENOMEM;
	if (!ret) {
		n = o->s->ops->preadv(o->s, f, &(struct iovec){ text, size }, 1, 0);
		ret = n < 0 ? (int)n : 0;
		size = n < 0 ? 0 : (uint64_t)n;
	}
	o->s->ops->close(o->s, f);
	for (p = text; !ret && p < text + size; p = nl + 1) {
		text[size] = '\0';
		nl = strchr(p, '\n');
		if (!nl)
			break;	/* a claim cut short by a crash: its file was never made */
		if (nl > p && strncmp(p, OWNER_HEADER, nl - p))
			ret = push(&o->claims, &o->nclaims, &o->cap, p, nl - p);
	}
	free(text);
	return ret ? owner_fail(o, ret, "read", OWNER_MARKER) : 0;
}

int owner_init(struct owner *o, struct store *s)
{
	int ret = 0;

	memset(o, 0, sizeof(*o));
	o->s = s;
	o->off = !!(store_caps(s) & STORE_CAP_IMAGE);	/* dbfio's own container */
	store_where(s, o->where, sizeof(o->where));
	snprintf(o->job, sizeof(o->job), "%s", s->cfg.job ? s->cfg.job : "?");
	pthread_mutex_lock(&owner_lock);
	if (!o->off)
		ret = load(o);
	if (!ret && o->nclaims > OWNER_BIG)
		ret = compact(o);
	o->next = owners;
	owners = o;
	o->live = 1;
	pthread_mutex_unlock(&owner_lock);
	return ret;
}

void owner_exit(struct owner *o)
{
	struct owner **pp;

	pthread_mutex_lock(&owner_lock);
	for (pp = &owners; o->live && *pp; pp = &(*pp)->next)
		if (*pp == o) {
			*pp = o->next;
			break;
		}
	o->live = 0;
	pthread_mutex_unlock(&owner_lock);
	free_list(o->claims, o->nclaims);
	free_list(o->mine, o->nmine);
	free_list(o->gone, o->ngone);
	o->claims = o->mine = o->gone = NULL;
	o->nclaims = o->nmine = o->ngone = 0;
}

static int line_matches(const char *line, const char *name)
{
	size_t n = strlen(line);

	if (n >= 2 && !strcmp(line + n - 2, ".*"))	/* "<stem>.*": stem and stem.<suffix> */
		return !strncmp(line, name, n - 2) && (!name[n - 2] || name[n - 2] == '.');
	return !strcmp(line, name);
}

/* The stem a line names: "16384.*" -> "16384". */
static void line_stem(const char *line, char *buf, size_t len)
{
	size_t n = strlen(line);

	if (n >= 2 && !strcmp(line + n - 2, ".*"))
		n -= 2;
	snprintf(buf, len, "%.*s", (int)n, line);
}

/* Do two claim lines name a file in common? */
static int lines_overlap(const char *a, const char *b)
{
	char sa[512], sb[512];

	line_stem(a, sa, sizeof(sa));
	line_stem(b, sb, sizeof(sb));
	return !strcmp(a, b) || line_matches(a, sb) || line_matches(b, sa);
}

/* Another job of this process that uses line in o's store, or NULL. Caller holds owner_lock. */
static const struct owner *user_of(const struct owner *o, const char *line)
{
	const struct owner *e;
	unsigned int i;

	for (e = owners; e; e = e->next) {
		if (e == o || !strcmp(e->job, o->job) || strcmp(e->where, o->where))
			continue;
		for (i = 0; i < e->nmine; i++)
			if (lines_overlap(e->mine[i], line))
				return e;
	}
	return NULL;
}

/* 1 when a live owner of this process relies on line. Caller holds owner_lock. */
static int used(const char *line)
{
	const struct owner *e;

	for (e = owners; e; e = e->next)
		if (in_list(e->mine, e->nmine, line))
			return 1;
	return 0;
}

/* -EBUSY (o->err set) when another job of this process uses line. Caller holds owner_lock. */
static int in_use(struct owner *o, const char *line)
{
	const struct owner *e = user_of(o, line);
	char name[512];

	if (!e)
		return 0;
	line_stem(line, name, sizeof(name));
	snprintf(o->err, sizeof(o->err), "job %.60s: %.128s in %.300s is already used by job "
		 "%.60s of this fio: two jobs writing one database's files overwrite each other; "
		 "give each its own directory (or file names)", o->job, name, o->where, e->job);
	return -EBUSY;
}

static int claimed_locked(const struct owner *o, const char *name)
{
	unsigned int i;

	if (user_of(o, name))
		return 0;
	if (o->off)
		return 1;
	for (i = 0; i < o->nclaims; i++)
		if (line_matches(o->claims[i], name))
			return 1;
	return 0;
}

int owner_claimed(const struct owner *o, const char *name)
{
	int ret;

	pthread_mutex_lock(&owner_lock);
	ret = claimed_locked(o, name);
	pthread_mutex_unlock(&owner_lock);
	return ret;
}

static int have_line(const struct owner *o, const char *line)
{
	unsigned int i;

	for (i = 0; i < o->nclaims; i++)
		if (!strcmp(o->claims[i], line))
			return 1;
	return 0;
}

/* Append line to the marker (created with its header when missing). Caller holds owner_lock. */
static int append(struct owner *o, const char *line, unsigned int flags)
{
	struct store *s = o->s;
	struct store_file *f;
	char buf[1024];
	uint64_t size = 0;
	int ret, made = 0, n;
	ssize_t w;

	ret = m_open(s, OWNER_MARKER, O_RDWR | O_CREAT | O_EXCL, &f);
	if (!ret)
		made = 1;
	else if (ret == -EEXIST)
		ret = m_open(s, OWNER_MARKER, O_RDWR, &f);
	if (ret)
		return owner_fail(o, ret, "open", OWNER_MARKER);
	n = snprintf(buf, sizeof(buf), "%s%s\n", made ? OWNER_HEADER : "", line);
	if (n >= (int)sizeof(buf)) {
		ret = -ENAMETOOLONG;
	} else if (!(ret = s->ops->fstat(s, f, &size))) {
		w = s->ops->pwritev(s, f, &(struct iovec){ buf, n }, 1, size);
		ret = w < 0 ? (int)w : w != n ? -EIO : 0;
	}
	if (!ret && (made || (flags & OWNER_DURABLE)))
		ret = s->ops->fsync(s, f, 0);
	s->ops->close(s, f);
	if (!ret && made && s->ops->dirsync)	/* the marker's own name must survive too */
		ret = s->ops->dirsync(s, ".");
	if (ret)
		return owner_fail(o, ret, "append claim to", OWNER_MARKER);
	return push(&o->claims, &o->nclaims, &o->cap, line, strlen(line));
}

/* Caller holds owner_lock. 0: claimed or absent; -EEXIST: not ours. */
static int check(struct owner *o, const char *name)
{
	int ret;

	if ((ret = in_use(o, name)))
		return ret;
	if (o->off || claimed_locked(o, name))
		return 0;
	ret = exists(o->s, name);
	if (ret < 0)
		return owner_fail(o, ret, "open", name);
	if (!ret)
		return 0;
	/* another job of this process may have claimed it meanwhile */
	ret = load(o);
	if (ret || claimed_locked(o, name))
		return ret;
	snprintf(o->err, sizeof(o->err), "%s exists and dbfio did not create it (it is not "
		 "listed in %s): refusing to overwrite it; point the job at another directory",
		 name, OWNER_MARKER);
	return -EEXIST;
}

static int claim_locked(struct owner *o, const char *line, const char *const *names,
			unsigned int n, unsigned int flags)
{
	unsigned int i;
	int ret = 0;

	ret = in_use(o, line);
	for (i = 0; !ret && i < n; i++)
		ret = check(o, names[i]);
	if (!ret && !o->off && !have_line(o, line))
		ret = append(o, line, flags);
	if (!ret && !in_list(o->mine, o->nmine, line))	/* a name claimed again: listed once */
		ret = push(&o->mine, &o->nmine, &o->mine_cap, line, strlen(line));
	return ret;
}

int owner_check(struct owner *o, const char *name)
{
	int ret;

	pthread_mutex_lock(&owner_lock);
	ret = check(o, name);
	pthread_mutex_unlock(&owner_lock);
	return ret;
}

int owner_claim_set(struct owner *o, const char *line, const char *const *names,
		    unsigned int n, unsigned int flags)
{
	int ret;

	/* rbd (off): no marker, but another job's names are refused and unlink=1 removes it */
	pthread_mutex_lock(&owner_lock);
	ret = claim_locked(o, line, names, n, flags);
	pthread_mutex_unlock(&owner_lock);
	return ret;
}

int owner_claim(struct owner *o, const char *name, unsigned int flags)
{
	char line[512];

	if (!(flags & OWNER_PREFIX) && owner_claimed(o, name))
		return owner_claim_set(o, name, NULL, 0, flags);
	snprintf(line, sizeof(line), "%s%s", name, flags & OWNER_PREFIX ? ".*" : "");
	return owner_claim_set(o, line, &name, 1, flags);
}

int owner_sync(struct owner *o)
{
	struct store_file *f;
	int ret;

	if (o->off || !o->nmine)
		return 0;
	ret = m_open(o->s, OWNER_MARKER, O_RDWR, &f);
	if (ret)
		return owner_fail(o, ret, "open", OWNER_MARKER);
	ret = o->s->ops->fsync(o->s, f, 0);
	o->s->ops->close(o->s, f);
	return ret ? owner_fail(o, ret, "fsync", OWNER_MARKER) : 0;
}

/*
 * Write text as the marker: a new file renamed over it, so a crash leaves
 * the old marker or the new one, never a mix; empty text removes it.
 */
static int write_marker(struct store *s, const char *text, size_t len)
{
	struct store_file *f;
	ssize_t w;
	int ret;

	if (!len) {
		ret = s->ops->unlink(s, OWNER_MARKER);
		return ret == -ENOENT ? 0 : ret;
	}
	s->ops->unlink(s, OWNER_TMP);	/* a crashed rewrite's; dbfio's name */
	ret = m_open(s, OWNER_TMP, O_RDWR | O_CREAT | O_EXCL, &f);
	if (ret)
		return ret;
	w = s->ops->pwritev(s, f, &(struct iovec){ (void *)text, len }, 1, 0);
	ret = w < 0 ? (int)w : (size_t)w != len ? -EIO : 0;
	if (!ret)
		ret = s->ops->fsync(s, f, 0);
	s->ops->close(s, f);
	if (!ret)
		ret = s->ops->rename(s, OWNER_TMP, OWNER_MARKER);
	if (!ret && s->ops->dirsync)
		ret = s->ops->dirsync(s, ".");
	if (ret)
		s->ops->unlink(s, OWNER_TMP);
	return ret;
}

enum rewrite_how {
	RW_RELEASE,	/* less this owner's claims and the names it dropped */
	RW_GONE,	/* less the names it dropped that do not exist */
	RW_STALE,	/* less every name that does not exist (an old, long marker) */
};

/* Does the rewrite leave claim c out? Caller holds owner_lock. */
static int dropped(const struct owner *o, const char *c, enum rewrite_how how)
{
	switch (how) {
	case RW_RELEASE:
		if (in_list(o->mine, o->nmine, c))
			return 1;
		/* and the names it dropped */
		__attribute__((fallthrough));
	case RW_GONE:
		return in_list(o->gone, o->ngone, c) && !used(c) && exists(o->s, c) == 0;
	default:
		return !strchr(c, '*') && !used(c) && exists(o->s, c) == 0;
	}
}

/*
 * Rewrite the marker from its current claims, less those `how` drops.
 * Caller holds owner_lock and has just loaded the marker.
 */
static int rewrite(struct owner *o, enum rewrite_how how)
{
	size_t len = strlen(OWNER_HEADER), off;
	unsigned int i, kept = 0;
	const char *c;
	char *text;
	int ret;

	for (i = 0; i < o->nclaims; i++)
		len += strlen(o->claims[i]) + 1;
	text = malloc(len + 1);
	if (!text)
		return -ENOMEM;
	off = sprintf(text, "%s", OWNER_HEADER);
	for (i = 0; i < o->nclaims; i++) {
		c = o->claims[i];
		if (dropped(o, c, how))
			continue;
		off += sprintf(text + off, "%s\n", c);
		kept++;
	}
	ret = write_marker(o->s, text, kept ? off : 0);
	free(text);
	return ret;
}

/*
 * Drop the claims of names that no longer exist from a marker that grew
 * large (an earlier version's runs appended every recycled WAL segment's
 * name and never removed one). Caller holds owner_lock.
 */
static int compact(struct owner *o)
{
	int ret = rewrite(o, RW_STALE);

	if (ret)
		return owner_fail(o, ret, "compact", OWNER_MARKER);
	return load(o);
}

static void unlist(char **v, unsigned int *n, const char *line)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (!strcmp(v[i], line)) {
			free(v[i]);
			v[i--] = v[--*n];
		}
}

int owner_drop(struct owner *o, const char *name)
{
	int ret = 0;

	pthread_mutex_lock(&owner_lock);
	unlist(o->mine, &o->nmine, name);
	if (!o->off && !in_list(o->gone, o->ngone, name))
		ret = push(&o->gone, &o->ngone, &o->gone_cap, name, strlen(name));
	if (!ret && o->ngone >= OWNER_COMPACT_AT && o->ngone >= o->nmine) {
		ret = load(o);
		if (!ret && (ret = rewrite(o, RW_GONE)))
			owner_fail(o, ret, "compact", OWNER_MARKER);
		free_list(o->gone, o->ngone);
		o->gone = NULL;
		o->ngone = o->gone_cap = 0;
		if (!ret)
			ret = load(o);
	}
	pthread_mutex_unlock(&owner_lock);
	return ret;
}

int owner_release(struct owner *o)
{
	int ret;

	if (o->off || !o->nmine)
		return 0;
	pthread_mutex_lock(&owner_lock);
	ret = load(o);
	if (!ret && (ret = rewrite(o, RW_RELEASE)))
		owner_fail(o, ret, "rewrite", OWNER_MARKER);
	pthread_mutex_unlock(&owner_lock);
	return ret;
}
