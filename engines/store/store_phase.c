/*
 * store_phase.c - the store's calls split by phase: what the engine was
 * doing when it made them (metastorm: a DDL statement type, its set-up, the
 * copy of an ALTER, a checkpoint, the clean-up). store.c charges every call
 * to the current phase next to its totals; this file names the phases, moves
 * between them and hands out their counts and latency series, so an engine
 * never counts or times store calls itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"

/* A call strace shows, naming the phase; it fails (ENOENT) by design. */
static void mark(const struct store_phases *ph, unsigned int phase)
{
	char path[96];

	snprintf(path, sizeof(path), "/dbfio-phase/%s", ph->names[phase]);
	(void)!access(path, F_OK);
}

int store_phases_init(struct store *s, const char *const *names, unsigned int n)
{
	struct store_phases *ph;
	const char *env = getenv("DBFIO_STORE_PHASE_MARK");

	if (s->ph || !n || n > STORE_MAX_PHASES)
		return -EINVAL;
	ph = calloc(1, sizeof(*ph));
	if (!ph)
		return -ENOMEM;
	if (s->cfg.timing) {
		ph->lat = calloc(n, sizeof(*ph->lat));
		if (!ph->lat) {
			free(ph);
			return -ENOMEM;
		}
	}
	ph->n = n;
	ph->names = names;
	ph->mark = env && *env && strcmp(env, "0");
	s->ph = ph;
	if (ph->mark)
		mark(ph, 0);
	return 0;
}

void store_phases_free(struct store *s)
{
	if (!s->ph)
		return;
	free(s->ph->lat);
	free(s->ph);
	s->ph = NULL;
}

void store_set_phase(struct store *s, unsigned int phase)
{
	struct store_phases *ph = s->ph;

	if (!ph || phase >= ph->n)
		return;
	if (ph->mark && phase != ph->cur)
		mark(ph, phase);
	ph->cur = phase;
}

unsigned int store_phase(const struct store *s)
{
	return s->ph ? s->ph->cur : 0;
}

const uint64_t *store_phase_counts(const struct store *s, unsigned int phase)
{
	return s->ph && phase < s->ph->n ? s->ph->count[phase] : NULL;
}

const struct latstat *store_phase_lat(const struct store *s, unsigned int phase)
{
	return s->ph && s->ph->lat && phase < s->ph->n ? s->ph->lat[phase] : NULL;
}
