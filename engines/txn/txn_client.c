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
 * The two descriptors: fd[0] is the connection's end, fd[1] the client's.
 * Each side writes to its own. With TCP (a socket each end) it reads its own
 * too; with eventfds (a counter each direction) it reads the other's.
 */
static int rd_conn(const struct txn_client *c)
{
	return c->fd[c->tcp ? 0 : 1];
}

static int rd_client(const struct txn_client *c)
{
	return c->fd[c->tcp ? 1 : 0];
}

/*
 * Block until the other side hands something over: 1 a statement, 0 stop (an
 * even value), -EPIPE the other end of a TCP connection closed, or -errno. A
 * stream may split the 8 bytes.
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
			return -EPIPE;
		else if (errno != EINTR)
			return -errno;
	}
	return (int)(v & 1);
}

/*
 * Side SIDE (0 the connection, 1 the client) hands V over. A TCP send that
 * fails hangs the socket up, so the other side's take ends (EOF) instead of
 * waiting for ever; send, not write: no SIGPIPE when the other end is gone.
 * An eventfd write does not fail on a valid descriptor.
 */
static int give(struct txn_client *c, int side, uint64_t v)
{
	int fd = c->fd[side];
	size_t put = 0;

	while (put < sizeof(v)) {
		ssize_t n = c->tcp ? send(fd, (char *)&v + put, sizeof(v) - put, MSG_NOSIGNAL) :
				     write(fd, (char *)&v + put, sizeof(v) - put);

		if (n > 0) {
			put += n;
		} else if (n < 0 && errno != EINTR) {
			int ret = -errno;

			if (c->tcp)
				shutdown(fd, SHUT_RDWR);
			return ret;
		}
	}
	return 0;
}

/*
 * client_tcp=1: a TCP connection over 127.0.0.1, as sysbench's and pgbench's
 * to their servers here, with TCP_NODELAY as both servers and clients set:
 * fd[0] the connection's end (accepted), fd[1] the client's (connected).
 */
