/*
 * fio_calib.h - calibration=NAME|PATH|none, the option an engine with a
 * calibrated profile (txn, metastorm) takes instead of fio's include: a job
 * file's include is not sent to fio --server (the server sees "Bad option"),
 * an engine option is.
 *
 * NAME (no '/'): a profile shipped with dbfio (calib_text.h). PATH: a
 * profile file read where the job runs. Its key=value lines go through fio's
 * own parse_option() against the engine's option table, in the job's order:
 * what follows calibration= in the job overrides it, as after an include.
 * Include after fio's headers.
 */
#ifndef DBFIO_FIO_CALIB_H
#define DBFIO_FIO_CALIB_H

#define FIO_CALIB_ID_LEN	320

/*
 * The option, for an engine's table: field is a char * (the value as typed),
 * cb the engine's parse callback, which calls fio_calib_apply() with its own
 * table and identity buffer.
 */
#define FIO_CALIB_OPTION(T, field, cbfn, hlp)					\
	{ FIO_ENGINE_OPT_(T, "calibration", FIO_OPT_STR_STORE, field, hlp,	\
		NULL, 0, 0, 0), .cb = (cbfn) }

/*
 * Apply calibration=value to the engine's options (eo) through fio's parser
 * against table. id (FIO_CALIB_ID_LEN bytes) receives the profile's identity:
 * the value, then the first two lines of its comment header (what it
 * calibrates, the host and date). Returns 0, or 1 after one log_err line
 * naming the option, the value and the cause.
 */
int fio_calib_apply(const char *engine, void *eo, const char *value,
		    const struct fio_option *table, char *id);

#endif
