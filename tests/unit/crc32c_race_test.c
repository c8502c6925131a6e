/*
 * crc32c_race_test.c - redolog_fmt.h's CRC32C from several threads at once.
 * Description: the first rl_crc32c calls of a process race between threads (fio's numjobs)
 *
 * fio's jobs are threads of one process; the first record of each job calls
 * rl_crc32c at about the same moment. A table built lazily by whichever
 * thread comes first let the others read it half built (false "record CRC
 * mismatch" in logverify). Here THREADS threads wait on a barrier, then
 * all compute CRCs of the same buffers; each result is compared with a
 * bit-at-a-time CRC32C computed in this file (no table: shares no code
 * with the engine) and with the standard check value of "123456789".
 * One process only tests one table build: the shell test runs it many times.
 *
 * Exit 0 pass, 1 fail (a wrong CRC, with the thread and the values).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "redolog/redolog_fmt.h"

#define THREADS	4
#define BUFLEN	4096

static pthread_barrier_t go;
static uint8_t buf[BUFLEN];
static uint32_t want;
static int bad;

static uint32_t crc32c_bitwise(const uint8_t *p, size_t len)
{
	uint32_t c = ~0u;
	int k;

	while (len--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
	}
	return ~c;
}

static void *worker(void *arg)
{
	uint32_t got;

	pthread_barrier_wait(&go);
	got = rl_crc32c(0, buf, BUFLEN);
	if (got != want) {
		printf("FAIL: thread %ld: crc32c 0x%08x, expected 0x%08x\n", (long)arg, got, want);
		__atomic_store_n(&bad, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[THREADS];
	long i;

	for (i = 0; i < BUFLEN; i++)
		buf[i] = (uint8_t)(i * 131 + 7);
	want = crc32c_bitwise(buf, BUFLEN);
	if (crc32c_bitwise((const uint8_t *)"123456789", 9) != 0xE3069283u) {
		printf("FAIL: reference CRC32C of \"123456789\" is not 0xE3069283\n");
		return 1;
	}
	pthread_barrier_init(&go, NULL, THREADS);
	for (i = 0; i < THREADS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i)) {
			printf("FAIL: pthread_create\n");
			return 1;
		}
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	if (!bad && rl_crc32c(0, "123456789", 9) != 0xE3069283u) {
		printf("FAIL: rl_crc32c(\"123456789\") is not 0xE3069283\n");
		return 1;
	}
	return bad;
}
