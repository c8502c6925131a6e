/*
 * fio_calib.c - calibration=NAME|PATH|none (fio_calib.h): a profile's
 * key=value lines applied through fio's own parser, as its include would.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"
#include "parse.h"

#include "calib_text.h"
#include "fio_calib.h"
#include "fio_store.h"

#define CALIB_MAX_BYTES	(1 << 20)

static const char *find_shipped(const char *engine, const char *name)
{
	const struct dbfio_calib_text *c;

	for (c = dbfio_calibs; c->engine; c++)
		if (!strcmp(c->engine, engine) && !strcmp(c->name, name))
			return c->text;
	return NULL;
}

static void shipped_names(const char *engine, char *buf, size_t len)
{
	const struct dbfio_calib_text *c;
	size_t n = 0;

	buf[0] = '\0';
	for (c = dbfio_calibs; c->engine && n < len; c++)
		if (!strcmp(c->engine, engine))
			n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "", c->name);
}

/* the whole file, NUL-terminated, or NULL with errno set */
static char *read_profile(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = malloc(CALIB_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		errno = ENOMEM;
		return NULL;
	}
	n = fread(buf, 1, CALIB_MAX_BYTES + 1, f);
	if (ferror(f) || n > CALIB_MAX_BYTES) {
		int err = ferror(f) ? (errno ? errno : EIO) : EFBIG;	/* the read's own cause */

		fclose(f);
		free(buf);
		errno = err;
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* a comment line's text: "; postgres15.fio - what" -> "what"; NULL if not a comment */
static const char *comment_text(const char *line)
{
	const char *dash;

	if (*line != ';' && *line != '#')
		return NULL;
	line++;
	while (*line == ' ' || *line == '\t')
		line++;
	dash = strstr(line, ".fio - ");
	return dash ? dash + 7 : line;
}

/* trim blanks at both ends and an inline comment (" ; ..." as fio's job files) */
static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	for (e = s; *e; e++)
		if ((*e == ';' || *e == '#') && e > s && isspace((unsigned char)e[-1])) {
			*e = '\0';
			break;
		}
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* identity: "value: first comment line; second comment line" (", calibrated by:" dropped) */
static void set_identity(char *id, const char *value, const char *kind, char *text)
{
	char *line, *save = NULL, *cut;
	int n, comments = 0;

	n = snprintf(id, FIO_CALIB_ID_LEN, "%s (%s)", value, kind);
	for (line = strtok_r(text, "\n", &save); line && comments < 2 && n < FIO_CALIB_ID_LEN;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *c = comment_text(line);

		if (!c)
			break;
		cut = strstr(line, ", calibrated by:");
		if (cut)
			*cut = '\0';
		n += snprintf(id + n, FIO_CALIB_ID_LEN - n, "%s%s", comments ? "; " : ": ", c);
		comments++;
	}
}

static int apply_lines(const char *engine, void *eo, const char *value, char *text,
		       const struct fio_option *table)
{
	char *line, *next, *opt, *copy;
	unsigned int lineno = 0;

	for (line = text; line; line = next) {
		const struct fio_option *o = NULL;
		int ret;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		opt = line;
		while (isspace((unsigned char)*opt))
			opt++;
		if (!*opt || *opt == ';' || *opt == '#')
			continue;
		opt = trim(opt);
		if (!strchr(opt, '=')) {
			log_err("%s: calibration=%s, line %u \"%s\": not a key=value line "
				"(a profile holds the engine's options only)\n", engine, value, lineno, opt);
			return 1;
		}
		copy = strdup(opt);
		if (!copy) {
			log_err("%s: calibration=%s: out of memory\n", engine, value);
			return 1;
		}
		ret = parse_option(copy, opt, table, &o, eo, NULL);
		free(copy);
		if (!o) {
			log_err("%s: calibration=%s, line %u \"%s\": not a %s option\n",
				engine, value, lineno, opt, engine);
			return 1;
		}
		if (ret) {
			log_err("%s: calibration=%s, line %u \"%s\": refused by fio's parser (above)\n",
				engine, value, lineno, opt);
			return 1;
		}
		/* what fio's parser misreads ("12uss"): as fio_engine_check_opts() for the job's own */
		if (fio_engine_check_typed(o, strchr(opt, '=') + 1, engine)) {
			log_err("%s: calibration=%s, line %u \"%s\": refused (above)\n",
				engine, value, lineno, opt);
			return 1;
		}
	}
	return 0;
}

int fio_calib_apply(const char *engine, void *eo, const char *value,
		    const struct fio_option *table, char *id)
{
	char names[128], *text, *idtext;
	const char *shipped = NULL;
	int ret;

	if (!strcmp(value, "none")) {
		snprintf(id, FIO_CALIB_ID_LEN, "none (the engine's uncalibrated defaults)");
		return 0;
	}
	if (!strchr(value, '/')) {
		shipped = find_shipped(engine, value);
		if (!shipped) {
			shipped_names(engine, names, sizeof(names));
			log_err("%s: calibration=%s: no %s profile of that name ships with dbfio "
				"(%s; a profile file is named by a path with a '/', e.g. ./%s)\n",
				engine, value, engine, names, value);
			return 1;
		}
		text = strdup(shipped);
	} else {
		text = read_profile(value);
		if (!text) {
			log_err("%s: calibration=%s: cannot read the profile: %s\n",
				engine, value, strerror(errno));
			return 1;
		}
	}
	idtext = text ? strdup(text) : NULL;
	if (!text || !idtext) {
		free(text);
		log_err("%s: calibration=%s: out of memory\n", engine, value);
		return 1;
	}
	set_identity(id, value, shipped ? "shipped with dbfio" : "file", idtext);
	free(idtext);
	ret = apply_lines(engine, eo, value, text, table);
	free(text);
	return ret;
}
