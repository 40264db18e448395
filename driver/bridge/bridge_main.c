/* SPDX-License-Identifier: MIT */
/*
 * stackbench-bridge: serve the simulated board to a QEMU guest through a shared-memory file
 * that QEMU maps as the memory of an ivshmem-plain device:
 *
 *   stackbench-bridge --shm /dev/shm/sb0 &
 *   qemu-system-x86_64 ... -object memory-backend-file,id=m,share=on,mem-path=/dev/shm/sb0,size=1M \
 *       -device ivshmem-plain,memdev=m
 *
 * or, for a device with an interrupt (MSI-X vector 0 raised when a board event becomes
 * pending), as the ivshmem server of an ivshmem-doorbell device:
 *
 *   stackbench-bridge --shm /dev/shm/sb0 --ivshmem-socket /tmp/sb0.sock &
 *   qemu-system-x86_64 ... -chardev socket,id=c,path=/tmp/sb0.sock \
 *       -device ivshmem-doorbell,chardev=c,vectors=1
 *
 * The guest loads the stackbench module with test_mode=1. The model's time follows the wall
 * clock (the guest's bench clock is CLOCK_MONOTONIC). Part of the simulated bench, not host
 * code: it links the board model directly (sb_model.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "bridge.h"
#include "sb_bridge_proto.h"
#include "sb_model.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/transport.h"
#include "stackbench/uri.h"
#include "stackbench/util.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: stackbench-bridge --shm PATH [options]\n"
	    "\n"
	    "Serve the simulated board through the shared-memory file PATH (created, sized\n"
	    "and mapped here), for QEMU's ivshmem-plain device backed by the same file.\n"
	    "Runs until SIGINT or SIGTERM, then prints its counters.\n"
	    "\n"
	    "  -s, --shm PATH         the shared-memory file (e.g. /dev/shm/stackbench0)\n"
	    "      --size BYTES       its size, a power of two >= 128k (default 1M)\n"
	    "  -b, --board URI        the board: a sim: URI (default sim:)\n"
	    "      --refresh-us N     refresh read-only words at least every N us (100)\n"
	    "      --spin-us N        poll without sleeping for N us after guest activity (2000)\n"
	    "      --sleep-us N       sleep between polls when idle (50)\n"
	    "      --max-step-us N    advance the model at most N us per poll (1000)\n"
	    "  -u, --ivshmem-socket PATH  act as the ivshmem server on the UNIX socket PATH for\n"
	    "                         one ivshmem-doorbell device (vectors=1): pass it the\n"
	    "                         shared memory and raise its MSI-X vector 0 when a board\n"
	    "                         event becomes pending\n"
	    "  -v, --verbose          more log output\n"
	    "  -h, --help             this help\n");
}

static int m_read(void *ctx, uint32_t off, uint32_t *v)
{
	return sb_model_read32(ctx, off, v);
}

static int m_write(void *ctx, uint32_t off, uint32_t v)
{
	return sb_model_write32(ctx, off, v);
}

static int m_advance(void *ctx, uint64_t dt_ps)
{
	return sb_model_advance(ctx, dt_ps);
}

struct opts {
	const char *shm, *board, *socket;
	uint64_t size, refresh_us, spin_us, sleep_us, max_step_us;
};

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
	    {"shm", required_argument, NULL, 's'},
	    {"size", required_argument, NULL, 'S'},
	    {"board", required_argument, NULL, 'b'},
	    {"refresh-us", required_argument, NULL, 'r'},
	    {"spin-us", required_argument, NULL, 'p'},
	    {"sleep-us", required_argument, NULL, 'l'},
	    {"max-step-us", required_argument, NULL, 'm'},
	    {"ivshmem-socket", required_argument, NULL, 'u'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, level = SB_LOG_WARN, err = 0;

	*o = (struct opts){NULL, "sim:", NULL, SB_BRIDGE_DEFAULT_SIZE, 100, 2000, 50, 1000};
	while ((c = getopt_long(argc, argv, "s:b:u:vh", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			o->shm = optarg;
			break;
		case 'S':
			err = sb_parse_u64(optarg, "--size", true, &o->size);
			break;
		case 'b':
			o->board = optarg;
			break;
		case 'u':
			o->socket = optarg;
			break;
		case 'r':
			err = sb_parse_u64(optarg, "--refresh-us", false, &o->refresh_us);
			break;
		case 'p':
			err = sb_parse_u64(optarg, "--spin-us", false, &o->spin_us);
			break;
		case 'l':
			err = sb_parse_u64(optarg, "--sleep-us", false, &o->sleep_us);
			break;
		case 'm':
			err = sb_parse_u64(optarg, "--max-step-us", false, &o->max_step_us);
			break;
		case 'v':
			level++;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return SB_ERR_INVAL;
		}
		if (err < 0) {
			fprintf(stderr, "stackbench-bridge: %s\n", sb_error_detail());
			return err;
		}
	}
	sb_log_set_level((enum sb_log_level)level);
	if (!o->shm || optind != argc) {
		usage(stderr);
		return SB_ERR_INVAL;
	}
	if (o->size < SB_BRIDGE_MIN_SIZE || (o->size & (o->size - 1)) || o->size > (1ull << 30)) {
		fprintf(stderr, "stackbench-bridge: --size %llu: need a power of two, 128k..1G\n",
		        (unsigned long long)o->size);
		return SB_ERR_INVAL;
	}
	return 0;
}

static int open_model(const char *text, struct sb_model **m)
{
	struct sb_model_opt mo[SB_URI_MAX_OPTS];
	struct sb_uri uri;
	int err;

	if ((err = sb_uri_parse(text, &uri)) < 0)
		return err;
	if (uri.scheme != SB_URI_SIM)
		return sb_error_set(SB_ERR_URI, "--board '%s': the bridge serves sim: boards only",
		                    text);
	for (unsigned i = 0; i < uri.nopts; i++) {
		mo[i].key = uri.opts[i].key;
		mo[i].value = uri.opts[i].value;
	}
	return sb_model_new(m, uri.path, mo, uri.nopts);
}

/* Create, size and map the shared-memory file; *fd_out keeps it open (for the ivshmem peer). */
static void *map_shm(const char *path, size_t size, int *fd_out)
{
	void *p;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0) {
		sb_error_set(SB_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (ftruncate(fd, (off_t)size) < 0) {
		sb_error_set(SB_ERR_IO, "cannot size '%s' to %zu bytes: %s", path, size,
		             strerror(errno));
		close(fd);
		return NULL;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		sb_error_set(SB_ERR_IO, "cannot map '%s': %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	*fd_out = fd;
	return p;
}

/*
 * The ivshmem server side (QEMU docs/specs/ivshmem-spec.rst, "The ivshmem Client-Server
 * Protocol"): every message is one little-endian int64, some with a file descriptor
 * (SCM_RIGHTS). To the one client (QEMU's ivshmem-doorbell device) the bridge sends the
 * protocol version 0, the client's ID, -1 with the shared memory, then the client's ID again
 * with the eventfd of its vector 0. Writing 1 to that eventfd raises the vector in the guest.
 */
#define IVSHMEM_CLIENT_ID 1

struct ivshmem {
	int listen_fd, conn_fd, event_fd;
};

static int ivshmem_send(int sock, int64_t value, int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = {&value, sizeof(value)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;

	memset(&ctl, 0, sizeof(ctl));
	if (fd >= 0) {
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	if (sendmsg(sock, &msg, MSG_NOSIGNAL) != (ssize_t)sizeof(value))
		return sb_error_set(SB_ERR_IO, "ivshmem: sending a message to the client: %s",
		                    strerror(errno));
	return 0;
}

/* Listen on path (replacing a stale socket there, never another kind of file). */
static int ivshmem_listen(struct ivshmem *iv, const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;

	iv->listen_fd = iv->conn_fd = iv->event_fd = -1;
	if (strlen(path) >= sizeof(sa.sun_path))
		return sb_error_set(SB_ERR_INVAL, "--ivshmem-socket '%s': path too long", path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return sb_error_set(
			    SB_ERR_INVAL, "--ivshmem-socket '%s' exists and is not a socket", path);
		unlink(path);
	}
	iv->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (iv->listen_fd < 0 || bind(iv->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(iv->listen_fd, 1) < 0)
		return sb_error_set(SB_ERR_IO, "--ivshmem-socket '%s': %s", path, strerror(errno));
	return 0;
}

/* Wait for the client (QEMU) and hand it the memory and its interrupt vector. */
static int ivshmem_accept(struct ivshmem *iv, int shm_fd)
{
	int err;

	do
		iv->conn_fd = accept4(iv->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	while (iv->conn_fd < 0 && errno == EINTR && !stop);
	if (iv->conn_fd < 0)
		return sb_error_set(SB_ERR_IO, "ivshmem: accept: %s", strerror(errno));
	iv->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (iv->event_fd < 0)
		return sb_error_set(SB_ERR_IO, "ivshmem: eventfd: %s", strerror(errno));
	if ((err = ivshmem_send(iv->conn_fd, 0, -1)) < 0 ||
	    (err = ivshmem_send(iv->conn_fd, IVSHMEM_CLIENT_ID, -1)) < 0 ||
	    (err = ivshmem_send(iv->conn_fd, -1, shm_fd)) < 0 ||
	    (err = ivshmem_send(iv->conn_fd, IVSHMEM_CLIENT_ID, iv->event_fd)) < 0)
		return err;
	return 0;
}

static void ivshmem_close(struct ivshmem *iv)
{
	if (iv->event_fd >= 0)
		close(iv->event_fd);
	if (iv->conn_fd >= 0)
		close(iv->conn_fd);
	if (iv->listen_fd >= 0)
		close(iv->listen_fd);
}

/* The bridge's interrupt callback: raise the guest's vector 0. */
static void ivshmem_irq(void *ctx, uint32_t bits)
{
	struct ivshmem *iv = ctx;
	uint64_t one = 1;

	(void)bits;
	if (write(iv->event_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		sb_warn("ivshmem: raising the interrupt: %s", strerror(errno));
}

static void print_stats(const struct sb_bridge_stats *st)
{
	printf("stackbench-bridge: %llu polls, %llu image stores, %llu mailbox ops (%llu failed), "
	       "mailbox service mean %.0f ns max %llu ns, %llu refreshes of %.1f us mean, "
	       "model lag max %llu us, %llu interrupts\n",
	       (unsigned long long)st->polls, (unsigned long long)st->image_stores,
	       (unsigned long long)st->mailbox_ops, (unsigned long long)st->mailbox_errors,
	       st->mailbox_ops ? (double)st->mb_service_ns / (double)st->mailbox_ops : 0.0,
	       (unsigned long long)st->mb_service_max_ns, (unsigned long long)st->refreshes,
	       st->refreshes ? (double)st->refresh_ns / (double)st->refreshes / 1e3 : 0.0,
	       (unsigned long long)(st->lag_max_ns / 1000), (unsigned long long)st->irqs);
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_signal};
	struct sb_bridge_backend be = {m_read, m_write, m_advance, NULL};
	struct ivshmem iv = {-1, -1, -1};
	struct sb_bridge *br;
	struct sb_model *model;
	uint64_t last_activity;
	struct opts o;
	void *shm;
	int err, shm_fd = -1, rc = 1;

	if (parse(argc, argv, &o) < 0)
		return 2;
	if ((err = open_model(o.board, &model)) < 0) {
		fprintf(stderr, "stackbench-bridge: %s\n", sb_error_detail());
		return 3;
	}
	shm = map_shm(o.shm, o.size, &shm_fd);
	if (!shm) {
		fprintf(stderr, "stackbench-bridge: %s\n", sb_error_detail());
		goto fail_model;
	}
	be.ctx = model;
	err = sb_bridge_new(&br, shm, o.size, sb_model_regspace_size(model), &be,
	                    o.refresh_us * 1000, o.max_step_us * 1000, sb_monotonic_ns());
	if (err < 0) {
		fprintf(stderr, "stackbench-bridge: %s\n", sb_error_detail());
		goto fail_map;
	}
	/* No SA_RESTART: a signal ends a blocking accept(). */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (o.socket && ivshmem_listen(&iv, o.socket) < 0) {
		fprintf(stderr, "stackbench-bridge: %s\n", sb_error_detail());
		goto fail_bridge;
	}
	printf("stackbench-bridge: ready: serving '%s' (%llu bytes): board '%s', %u bytes of "
	       "registers%s%s\n",
	       o.shm, (unsigned long long)o.size, sb_model_profile_name(model),
	       sb_model_regspace_size(model), o.socket ? ", ivshmem server on " : "",
	       o.socket ? o.socket : "");
	fflush(stdout);
	if (o.socket) {
		if (ivshmem_accept(&iv, shm_fd) < 0) {
			if (!stop)
				fprintf(stderr, "stackbench-bridge: %s\n", sb_error_detail());
			goto fail_ivshmem;
		}
		sb_bridge_set_irq(br, ivshmem_irq, &iv);
	}
	last_activity = sb_monotonic_ns();
	while (!stop) {
		uint64_t now = sb_monotonic_ns();
		int n = sb_bridge_poll(br, now);

		if (n < 0) {
			fprintf(stderr, "stackbench-bridge: the model failed: %s\n",
			        sb_error_detail());
			break;
		}
		if (n > 0)
			last_activity = now;
		else if (now - last_activity > o.spin_us * 1000 && o.sleep_us)
			sb_sleep_ns(o.sleep_us * 1000);
	}
	print_stats(sb_bridge_stats(br));
	rc = stop ? 0 : 1;

fail_ivshmem:
	ivshmem_close(&iv);
	if (o.socket)
		unlink(o.socket);
fail_bridge:
	sb_bridge_free(br);
fail_map:
	munmap(shm, o.size);
	close(shm_fd);
fail_model:
	sb_model_free(model);
	return rc;
}
