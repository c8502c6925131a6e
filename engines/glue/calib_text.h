/*
 * calib_text.h - the calibration profiles shipped with dbfio, embedded in
 * libdbfio.so at build time from jobs/txn-profiles/NAME.fio and
 * jobs/metastorm-profiles/NAME.fio (those files stay the source: lab/txncalib
 * and lab/ddlcalib write them). fio-free; the Makefile generates the table.
 */
#ifndef DBFIO_CALIB_TEXT_H
#define DBFIO_CALIB_TEXT_H

struct dbfio_calib_text {
	const char *engine;	/* "txn", "metastorm" */
	const char *name;	/* the file's name without .fio */
	const char *text;	/* the file, as shipped */
};

/* ends with an all-NULL entry */
extern const struct dbfio_calib_text dbfio_calibs[];

#endif
