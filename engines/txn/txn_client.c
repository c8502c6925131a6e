/*
 * txn_client.c - a connection's client as a thread of its own. pgbench and
 * sysbench run beside the server: each statement goes from the client to its
 * backend and back over loopback, so each wakes the other, and on a busy
 * machine each wake-up waits for a core behind the other connections, the
 * database's background work and the storage daemons. A connection that
 * burned the client's CPU itself (one thread) never waited there: at 16
 * connections on 2 cores it ran ahead of the real database. Here the
 * connection's thread hands the statement over (an eventfd), the client
 * thread burns its CPU and hands it back; the connection then burns the
 * server's. Between the two it may burn the part of the server's CPU that
 * comes after its reply (cpu_after_reply): on two cores the client's and
 * that part run at once, as a real server's end of a statement and its
 * client's work on the reply do. No fio headers.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "txn.h"

/* Block until the other side hands the statement over. 0: stop. */
static int take(int fd)
{
	uint64_t v;

	for (;;) {
		ssize_t n = read(fd, &v, sizeof(v));

		if (n == sizeof(v))
			return (int)(v & 1);
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int give(int fd, uint64_t v)
{
	while (write(fd, &v, sizeof(v)) != sizeof(v))
		if (errno != EINTR)
			return -errno;
	return 0;
}

static void *client_main(void *arg)
{
	struct txn_client *c = arg;

	while (take(c->to_client) == 1) {
		if (c->ns)
			dbtime_burn(&c->dt, c->ns);
		if (give(c->to_server, 1))
			break;
	}
	if (c->pid)	/* the process: its CPU back to the connection, + 1 (never 0) */
		give(c->to_server, c->dt.cpu_ns + 1);
	else
		dbtime_exit(&c->dt);
	return NULL;
}

/*
 * client_process=1: the client as a process in a session of its own. A
 * PostgreSQL backend calls setsid(), so with the kernel's autogroups (Debian's
 * default) each backend is a scheduling group of its own, and each hand-over
 * between pgbench and its backend wakes another group: on a machine busy with
 * other sessions' work that wake-up waits far longer than one between two
 * threads of one process (fio's), whose group keeps its share of the core.
 * The child makes no call that may take a lock another thread of fio held at
 * fork(): no malloc (its working set was allocated before), reads, writes and
 * the thread's CPU clock only.
 */
static int client_fork(struct txn_client *c)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setsid();
		c->pid = 1;
		client_main(c);
		_exit(0);
	}
	c->pid = pid;
	return 0;
}

int txn_client_start(struct txn_client *c, uint64_t ns, uint64_t ws, int proc)
{
	int ret;

	c->ns = ns;
	c->pid = 0;
	c->to_client = eventfd(0, EFD_CLOEXEC);
	c->to_server = eventfd(0, EFD_CLOEXEC);
	if (c->to_client < 0 || c->to_server < 0) {
		ret = -errno;
		goto fail;
	}
	ret = dbtime_ws_init(&c->dt, ws);
	if (ret)
		goto fail;
	ret = proc ? client_fork(c) : -pthread_create(&c->th, NULL, client_main, c);
	if (ret) {
		dbtime_exit(&c->dt);
		goto fail;
	}
	c->started = 1;
	return 0;
fail:
	if (c->to_client >= 0)
		close(c->to_client);
	if (c->to_server >= 0)
		close(c->to_server);
	c->to_client = c->to_server = -1;
	return ret;
}

int txn_client_send(struct txn_client *c)
{
	return give(c->to_client, 1);
}

int txn_client_wait(struct txn_client *c)
{
	int ret = take(c->to_server);

	if (ret < 0)
		return ret;
	return ret == 1 ? 0 : -EPIPE;
}

void txn_client_stop(struct txn_client *c)
{
	if (!c->started)
		return;
	give(c->to_client, 2);	/* even: stop */
	if (c->pid) {
		struct pollfd pfd = { .fd = c->to_server, .events = POLLIN };
		uint64_t v;

		/* reaped first: a client that died wrote nothing, and the read must not wait */
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
		if (poll(&pfd, 1, 0) == 1 && read(c->to_server, &v, sizeof(v)) == sizeof(v) && v)
			c->dt.cpu_ns = v - 1;
		dbtime_exit(&c->dt);
		c->pid = 0;
	} else {
		pthread_join(c->th, NULL);
	}
	close(c->to_client);
	close(c->to_server);
	c->started = 0;
}
