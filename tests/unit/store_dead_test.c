/*
 * store_dead_test.c - a uring ring or aio context that died must make
 * store_reap fail, never return 0 forever.
 * Description: store_reap on a dead io_uring / aio context returns an error (not 0: callers spun at 100% CPU)
 *
 *	./store_dead_test --store=uring|aio --dir=DIR
 *
 * The context is killed from outside the store layer, the way a process
 * can lose it: uring - the ring's descriptor (found in /proc/self/fd) is
 * replaced by /dev/null, so io_uring_enter fails; aio - io_destroy() on
 * the context (its ring is the "[aio]" mapping in /proc/self/maps), so
 * io_getevents fails with -EINVAL.
 * A request stays in flight (uring: a read of an empty FIFO; aio: a write
 * whose event is never read once the context is gone), one more call finds
 * the context dead, and store_reap(min 1, no timeout) must then return
 * -errno. Before the fix it returned 0 at once, and every caller's
 * "reap until my requests are back" loop spun for ever.
 *
 * Exit 0 pass, 1 fail, 77 skip (backend not built or not permitted here).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "store/store.h"
#include "check.h"

static int kill_uring(void)
{
	char link[64], path[300];
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	int fd = -1, null;
	ssize_t n;

	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0 && (link[n] = '\0', strstr(link, "io_uring")))
			fd = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	null = open("/dev/null", O_RDWR);
	if (fd < 0 || null < 0 || dup2(null, fd) != fd)
		return -1;
	close(null);
	return 0;
}

static int kill_aio(void)
{
	char line[512], *end;
	unsigned long ctx = 0, top = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "/[aio]")) {
			ctx = strtoul(line, &end, 16);
			top = strtoul(end + 1, NULL, 16);
		}
	if (f)
		fclose(f);
	if (!ctx || syscall(SYS_io_destroy, ctx))
		return -1;
	/*
	 * io_destroy unmapped the ring, which libaio's io_getevents reads
	 * before making the syscall: a zero page in its place sends it to the
	 * kernel, which answers -EINVAL for the destroyed context.
	 */
	return mmap((void *)ctx, top - ctx, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "store", 1, 0, 's' }, { "dir", 1, 0, 'd' }, { 0, 0, 0, 0 },
	};
	struct store_config cfg = { .backend = STORE_URING, .root = "." };
	struct store_req req, fs, *out[4];
	struct store_file *f, *pipe_f = NULL;
	struct store *s;
	char buf[4096], err[256], fifo[4096];
	int c, ret, backend = -1;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 's')
			backend = store_backend_parse(optarg);
		else if (c == 'd')
			cfg.root = optarg;
		else
			return 2;
	}
	if (backend != STORE_URING && backend != STORE_AIO)
		SKIP("--store must be a built uring or aio backend");
	cfg.backend = backend;
	ret = store_init(&s, &cfg, err, sizeof(err));
	if (ret == -EPERM || ret == -ENOSYS)
		SKIP("%s", err);
	if (ret)
		FAIL("store_init: %s", err);
	ret = store_open(s, "dead_test.dat", O_RDWR | O_CREAT | O_TRUNC, 0644, 0, &f);
	if (ret)
		FAIL("open: %s", strerror(-ret));
	memset(buf, 'x', sizeof(buf));
	memset(&req, 0, sizeof(req));
	req.len = sizeof(buf);
	req.buf = buf;
	if (backend == STORE_URING) {
		/* a read of an empty FIFO: in flight until the ring is gone */
		snprintf(fifo, sizeof(fifo), "%s/dead_test.fifo", cfg.root);
		unlink(fifo);
		if (mkfifo(fifo, 0644))
			FAIL("mkfifo(%s): %s", fifo, strerror(errno));
		ret = store_open(s, "dead_test.fifo", O_RDWR, 0, 0, &pipe_f);
		if (ret)
			FAIL("open fifo: %s", strerror(-ret));
		req.op = SOP_READ;
		req.file = pipe_f;
	} else {
		req.op = SOP_WRITE;
		req.file = f;
	}
	ret = store_submit(s, &req);
	if (ret)
		FAIL("submit: %s", strerror(-ret));
	if (backend == STORE_URING ? kill_uring() : kill_aio())
		FAIL("could not find the %s context to kill", store_backend_name(backend));
	/* one more call meets the dead context */
	if (backend == STORE_URING) {
		ret = store_pwrite(s, f, buf, sizeof(buf), 0);
		if (ret >= 0)
			FAIL("pwrite through a dead ring succeeded");
	} else {
		memset(&fs, 0, sizeof(fs));
		fs.op = SOP_FDATASYNC;
		fs.file = f;
		if (store_submit(s, &fs) == 0)	/* its drain meets the dead context */
			store_reap(s, 1, 1, out, 0);
	}
	ret = store_reap(s, 1, 4, out, -1);
	if (ret >= 0)
		FAIL("store_reap on a dead %s context returned %d, not -errno (a caller reaping its "
		     "request would spin for ever)", store_backend_name(backend), ret);
	ret = store_reap(s, 1, 4, out, -1);
	if (ret >= 0)
		FAIL("second store_reap on a dead %s context returned %d", store_backend_name(backend), ret);
	printf("ok: %s: store_reap on a dead context: %s\n", store_backend_name(backend), strerror(-ret));
	if (pipe_f)
		store_close(s, pipe_f);
	store_close(s, f);
	store_exit(s);
	if (backend == STORE_URING)
		unlink(fifo);
	return 0;
}