static int tcp_pair(int fd[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int one = 1, l, ret = 0;

	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		return -errno;
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &alen) ||
	    (fd[1] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(fd[1], (struct sockaddr *)&a, sizeof(a)) ||
	    (fd[0] = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0 ||
	    setsockopt(fd[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    setsockopt(fd[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		ret = -errno;
	close(l);
	return ret;
}

static void close_fds(struct txn_client *c)
{
	if (c->fd[0] >= 0)
		close(c->fd[0]);
	if (c->fd[1] >= 0)
		close(c->fd[1]);
	c->fd[0] = c->fd[1] = -1;
}

static void *client_main(void *arg)
{
	struct txn_client *c = arg;

	while (take(rd_client(c)) == 1) {
		if (c->ns)
			dbtime_burn(&c->dt, c->ns);
		if (give(c, 1, 1))
			break;	/* hung up: the connection's take ends */
	}
	if (c->hosted)	/* in the host: its CPU back to the connection, + 1 (never 0) */
		give(c, 1, c->dt.cpu_ns + 1);
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
 * Each connection sends it the client's ends (SCM_RIGHTS: both eventfds, or
 * the client's TCP socket) and the client's CPU; a client thread there gives
 * its CPU total back when stopped. The host makes no call that may take a
 * lock another thread of fio held at fork() but malloc, which glibc's fork()
 * leaves usable (GCC 12's AddressSanitizer allocator does not: sanitized, a
 * host forked while another thread allocates can wait on that lock for ever).
 *
 * A host that dies (the OOM killer, a kill) closes its TCP sockets, so those
 * connections' waits end; an eventfd has no other end to close, so a thread
 * of fio's watches the host's socket and wakes the connections it served.
 */
struct host_msg {
	uint64_t ns, ws, tcp;
};

static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;
static int host_fd = -1;	/* fio's end of the socket; -1: no host */
static pid_t host_pid;
static unsigned int host_refs;
static pthread_t host_watcher;
static int host_stopping;	/* atomic: host_stop() is ending the host */
/* the hosted connections; taken by the watcher, never host_lock (host_stop joins it under that) */
static pthread_mutex_t hosted_lock = PTHREAD_MUTEX_INITIALIZER;
static struct txn_client *hosted;

static void *host_client(void *arg)
{
	struct txn_client *c = arg;

	client_main(c);
	dbtime_exit(&c->dt);
	close_fds(c);
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
		int nfd;

		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(m))
			break;	/* 0: the last connection stopped, or fio died */
		nfd = m.tcp ? 1 : 2;
		cm = CMSG_FIRSTHDR(&mh);
		if (!cm || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(nfd * sizeof(int)))
			break;
		c = calloc(1, sizeof(*c));
		if (!c)
			break;
		c->fd[0] = -1;	/* TCP: the connection's socket stays in fio */
		memcpy(&c->fd[2 - nfd], CMSG_DATA(cm), nfd * sizeof(int));
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

/* A thread of fio's: the host's socket hangs up when the host dies, or when host_stop() shuts it. */
static void *host_watch(void *arg)
{
	struct pollfd pfd = { .fd = (int)(intptr_t)arg, .events = 0 };
	uint64_t stop = 2;
	struct txn_client *c;

	while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
		;
	if (__atomic_load_n(&host_stopping, __ATOMIC_ACQUIRE))
		return NULL;
	pthread_mutex_lock(&hosted_lock);
	for (c = hosted; c; c = c->next) {
		__atomic_store_n(&c->dead, 1, __ATOMIC_RELEASE);
		if (!c->tcp && write(c->fd[1], &stop, sizeof(stop)) < 0) {
			/* cannot fail on a valid eventfd */
		}
	}
	pthread_mutex_unlock(&hosted_lock);
	return NULL;
}

/*
 * Under host_lock: the last client stopped (or the host could not be
 * watched), so the host ends; reaped here, its CPU in fio's rusage.
 */
static void host_stop(int watched)
{
	__atomic_store_n(&host_stopping, 1, __ATOMIC_RELEASE);
	shutdown(host_fd, SHUT_RDWR);	/* the host reads EOF, the watcher sees a hang-up */
	if (watched)
		pthread_join(host_watcher, NULL);
	close(host_fd);
	host_fd = -1;
	while (waitpid(host_pid, NULL, 0) < 0 && errno == EINTR)
		;
	host_pid = 0;
	__atomic_store_n(&host_stopping, 0, __ATOMIC_RELEASE);
}

static int host_start(void)
{
	int sv[2], ret;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(sv[0]);
		close(sv[1]);
		return ret;
	}
	if (!pid) {	/* holds only its socket: no end of fio's stays open in it */
		if (dup2(sv[1], 3) < 0)
			_exit(1);
		close_range(4, ~0U, 0);
		setsid();
		host_main(3);
	}
	close(sv[1]);
	host_fd = sv[0];
	host_pid = pid;
	ret = -pthread_create(&host_watcher, NULL, host_watch, (void *)(intptr_t)host_fd);
	if (ret)
		host_stop(0);
	return ret;
}

static void hosted_unlink(struct txn_client *c)
{
	struct txn_client **p;

	pthread_mutex_lock(&hosted_lock);
	for (p = &hosted; *p && *p != c; p = &(*p)->next)
		;
	if (*p)
		*p = c->next;
	pthread_mutex_unlock(&hosted_lock);
}

/* A client thread in the host for C's ends. */
static int host_client_start(struct txn_client *c)
{
	struct host_msg m = { .ns = c->ns, .ws = c->ws, .tcp = (uint64_t)c->tcp };
	char cbuf[CMSG_SPACE(2 * sizeof(int))] = { 0 };
	int nfd = c->tcp ? 1 : 2;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = CMSG_SPACE(nfd * sizeof(int)) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	int ret = 0;

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(nfd * sizeof(int));
	memcpy(CMSG_DATA(cm), &c->fd[2 - nfd], nfd * sizeof(int));
	pthread_mutex_lock(&host_lock);
	if (host_fd < 0)
		ret = host_start();
	if (!ret) {
		pthread_mutex_lock(&hosted_lock);	/* before the host can die with C's ends */
		c->next = hosted;
		hosted = c;
		pthread_mutex_unlock(&hosted_lock);
		while (sendmsg(host_fd, &mh, MSG_NOSIGNAL) < 0)
			if (errno != EINTR) {
				ret = -errno;
				break;
			}
		if (!ret) {
			host_refs++;
			if (c->tcp) {	/* the host's now: its death closes the socket */
				close(c->fd[1]);
				c->fd[1] = -1;
			}
		} else {
			hosted_unlink(c);
			if (!host_refs)
				host_stop(1);
		}
	}
	pthread_mutex_unlock(&host_lock);
	if (!ret)
		c->hosted = 1;
	return ret;
}

/* Stopped (given 2): the client's CPU total back from the host, then the host ends with the last. */
static void host_client_stop(struct txn_client *c)
{
	struct pollfd pfd = { .fd = rd_conn(c), .events = POLLIN };
	uint64_t v;

	/* a client that died writes nothing: waits 10 s at most, not at all for a dead host */
	while (!__atomic_load_n(&c->dead, __ATOMIC_ACQUIRE) && poll(&pfd, 1, 10000) < 0 &&
	       errno == EINTR)
		;
	if (!__atomic_load_n(&c->dead, __ATOMIC_ACQUIRE) && (pfd.revents & POLLIN) &&
	    read(pfd.fd, &v, sizeof(v)) == sizeof(v) && v)
		c->dt.cpu_ns = v - 1;
	hosted_unlink(c);
	pthread_mutex_lock(&host_lock);
	if (!--host_refs)
		host_stop(1);
	pthread_mutex_unlock(&host_lock);
	c->hosted = 0;
}

int txn_client_start(struct txn_client *c, uint64_t ns, uint64_t ws, int proc, int tcp)
{
	int ret;

	c->ns = ns;
	c->ws = ws;
	c->tcp = tcp;
	c->hosted = c->dead = 0;
	c->fd[0] = c->fd[1] = -1;
	if (tcp) {
		ret = tcp_pair(c->fd);
	} else {
		c->fd[0] = eventfd(0, EFD_CLOEXEC);
		c->fd[1] = eventfd(0, EFD_CLOEXEC);
		ret = c->fd[0] < 0 || c->fd[1] < 0 ? -errno : 0;
	}
	if (ret)
		goto fail;
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
	return give(c, 0, 1);
}

int txn_client_wait(struct txn_client *c)
{
	int ret;

	if (__atomic_load_n(&c->dead, __ATOMIC_ACQUIRE))
		return -EPIPE;	/* the host died; its last reply may have come with the wake-up */
	ret = take(rd_conn(c));
	if (ret < 0)
		return ret;
	return ret == 1 ? 0 : -EPIPE;
}

void txn_client_stop(struct txn_client *c)
{
	if (!c->started)
		return;
	give(c, 0, 2);	/* even: stop; a failed TCP send hangs up, which stops it too */
	if (c->hosted)
		host_client_stop(c);
	else
		pthread_join(c->th, NULL);
	close_fds(c);
	c->started = 0;
}
