/*
 * txn_client.c - a connection's client as a thread of its own. pgbench and
 * sysbench run beside the server: each statement goes from the client to its
 * backend and back over loopback, so each wakes the other, and on a busy
 * machine each wake-up waits for a core behind the other connections, the
 * database's background work and the storage daemons. A connection that
 * burned the client's CPU itself (one thread) never waited there: at 16
 * connections on 2 cores it ran ahead of the real database. Here the
 * connection's thread hands the statement over (an eventfd, or with
 * client_tcp=1 a loopback TCP connection as the real client's), the client
 * thread burns its CPU and hands it back; the connection then burns the
 * server's. Between the two it may burn the part of the server's CPU that
 * comes after its reply (cpu_after_reply): on two cores the client's and
 * that part run at once, as a real server's end of a statement and its
 * client's work on the reply do. No fio headers.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "txn.h"

/*
 * Block until the other side hands the statement over. 0: stop (or the
 * other end of a TCP connection closed). A stream may split the 8 bytes.
 */
static int take(int fd)
{
	uint64_t v;
	size_t got = 0;

	while (got < sizeof(v)) {
		ssize_t n = read(fd, (char *)&v + got, sizeof(v) - got);

		if (n > 0)
			got += n;
		else if (!n)
			return 0;
		else if (errno != EINTR)
			return -errno;
	}
	return (int)(v & 1);
}

/* tcp: a socket (send: no SIGPIPE when the other end is gone), else an eventfd */
static int give(int fd, uint64_t v, int tcp)
{
	size_t put = 0;

	while (put < sizeof(v)) {
		ssize_t n = tcp ? send(fd, (char *)&v + put, sizeof(v) - put, MSG_NOSIGNAL) :
				  write(fd, (char *)&v + put, sizeof(v) - put);

		if (n > 0)
			put += n;
		else if (n < 0 && errno != EINTR)
			return -errno;
	}
	return 0;
}

/*
 * client_tcp=1: a TCP connection over 127.0.0.1, as sysbench's and pgbench's
 * to their servers here, with TCP_NODELAY as both servers and clients set:
 * *srv the connection's end (accepted), *cli the client's (connected).
 */
static int tcp_pair(int *srv, int *cli)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int one = 1, l, ret = 0;

	*srv = *cli = -1;
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		return -errno;
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &alen) ||
	    (*cli = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(*cli, (struct sockaddr *)&a, sizeof(a)) ||
	    (*srv = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0 ||
	    setsockopt(*srv, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    setsockopt(*cli, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		ret = -errno;
	close(l);
	if (ret) {
		if (*srv >= 0)
			close(*srv);
		if (*cli >= 0)
			close(*cli);
		*srv = *cli = -1;
	}
	return ret;
}

/* Close each of C's descriptors once (with TCP the two ends of a side are one socket). */
static void close_fds(struct txn_client *c)
{
	int fds[4] = { c->to_client, c->to_server, c->cl_in, c->cl_out };
	unsigned int i, j;

	for (i = 0; i < 4; i++) {
		for (j = 0; j < i && fds[j] != fds[i]; j++)
			;
		if (fds[i] >= 0 && j == i)
			close(fds[i]);
	}
	c->to_client = c->to_server = c->cl_in = c->cl_out = -1;
}

static void *client_main(void *arg)
{
	struct txn_client *c = arg;

	while (take(c->cl_in) == 1) {
		if (c->ns)
			dbtime_burn(&c->dt, c->ns);
		if (give(c->cl_out, 1, c->tcp))
			break;
	}
	if (c->hosted)	/* in the host: its CPU back to the connection, + 1 (never 0) */
		give(c->cl_out, c->dt.cpu_ns + 1, c->tcp);
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
 * Each connection sends it the client's two ends (SCM_RIGHTS: the eventfds,
 * or the TCP socket twice) and the client's CPU;
 * a client thread there gives its CPU total back when stopped. The host makes
 * no call that may take a lock another thread of fio held at fork() but
 * malloc, which glibc's fork() leaves usable.
 */
struct host_msg {
	uint64_t ns, ws, tcp;
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
	close(c->cl_in);
	close(c->cl_out);
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
		memcpy(&c->cl_in, CMSG_DATA(cm), sizeof(int));
		memcpy(&c->cl_out, CMSG_DATA(cm) + sizeof(int), sizeof(int));
		c->ns = m.ns;
		c->tcp = (int)m.tcp;
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

/* A client thread in the host for C's ends. */
static int host_client_start(struct txn_client *c)
{
	struct host_msg m = { .ns = c->ns, .ws = c->ws, .tcp = (uint64_t)c->tcp };
	char cbuf[CMSG_SPACE(2 * sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	int ret = 0;

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(cm), &c->cl_in, sizeof(int));
	memcpy(CMSG_DATA(cm) + sizeof(int), &c->cl_out, sizeof(int));
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

int txn_client_start(struct txn_client *c, uint64_t ns, uint64_t ws, int proc, int tcp)
{
	int ret;

	c->ns = ns;
	c->ws = ws;
	c->tcp = tcp;
	c->hosted = 0;
	c->to_client = c->to_server = c->cl_in = c->cl_out = -1;
	if (tcp) {
		ret = tcp_pair(&c->to_client, &c->cl_in);
		if (ret)
			goto fail;
		c->to_server = c->to_client;
		c->cl_out = c->cl_in;
	} else {
		c->to_client = eventfd(0, EFD_CLOEXEC);
		c->to_server = eventfd(0, EFD_CLOEXEC);
		if (c->to_client < 0 || c->to_server < 0) {
			ret = -errno;
			goto fail;
		}
		c->cl_in = c->to_client;
		c->cl_out = c->to_server;
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
	close_fds(c);
	return ret;
}

int txn_client_send(struct txn_client *c)
{
	return give(c->to_client, 1, c->tcp);
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
	give(c->to_client, 2, c->tcp);	/* even: stop */
	if (c->hosted)
		host_client_stop(c);
	else
		pthread_join(c->th, NULL);
	close_fds(c);
	c->started = 0;
}
