/*
 * rbdsnap_trim.c - the pool's removed snapshots the OSDs have not trimmed yet.
 *
 * A removed snapshot's clones are deleted later, by the OSDs' snap trimmer,
 * which shares the disks with the writer: on a slow OSD (an HDD sleeps
 * osd_snap_trim_sleep_hdd between trims) the previous run's snapshots are
 * still being trimmed when the next run's baseline starts, and their clones
 * still fill the OSD. The osdmap lists each pool's removed snapshots until
 * every PG has purged them (removed_snaps_queue, Octopus and later);
 * snap_trim_wait waits for that list to empty before the baseline.
 */
#include "rbdsnap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The end of the JSON array or object starting at p ('[' or '{'), or NULL. */
const char *rs_json_close(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return NULL;
		} else if (*p == '[' || *p == '{') {
			depth++;
		} else if ((*p == ']' || *p == '}') && --depth == 0) {
			return p;
		}
	}
	return NULL;
}

/*
 * In `osd dump`'s JSON, the snapshots of pool queued for trimming:
 * "removed_snaps_queue":[{"pool":2,"snaps":[{"begin":4,"length":3},...]},...]
 * summed over the intervals' lengths. -ENOTSUP: no such list (before Octopus).
 */
long rs_trim_parse(const char *js, int64_t pool)
{
	const char *p = strstr(js, "\"removed_snaps_queue\":"), *end;
	long n = 0;

	if (!p)
		return -ENOTSUP;
	p = strchr(p, '[');
	end = p ? rs_json_close(p) : NULL;
	if (!end)
		return -EINVAL;
	while ((p = strstr(p, "\"pool\":")) && p < end) {
		const char *obj_end, *s;
		char *e;
		long long id = strtoll(p + strlen("\"pool\":"), &e, 10);

		/* the pool's object: from its "pool" key to the "snaps" array's end */
		s = strstr(e, "\"snaps\":");
		s = s ? strchr(s, '[') : NULL;
		obj_end = s ? rs_json_close(s) : NULL;
		if (!obj_end || obj_end > end)
			return -EINVAL;
		if (id == pool) {
			while ((s = strstr(s, "\"length\":")) && s < obj_end)
				n += strtol(s + strlen("\"length\":"), (char **)&s, 10);
		}
		p = obj_end;
	}
	return n;
}

/* The pool's snapshots still queued for trimming (the monitors' osdmap). */
long rs_trim_queued(rados_t cluster, int64_t pool)
{
	const char *cmd[] = { "{\"prefix\": \"osd dump\", \"format\": \"json\"}" };
	char *out = NULL, *outs = NULL, *js;
	size_t outlen = 0, outslen = 0;
	long n;
	int r;

	/* bounded by rados_mon_op_timeout (connect_timeout) */
	r = rados_mon_command(cluster, cmd, 1, "", 0, &out, &outlen, &outs, &outslen);
	if (r < 0)
		return r;
	js = strndup(out ? out : "", outlen);
	n = js ? rs_trim_parse(js, pool) : -ENOMEM;
	free(js);
	rados_buffer_free(out);
	rados_buffer_free(outs);
	return n;
}
