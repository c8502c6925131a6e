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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
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
	if (c->hosted)	/* in the host: its CPU back to the connection, + 1 (never 0) */
		give(c->to_server, c->dt.cpu_ns + 1);
	else
		dbtime_exit(&c->dt);
	return NULL;
}

/*
 * client_process=1: the clients as threads of one process in a session of
 * its own, as pgbench or sysbench is: one program beside the server. With the
 * kernel's autogroups (Debian's default) a session is a scheduling group, so
 * each hand-over between a client and its connection wakes another group, and
 * crosses address spaces, as one between pgbench and its backend does; on a
 * machine busy with other sessions' work (the Ceph daemons, other users) that
 * wake-up waits far longer than one inside fio's group. One session for every
 * client, not one each: 64 client sessions against fio's one would take the
 * cores from the connections, the roles of pgbench (one session) and its 64
 * backends swapped.
 *
 * The host is forked by the first connection to start a client and ends when
 * the last one stops (fio reaps it, so the clients' CPU is in fio's rusage).
 * Each connection sends it its two eventfds (SCM_RIGHTS) and the client's CPU;
 * a client thread there gives its CPU total back when stopped. The host makes
 * no call that may take a lock another thread of fio held at fork() but
 * malloc, which glibc's fork() leaves usable.
 */
struct host_msg {
	uint64_t ns, ws;
};

static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;
static int host_fd = -1;	/* fio's end of the socket; -1: no host */
static pid_t host_pid;
static unsigned int host_refs;

static void *host_client(void *arg)
{
	struct txn_client *c = arg;

	client_main(c);
	dbtime_exit(&c->dt);
	close(c->to_client);
	close(c->to_server);
	free(c);
	return NULL;
}

/* The host's loop: a client thread for each connection's message, until fio closes. */
static void host_main(int fd)
{
	for (;;) {
		char cbuf[CMSG_SPACE(2 * sizeof(int))];
		struct host_msg m;
		struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *cm;
		struct txn_client *c;
		ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(m))
			break;	/* 0: the last connection stopped, or fio died */
		cm = CMSG_FIRSTHDR(&mh);
		if (!cm || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(2 * sizeof(int)))
			break;
		c = calloc(1, sizeof(*c));
		if (!c)
			break;
		memcpy(&c->to_client, CMSG_DATA(cm), sizeof(int));
		memcpy(&c->to_server, CMSG_DATA(cm) + sizeof(int), sizeof(int));
		c->ns = m.ns;
		c->hosted = 1;	/* gives its CPU back when stopped */
		if (dbtime_ws_init(&c->dt, m.ws) || pthread_create(&c->th, NULL, host_client, c))
			break;	/* the connection's wait fails: -EPIPE */
		pthread_detach(c->th);
	}
	/* every client has given its CPU back (or fio died): their threads end with the process */
	_exit(0);
}

static int host_start(void)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int ret = -errno;

		close(sv[0]);
		close(sv[1]);
		return ret;
	}
	if (!pid) {
		close(sv[0]);
		setsid();
		host_main(sv[1]);
	}
	close(sv[1]);
	host_fd = sv[0];
	host_pid = pid;
	return 0;
}

/* Under host_lock: the last client stopped, so the host ends; reaped here, its CPU in fio's rusage. */
static void host_stop(void)
{
	close(host_fd);
	host_fd = -1;
	while (waitpid(host_pid, NULL, 0) < 0 && errno == EINTR)
		;
	host_pid = 0;
}

/* A client thread in the host for C's eventfds. */
static int host_client_start(struct txn_client *c)
{
	struct host_msg m = { .ns = c->ns, .ws = c->ws };
	char cbuf[CMSG_SPACE(2 * sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	int ret = 0;

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(cm), &c->to_client, sizeof(int));
	memcpy(CMSG_DATA(cm) + sizeof(int), &c->to_server, sizeof(int));
	pthread_mutex_lock(&host_lock);
	if (host_fd < 0)
		ret = host_start();
	if (!ret) {
		while (sendmsg(host_fd, &mh, MSG_NOSIGNAL) < 0)
			if (errno != EINTR) {
				ret = -errno;
				break;
			}
		if (!ret)
			host_refs++;
		else if (!host_refs)
			host_stop();
	}
	pthread_mutex_unlock(&host_lock);
	if (!ret)
		c->hosted = 1;
	return ret;
}

/* Stopped (given 2): the client's CPU total back from the host, then the host ends with the last. */
static void host_client_stop(struct txn_client *c)
{
	struct pollfd pfd = { .fd = c->to_server, .events = POLLIN };
	uint64_t v;

	/* a client that died writes nothing: waits 10 s at most */
	while (poll(&pfd, 1, 10000) < 0 && errno == EINTR)
		;
	if ((pfd.revents & POLLIN) && read(c->to_server, &v, sizeof(v)) == sizeof(v) && v)
		c->dt.cpu_ns = v - 1;
	pthread_mutex_lock(&host_lock);
	if (!--host_refs)
		host_stop();
	pthread_mutex_unlock(&host_lock);
	c->hosted = 0;
}

int txn_client_start(struct txn_client *c, uint64_t ns, uint64_t ws, int proc)
{
	int ret;

	c->ns = ns;
	c->ws = ws;
	c->hosted = 0;
	c->to_client = eventfd(0, EFD_CLOEXEC);
	c->to_server = eventfd(0, EFD_CLOEXEC);
	if (c->to_client < 0 || c->to_server < 0) {
		ret = -errno;
		goto fail;
	}
	if (proc) {
		ret = host_client_start(c);	/* its working set is the host's */
	} else {
		ret = dbtime_ws_init(&c->dt, ws);
		if (!ret) {
			ret = -pthread_create(&c->th, NULL, client_main, c);
			if (ret)
				dbtime_exit(&c->dt);
		}
	}
	if (ret)
		goto fail;
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
	if (c->hosted)
		host_client_stop(c);
	else
		pthread_join(c->th, NULL);
	close(c->to_client);
	close(c->to_server);
	c->started = 0;
}
