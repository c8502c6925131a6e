/*
 * json_out.h - the one JSON writer behind every dbfio sidecar (lat_json,
 * table_json, snap_json). fio-free: it writes to a stdio stream as it goes,
 * with no tree in memory (fio's json.c builds one; a sidecar is written once,
 * at the end of a job, and needs none).
 *
 * The writer keeps the commas, the nesting and the escaping; callers name
 * keys and values:
 *
 *	struct json_out j;
 *	json_init(&j, f, 1);
 *	json_obj_begin(&j);
 *	json_kstr(&j, "job", td->o.name);
 *	json_key(&j, "calls");
 *	latstat_json(&j, rows, n);
 *	json_obj_end(&j);
 *	if (json_finish(&j)) ... an error: misuse or a failed write
 *
 * Strings are escaped so that any C string gives valid JSON in valid UTF-8:
 * quote, backslash and control characters as JSON escapes; valid UTF-8 as
 * itself; every byte that is not part of valid UTF-8 as \udcXX, the lone
 * surrogate Python's "surrogateescape" gives the byte 0xXX (PEP 383), so
 * Python's json module reads back the same str as os.fsdecode() of the
 * bytes and os.fsencode() restores them - a job name or path that is not
 * UTF-8 survives. Doubles that are NaN or infinite are written as null.
 *
 * A sidecar is written whole or not at all (json_sidecar): into a temporary
 * file in the same directory, flushed, then renamed over its name, so that a
 * reader (a tool polling for it, a user's script) sees the old file or the
 * new one, never half of one.
 *
 * Layout: the members of containers at depth <= pretty (the top level is
 * depth 1) start a line of their own, indented two spaces per level; deeper
 * ones follow each other on one line, as "key": value, "key": value.
 */
#ifndef DBFIO_JSON_OUT_H
#define DBFIO_JSON_OUT_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	16

struct json_out {
	FILE *f;
	int pretty;
	int depth;
	char open[JSON_MAX_DEPTH];	/* '{' or '[' per open container */
	bool any[JSON_MAX_DEPTH];	/* it has a member already */
	bool top;			/* the top-level value was begun */
	bool keyed;			/* a key was written: its value is next */
	bool misuse;			/* unbalanced, too deep, a key out of place */
};

void json_init(struct json_out *j, FILE *f, int pretty);
/* After the last value: a newline; 0, or -EINVAL on misuse, -EIO on a write error. */
int json_finish(struct json_out *j);

void json_obj_begin(struct json_out *j);
void json_obj_end(struct json_out *j);
void json_arr_begin(struct json_out *j);
void json_arr_end(struct json_out *j);
void json_key(struct json_out *j, const char *key);

/* Values: inside an array, or after json_key. json_str(NULL) writes null. */
void json_str(struct json_out *j, const char *s);
void json_int(struct json_out *j, long long v);
void json_uint(struct json_out *j, unsigned long long v);
/* decimals >= 0: "%.*f"; < 0: "%g". NaN and infinities: null. */
void json_real(struct json_out *j, double v, int decimals);
void json_bool(struct json_out *j, bool v);
void json_null(struct json_out *j);

/* A key and its value. */
void json_kstr(struct json_out *j, const char *key, const char *s);
void json_kint(struct json_out *j, const char *key, long long v);
void json_kuint(struct json_out *j, const char *key, unsigned long long v);
void json_kreal(struct json_out *j, const char *key, double v, int decimals);
void json_kbool(struct json_out *j, const char *key, bool v);
void json_kobj(struct json_out *j, const char *key);	/* "key": { */
void json_karr(struct json_out *j, const char *key);	/* "key": [ */

/*
 * Write the sidecar path: body(j, arg) writes the one top-level value into
 * "<path>.tmp.<pid>.<n>" (created with O_EXCL, mode 0666 less the umask),
 * which is flushed, fsync()ed and renamed to path. 0, or -errno with what
 * failed in what ("open(<tmp>)", "write(<tmp>)", "rename(<tmp>)": the call
 * and its argument); the temporary file is removed then, path untouched.
 */
typedef void (*json_body_fn)(struct json_out *j, void *arg);
int json_sidecar(const char *path, int pretty, json_body_fn body, void *arg,
		 char *what, size_t whatlen);

#endif
