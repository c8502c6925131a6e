/*
 * synctest - the store layer's write+fdatasync loop, pg_test_fsync style:
 * rewrite one block at offset 0 and fdatasync it, for --secs seconds, and
 * print "ops/s usecs/op". The bench pairs it with pg_test_fsync's figure.
 *
 *   synctest --store=posix --dir=DIR [--bs=8192] [--secs=2] [--fsync]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: synctest --store=posix|uring|aio|cephfs|rbd --dir=DIR "
		   "[--bs=8192] [--secs=2] [--fsync] [--rbdname=IMG]\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "store", 1, 0, 's' }, { "dir", 1, 0, 'd' }, { "bs", 1, 0, 'b' },
		{ "secs", 1, 0, 't' }, { "fsync", 0, 0, 'f' }, { "rbdname", 1, 0, 'r' },
		{ "help", 0, 0, 'h' }, { 0 }
	};
	struct store_config cfg = { .backend = STORE_POSIX, .root = ".",
				    .rbdname = "dbfio-synctest", .rbd_size = 64 << 20 };
	size_t bs = 8192;
	double secs = 2;
	int use_fsync = 0, c, b;
	struct store_file *f;
	struct store *s;
	uint64_t t0, n = 0;
	char err[256], *buf;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			b = store_backend_parse(optarg);
			if (b < 0) {
				fprintf(stderr, "synctest: --store=%s: unknown (built: %s)\n",
					optarg, store_backends_built());
				return 2;
			}
			cfg.backend = b;
			break;
		case 'd': cfg.root = optarg; break;
		case 'b': bs = strtoul(optarg, NULL, 0); break;
		case 't': secs = atof(optarg); break;
		case 'f': use_fsync = 1; break;
		case 'r': cfg.rbdname = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!bs || bs > (64 << 20) || secs <= 0) {
		fprintf(stderr, "synctest: --bs must be 1..64M and --secs > 0\n");
		return 2;
	}
	if (store_init(&s, &cfg, err, sizeof(err))) {
		fprintf(stderr, "synctest: %s\n", err);
		return 1;
	}
	if (posix_memalign((void **)&buf, 4096, bs))
		return 1;
	memset(buf, 0x5a, bs);
	c = store_open(s, "synctest.dat", O_RDWR | O_CREAT, 0644, bs, &f);
	if (c) {
		fprintf(stderr, "synctest: open: %s\n", strerror(-c));
		return 1;
	}
	t0 = latstat_now_ns();
	while (latstat_now_ns() - t0 < secs * 1e9) {
		if (store_pwrite(s, f, buf, bs, 0) != (ssize_t)bs ||
		    (use_fsync ? store_fsync(s, f) : store_fdatasync(s, f))) {
			fprintf(stderr, "synctest: write/sync failed\n");
			return 1;
		}
		n++;
	}
	secs = (latstat_now_ns() - t0) / 1e9;
	printf("%.3f ops/s %.1f usecs/op\n", n / secs, secs * 1e6 / n);
	store_close(s, f);
	store_unlink(s, "synctest.dat");
	store_exit(s);
	free(buf);
	return 0;
}
