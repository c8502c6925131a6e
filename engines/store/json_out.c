/*
 * json_out.c - the streaming JSON writer of json_out.h: separators and
 * indentation from a small stack of open containers, strings escaped so
 * that every C string gives valid JSON in valid UTF-8.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "json_out.h"

void json_init(struct json_out *j, FILE *f, int pretty)
{
	j->f = f;
	j->pretty = pretty;
	j->depth = 0;
	j->top = false;
	j->keyed = false;
	j->misuse = false;
}

static void indent(struct json_out *j)
{
	fprintf(j->f, "\n%*s", 2 * j->depth, "");
}

/* Before a member of the innermost container (or the one top-level value). */
static void separate(struct json_out *j)
{
	bool *any;

	if (!j->depth) {
		if (j->top)
			j->misuse = true;	/* a second top-level value */
		j->top = true;
		return;
	}
	any = &j->any[j->depth - 1];
	if (*any)
		fputc(',', j->f);
	if (j->depth <= j->pretty)
		indent(j);
	else if (*any)
		fputc(' ', j->f);
	*any = true;
}

/* Before a value: in an object it must follow its key. */
static void value(struct json_out *j)
{
	bool in_obj = j->depth && j->open[j->depth - 1] == '{';

	if (in_obj != j->keyed)
		j->misuse = true;
	if (j->keyed)
		j->keyed = false;
	else
		separate(j);
}

/*
 * Length of the valid UTF-8 sequence at p (1..4), or 0: overlong forms,
 * UTF-16 surrogates, code points above U+10FFFF and truncated sequences are
 * not valid (RFC 3629's table).
 */
static int utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int n, i;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;		/* overlong below U+0800 */
	else if (p[0] == 0xed)
		hi = 0x9f;		/* U+D800..U+DFFF */
	else if (p[0] == 0xf0)
		lo = 0x90;		/* overlong below U+10000 */
	else if (p[0] == 0xf4)
		hi = 0x8f;		/* above U+10FFFF */
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

static void put_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	fputc('"', f);
	while (*p) {
		switch (*p) {
		case '"':  fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(f, "\\u%04x", *p);
			} else if (*p < 0x80) {
				fputc(*p, f);
			} else if ((n = utf8_len(p))) {
				fwrite(p, 1, n, f);
				p += n;
				continue;
			} else {
				/* not UTF-8: Python's surrogateescape of the byte */
				fprintf(f, "\\udc%02x", *p);
			}
		}
		p++;
	}
	fputc('"', f);
}

static void begin(struct json_out *j, char c)
{
	value(j);
	fputc(c, j->f);
	if (j->depth == JSON_MAX_DEPTH) {
		j->misuse = true;
		return;
	}
	j->open[j->depth] = c;
	j->any[j->depth] = false;
	j->depth++;
}

static void end(struct json_out *j, char open, char close)
{
	if (!j->depth || j->open[j->depth - 1] != open || j->keyed) {
		j->misuse = true;
		return;
	}
	j->depth--;
	if (j->any[j->depth] && j->depth < j->pretty)
		indent(j);
	fputc(close, j->f);
}

void json_obj_begin(struct json_out *j) { begin(j, '{'); }
void json_obj_end(struct json_out *j) { end(j, '{', '}'); }
void json_arr_begin(struct json_out *j) { begin(j, '['); }
void json_arr_end(struct json_out *j) { end(j, '[', ']'); }

void json_key(struct json_out *j, const char *key)
{
	if (!j->depth || j->open[j->depth - 1] != '{' || j->keyed || !key) {
		j->misuse = true;
		return;
	}
	separate(j);
	put_string(j->f, key);
	fputs(": ", j->f);
	j->keyed = true;
}

void json_str(struct json_out *j, const char *s)
{
	value(j);
	if (s)
		put_string(j->f, s);
	else
		fputs("null", j->f);
}

void json_int(struct json_out *j, long long v)
{
	value(j);
	fprintf(j->f, "%lld", v);
}

void json_uint(struct json_out *j, unsigned long long v)
{
	value(j);
	fprintf(j->f, "%llu", v);
}

void json_real(struct json_out *j, double v, int decimals)
{
	value(j);
	if (!isfinite(v))
		fputs("null", j->f);
	else if (decimals < 0)
		fprintf(j->f, "%g", v);
	else
		fprintf(j->f, "%.*f", decimals, v);
}

void json_bool(struct json_out *j, bool v)
{
	value(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json_out *j)
{
	value(j);
	fputs("null", j->f);
}

void json_kstr(struct json_out *j, const char *key, const char *s)
{
	json_key(j, key);
	json_str(j, s);
}

void json_kint(struct json_out *j, const char *key, long long v)
{
	json_key(j, key);
	json_int(j, v);
}

void json_kuint(struct json_out *j, const char *key, unsigned long long v)
{
	json_key(j, key);
	json_uint(j, v);
}

void json_kreal(struct json_out *j, const char *key, double v, int decimals)
{
	json_key(j, key);
	json_real(j, v, decimals);
}

void json_kbool(struct json_out *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

void json_kobj(struct json_out *j, const char *key)
{
	json_key(j, key);
	json_obj_begin(j);
}

void json_karr(struct json_out *j, const char *key)
{
	json_key(j, key);
	json_arr_begin(j);
}

int json_finish(struct json_out *j)
{
	if (j->depth || j->keyed || !j->top)
		j->misuse = true;
	fputc('\n', j->f);
	if (j->misuse)
		return -EINVAL;
	return ferror(j->f) ? -EIO : 0;
}

static int sidecar_fail(int err, const char *call, const char *name, char *what, size_t len)
{
	snprintf(what, len, "%s(%s)", call, name);
	return -err;
}

int json_sidecar(const char *path, int pretty, json_body_fn body, void *arg,
		 char *what, size_t whatlen)
{
	static unsigned int seq;	/* two jobs of one process never share a name */
	struct json_out j;
	char tmp[4096];
	int fd, r, err;
	FILE *f;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d.%u", path, (int)getpid(),
			     __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED)) >= sizeof(tmp))
		return sidecar_fail(ENAMETOOLONG, "open", path, what, whatlen);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0)
		return sidecar_fail(errno, "open", tmp, what, whatlen);
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		unlink(tmp);
		return sidecar_fail(err, "fdopen", tmp, what, whatlen);
	}
	json_init(&j, f, pretty);
	errno = 0;
	body(&j, arg);
	r = json_finish(&j);
	if (r == -EINVAL) {
		fclose(f);
		unlink(tmp);
		return sidecar_fail(EINVAL, "json", "unbalanced", what, whatlen);
	}
	/* stdio keeps the errno of the write that failed (ENOSPC, EDQUOT, EIO) */
	err = errno;
	if (!r && fflush(f))
		r = -1, err = errno;
	if (r || ferror(f)) {
		fclose(f);
		unlink(tmp);
		return sidecar_fail(err ? err : EIO, "write", tmp, what, whatlen);
	}
	if (fsync(fd)) {
		err = errno;
		fclose(f);
		unlink(tmp);
		return sidecar_fail(err, "fsync", tmp, what, whatlen);
	}
	if (fclose(f)) {
		err = errno;
		unlink(tmp);
		return sidecar_fail(err, "close", tmp, what, whatlen);
	}
	if (rename(tmp, path)) {
		err = errno;
		unlink(tmp);
		return sidecar_fail(err, "rename", tmp, what, whatlen);
	}
	return 0;
}
