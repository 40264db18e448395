/* SPDX-License-Identifier: MIT */
/*
 * The dev: transport: the stackbench kernel module's character device (/dev/stackbenchN),
 * through its uapi (driver/include/uapi/linux/stackbench.h).
 *
 * Register access: on a board the module reports SB_DEVICE_F_MMAP_EXACT and registers are
 * plain loads and stores on a mapping of the register region (no system call per access),
 * when the opener may map it writable (CAP_SYS_RAWIO: SB_REGION_F_MMAP_WRITE), else ioctls. In
 * test mode (the simulated board behind QEMU's ivshmem, served by the bridge) a mapping is
 * only an image of the registers, so each access is an SB_IOC_REG_ACCESS ioctl, which the
 * module performs exactly. The URI option access=mmap|ioctl overrides the choice.
 *
 * DMA: the module's trace buffer (one per board) is what dma_alloc hands out, its replay buffer
 * (uapi 1.2) what replay_dma_alloc does; the module alone programs the registers that point the
 * board at them (SB_IOC_TRACE_DMA, SB_IOC_REPLAY_DMA). Events: poll(2) and read(2) on the
 * device.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/stackbench.h>

#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/transport.h"
#include "stackbench/util.h"

struct devt {
	int fd;
	char path[SB_URI_PATH_MAX];
	struct sb_device_info info;
	struct sb_region_info regs, trace, replay;
	bool use_mmap;
	volatile uint32_t *map; /* the register region, when use_mmap */
	bool trace_in_use, replay_in_use;
	uint32_t api_version; /* the module's uapi version, major << 16 | minor */
};

static int errno_to_sb(int e)
{
	switch (e) {
	case ENOENT:
	case ENXIO:
	case ENODEV:
		return SB_ERR_NOT_FOUND;
	case EACCES:
	case EPERM:
		return SB_ERR_PERM;
	case EINVAL:
		return SB_ERR_RANGE;
	case ETIMEDOUT:
		return SB_ERR_TIMEOUT;
	case EINTR:
		return SB_ERR_INTERRUPTED;
	case ENOTTY:
		return SB_ERR_NOT_SUPPORTED;
	default:
		return SB_ERR_IO;
	}
}

static int ioc(struct devt *d, unsigned long cmd, void *arg, const char *what)
{
	int e;

	if (ioctl(d->fd, cmd, arg) == 0)
		return 0;
	e = errno;
	if (e == ENODEV)
		return sb_error_set(SB_ERR_NOT_FOUND, "'%s': %s: the board was removed", d->path,
		                    what);
	return sb_error_set(errno_to_sb(e), "'%s': %s: %s", d->path, what, strerror(e));
}

/* SB_ERR_NOT_SUPPORTED unless the module speaks uapi 1.minor, which 'what' needs. */
static int need_minor(const struct devt *d, uint32_t minor, const char *what)
{
	if ((d->api_version & 0xFFFF) >= minor)
		return 0;
	return sb_error_set(SB_ERR_NOT_SUPPORTED,
	                    "'%s': the stackbench module speaks interface %u.%u; %s needs 1.%u: "
	                    "update the module",
	                    d->path, d->api_version >> 16, d->api_version & 0xFFFF, what, minor);
}

static int region_info(struct devt *d, uint32_t index, struct sb_region_info *ri)
{
	memset(ri, 0, sizeof(*ri));
	ri->size = sizeof(*ri);
	ri->index = index;
	return ioc(d, SB_IOC_REGION_INFO, ri, "region info");
}

static int identify(struct devt *d)
{
	struct sb_api_version v = {.size = sizeof(v)};
	int err;

	if (ioctl(d->fd, SB_IOC_API_VERSION, &v) < 0) {
		if (errno == ENOTTY || errno == EINVAL)
			return sb_error_set(
			    SB_ERR_NOT_SUPPORTED,
			    "'%s' is not a stackbench device (no stackbench ioctls)", d->path);
		return ioc(d, SB_IOC_API_VERSION, &v, "API version");
	}
	if (v.version >> 16 != SB_UAPI_VERSION_MAJOR)
		return sb_error_set(SB_ERR_VERSION,
		                    "'%s': the stackbench module speaks interface %u.%u, this host "
		                    "%u.x; update the module or the host",
		                    d->path, v.version >> 16, v.version & 0xFFFF,
		                    SB_UAPI_VERSION_MAJOR);
	d->api_version = v.version;
	d->info.size = sizeof(d->info);
	if ((err = ioc(d, SB_IOC_DEVICE_INFO, &d->info, "device info")) < 0 ||
	    (err = region_info(d, SB_REGION_REGS, &d->regs)) < 0 ||
	    (err = region_info(d, SB_REGION_TRACE, &d->trace)) < 0 ||
	    ((d->api_version & 0xFFFF) >= 2 &&
	     (err = region_info(d, SB_REGION_REPLAY, &d->replay)) < 0))
		return err;
	if (d->regs.length < 16 || d->regs.length > UINT32_MAX)
		return sb_error_set(SB_ERR_IO, "'%s': register region of %llu bytes", d->path,
		                    (unsigned long long)d->regs.length);
	return 0;
}

/* Open the node read-write (what a handed handle stands for). */
static int dev_handle_open(const struct sb_uri *uri)
{
	int fd = open(uri->path, O_RDWR | O_CLOEXEC), e;

	if (fd >= 0)
		return fd;
	e = errno;
	if (e == ENOENT)
		return sb_error_set(SB_ERR_NOT_FOUND,
		                    "no device node '%s' (is the stackbench module loaded?)",
		                    uri->path);
	if (e == EACCES || e == EPERM)
		return sb_error_set(SB_ERR_PERM,
		                    "cannot open '%s': %s (is the user in the stackbench "
		                    "group? see docs/driver.md)",
		                    uri->path, strerror(e));
	return sb_error_set(errno_to_sb(e), "cannot open '%s': %s", uri->path, strerror(e));
}

static int dev_open(const struct sb_uri *uri, void **priv)
{
	const char *access_opt = sb_uri_opt(uri, "access");
	struct devt *d;
	void *map;
	int err, e;

	for (unsigned i = 0; i < uri->nopts; i++)
		if (strcmp(uri->opts[i].key, "access"))
			return sb_error_set(SB_ERR_URI, "unknown dev: option '%s' (known: access)",
			                    uri->opts[i].key);
	if (access_opt && strcmp(access_opt, "mmap") && strcmp(access_opt, "ioctl"))
		return sb_error_set(SB_ERR_URI, "dev: option 'access': '%s' is not mmap or ioctl",
		                    access_opt);
	d = calloc(1, sizeof(*d));
	if (!d)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	memcpy(d->path, uri->path, sizeof(d->path));
	/* A handle given by the process that owns the board (stackbenchd), else our own. */
	if ((d->fd = sb_transport_given_fd(uri)) < 0 && (d->fd = dev_handle_open(uri)) < 0) {
		err = d->fd;
		goto fail_open;
	}
	if ((err = identify(d)) < 0)
		goto fail_identify;
	/* From 1.1 a writable register mapping needs CAP_SYS_RAWIO (SB_REGION_F_MMAP_WRITE). */
	d->use_mmap = access_opt ? !strcmp(access_opt, "mmap")
	                         : (d->info.flags & SB_DEVICE_F_MMAP_EXACT) &&
	                               ((d->api_version & 0xFFFF) < 1 ||
	                                (d->regs.flags & SB_REGION_F_MMAP_WRITE));
	if (d->use_mmap) {
		map = mmap(NULL, d->regs.length, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd,
		           (off_t)d->regs.offset);
		if (map == MAP_FAILED) {
			e = errno;
			err = sb_error_set(errno_to_sb(e), "cannot map the registers of '%s': %s",
			                   uri->path, strerror(e));
			goto fail_identify;
		}
		d->map = map;
	}
	sb_dbg("'%s': stackbench %04x:%04x at %04x:%02x:%02x.%x, %llu bytes of registers, "
	       "access by %s%s",
	       uri->path, d->info.vendor, d->info.device, d->info.pci_domain, d->info.pci_bus,
	       d->info.pci_dev, d->info.pci_fn, (unsigned long long)d->regs.length,
	       d->use_mmap ? "mmap" : "ioctl",
	       d->info.flags & SB_DEVICE_F_TEST_MODE ? " (test mode)" : "");
	*priv = d;
	return 0;

fail_identify:
	close(d->fd);
fail_open:
	free(d);
	return err;
}

static void dev_close(void *priv)
{
	struct devt *d = priv;

	if (d->map)
		munmap((void *)d->map, d->regs.length);
	close(d->fd);
	free(d);
}

static int check_range(struct devt *d, uint32_t offset, uint32_t width, const char *what)
{
	if (offset % 4 || offset >= d->regs.length || width > d->regs.length - offset)
		return sb_error_set(SB_ERR_RANGE,
		                    "'%s': register %s at 0x%x outside the 0x%llx-byte "
		                    "register region",
		                    d->path, what, offset, (unsigned long long)d->regs.length);
	return 0;
}

static int reg_ioctl(struct devt *d, uint32_t op, uint32_t offset, uint64_t *value)
{
	struct sb_reg_io ra = {.size = sizeof(ra), .op = op, .offset = offset, .value = *value};
	int err = ioc(d, SB_IOC_REG_ACCESS, &ra, "register access");

	*value = ra.value;
	return err;
}

static int dev_read32(void *priv, uint32_t offset, uint32_t *value)
{
	struct devt *d = priv;
	uint64_t v = 0;
	int err;

	*value = 0xFFFFFFFFu;
	if ((err = check_range(d, offset, 4, "read")) < 0)
		return err;
	if (d->map) {
		*value = d->map[offset / 4];
		return 0;
	}
	if ((err = reg_ioctl(d, SB_REG_READ32, offset, &v)) < 0)
		return err;
	*value = (uint32_t)v;
	return 0;
}

static int dev_write32(void *priv, uint32_t offset, uint32_t value)
{
	struct devt *d = priv;
	uint64_t v = value;
	int err;

	if ((err = check_range(d, offset, 4, "write")) < 0)
		return err;
	if (d->map) {
		d->map[offset / 4] = value;
		return 0;
	}
	return reg_ioctl(d, SB_REG_WRITE32, offset, &v);
}

static int dev_read64(void *priv, uint32_t offset, uint64_t *value)
{
	struct devt *d = priv;
	int err;

	if ((err = check_range(d, offset, 8, "read")) < 0)
		return err;
	if (d->map) {
		uint32_t lo = d->map[offset / 4];

		*value = (uint64_t)d->map[offset / 4 + 1] << 32 | lo;
		return 0;
	}
	*value = 0;
	return reg_ioctl(d, SB_REG_READ64, offset, value);
}

static uint32_t dev_regspace(void *priv)
{
	return (uint32_t)((struct devt *)priv)->regs.length;
}

static uint64_t dev_now_ns(void *priv)
{
	(void)priv;
	return sb_monotonic_ns();
}

static int dev_wait_ns(void *priv, uint64_t ns)
{
	(void)priv;
	return sb_sleep_ns(ns);
}

/*
 * Map one of the module's DMA buffers (region ri, 'what' in messages, its size set by the
 * module parameter 'param') as buf; one user at a time (*in_use). buf->priv names the region.
 */
static int map_dma_region(struct devt *d, struct sb_region_info *ri, bool *in_use, const char *what,
                          const char *param, size_t len, struct sb_dma_buf *buf)
{
	void *p;

	if (!ri->flags)
		return sb_error_set(SB_ERR_NOT_SUPPORTED, "'%s': the module has no %s buffer",
		                    d->path, what);
	if (*in_use)
		return sb_error_set(SB_ERR_BUSY, "'%s': the %s buffer is already in use", d->path,
		                    what);
	if (!len || len > ri->length)
		return sb_error_set(SB_ERR_RANGE,
		                    "'%s': a %zu-byte DMA buffer; the module's %s buffer has "
		                    "%llu bytes (module parameter %s)",
		                    d->path, len, what, (unsigned long long)ri->length, param);
	p = mmap(NULL, ri->length, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, (off_t)ri->offset);
	if (p == MAP_FAILED)
		return sb_error_set(errno_to_sb(errno), "'%s': cannot map the %s buffer: %s",
		                    d->path, what, strerror(errno));
	*in_use = true;
	buf->host = p;
	buf->bus = ri->bus_addr;
	buf->len = len;
	buf->priv = ri;
	return 0;
}

static int dev_dma_alloc(void *priv, size_t len, struct sb_dma_buf *buf)
{
	struct devt *d = priv;

	if (!(d->info.flags & SB_DEVICE_F_TRACE_DMA))
		return sb_error_set(SB_ERR_NOT_SUPPORTED, "'%s': the module has no trace buffer",
		                    d->path);
	return map_dma_region(d, &d->trace, &d->trace_in_use, "trace", "trace_kib", len, buf);
}

static int dev_replay_dma_alloc(void *priv, size_t len, struct sb_dma_buf *buf)
{
	struct devt *d = priv;
	int err;

	if ((err = need_minor(d, 2, "trace replay (SB_IOC_REPLAY_DMA, a buffer the board reads)")) <
	    0)
		return err;
	if (!(d->info.flags & SB_DEVICE_F_REPLAY_DMA))
		return sb_error_set(SB_ERR_NOT_SUPPORTED,
		                    "'%s': the module has no replay buffer (the board has no "
		                    "replay block)",
		                    d->path);
	return map_dma_region(d, &d->replay, &d->replay_in_use, "replay", "replay_kib", len, buf);
}

static void dev_dma_free(void *priv, struct sb_dma_buf *buf)
{
	struct devt *d = priv;
	bool replay = buf->priv == &d->replay;

	munmap(buf->host, replay ? d->replay.length : d->trace.length);
	if (replay)
		d->replay_in_use = false;
	else
		d->trace_in_use = false;
}

/* SB_IOC_TRACE_DMA (uapi 1.1): the module programs the trace DMA registers with its buffer. */
static int dev_trace_dma_setup(void *priv, const struct sb_dma_buf *buf)
{
	struct devt *d = priv;
	struct sb_trace_dma t = {.size = sizeof(t), .op = SB_TRACE_DMA_SETUP};
	int err;

	if ((err = need_minor(d, 1, "trace capture by DMA (SB_IOC_TRACE_DMA)")) < 0)
		return err;
	if (buf->bus < d->trace.bus_addr ||
	    buf->bus - d->trace.bus_addr + buf->len > d->trace.length ||
	    (buf->bus - d->trace.bus_addr) % 32 || buf->len / 32 * 32 > UINT32_MAX)
		return sb_error_set(SB_ERR_RANGE, "'%s': a trace ring outside the module's buffer",
		                    d->path);
	t.ring_offset = (uint32_t)(buf->bus - d->trace.bus_addr);
	t.ring_size = (uint32_t)(buf->len / 32 * 32);
	return ioc(d, SB_IOC_TRACE_DMA, &t, "trace DMA setup");
}

/* SB_IOC_REPLAY_DMA (uapi 1.2): the module programs the replay ring's registers. */
static int dev_replay_dma_setup(void *priv, const struct sb_dma_buf *buf, unsigned ring_log2)
{
	struct devt *d = priv;
	struct sb_replay_dma r = {.size = sizeof(r), .op = SB_REPLAY_DMA_SETUP};

	if (buf->priv != &d->replay || buf->bus < d->replay.bus_addr ||
	    buf->bus - d->replay.bus_addr >= d->replay.length)
		return sb_error_set(SB_ERR_RANGE, "'%s': a replay ring outside the module's buffer",
		                    d->path);
	r.ring_offset = (uint32_t)(buf->bus - d->replay.bus_addr);
	r.ring_log2 = ring_log2;
	return ioc(d, SB_IOC_REPLAY_DMA, &r, "replay ring setup");
}

/* SB_IOC_REPLAY_DMA submit: the module syncs the ring for the board and writes replay.tail. */
static int dev_replay_dma_submit(void *priv, struct sb_dma_buf *buf, uint32_t tail)
{
	struct devt *d = priv;
	struct sb_replay_dma r = {.size = sizeof(r), .op = SB_REPLAY_DMA_SUBMIT, .tail = tail};

	(void)buf;
	return ioc(d, SB_IOC_REPLAY_DMA, &r, "replay submit");
}

/* SB_IOC_TRACE_DMA status: the module syncs the ring for the CPU. */
static int dev_dma_sync(void *priv, struct sb_dma_buf *buf)
{
	struct devt *d = priv;
	struct sb_trace_dma t = {.size = sizeof(t), .op = SB_TRACE_DMA_STATUS};

	(void)buf;
	if ((d->api_version & 0xFFFF) < 1)
		return 0; /* 1.0: a coherent buffer, nothing to sync */
	return ioc(d, SB_IOC_TRACE_DMA, &t, "trace DMA status");
}

static int dev_wait_event(void *priv, uint32_t mask, uint64_t timeout_ns, uint32_t *events)
{
	struct devt *d = priv;
	uint64_t deadline = sb_monotonic_ns() + timeout_ns;

	for (;;) {
		uint64_t now = sb_monotonic_ns();
		struct pollfd p = {.fd = d->fd, .events = POLLIN};
		struct sb_event ev;
		int ms = now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);
		ssize_t n;

		if (poll(&p, 1, ms) < 0) {
			if (errno == EINTR)
				return sb_error_set(SB_ERR_INTERRUPTED, "waiting for an event");
			return sb_error_set(SB_ERR_IO, "'%s': poll: %s", d->path, strerror(errno));
		}
		if (p.revents & (POLLERR | POLLHUP))
			return sb_error_set(SB_ERR_NOT_FOUND, "'%s': the board was removed",
			                    d->path);
		if (p.revents & POLLIN) {
			n = read(d->fd, &ev, sizeof(ev));
			if (n < 0 && errno != EAGAIN)
				return sb_error_set(errno_to_sb(errno),
				                    "'%s': reading an event: %s", d->path,
				                    strerror(errno));
			if (n == (ssize_t)sizeof(ev) && (ev.events & mask)) {
				*events = ev.events & mask;
				return 0;
			}
		}
		if (sb_monotonic_ns() >= deadline)
			return SB_ERR_TIMEOUT;
	}
}

static int dev_pci_address(void *priv, char *bdf, size_t size)
{
	const struct devt *d = priv;

	snprintf(bdf, size, "%04x:%02x:%02x.%x", d->info.pci_domain, d->info.pci_bus,
	         d->info.pci_dev, d->info.pci_fn);
	return 0;
}

/* The kernel module (its version from sysfs when it declares one) and the board's ids. */
static int dev_describe(void *priv, char *buf, size_t size)
{
	const struct devt *d = priv;
	static const char *const files[] = {"/sys/module/stackbench/version",
	                                    "/sys/module/stackbench/srcversion"};
	char ver[64] = "unknown";

	for (size_t i = 0; i < SB_ARRAY_SIZE(files); i++) {
		FILE *f = fopen(files[i], "re");

		if (!f)
			continue;
		if (fgets(ver, sizeof(ver), f))
			ver[strcspn(ver, "\r\n")] = '\0';
		fclose(f);
		break;
	}
	snprintf(buf, size,
	         "kernel module stackbench %s (uapi %u.%u) on %s, PCI %04x:%04x, %u interrupt "
	         "vectors%s",
	         ver, d->api_version >> 16, d->api_version & 0xFFFF, d->path, d->info.vendor,
	         d->info.device, d->info.irq_vectors,
	         d->info.flags & SB_DEVICE_F_TEST_MODE ? ", test mode" : "");
	return 0;
}

const struct sb_transport_ops sb_transport_dev = {
    .name = "dev",
    .open = dev_open,
    .close = dev_close,
    .read32 = dev_read32,
    .write32 = dev_write32,
    .read64 = dev_read64,
    .regspace_size = dev_regspace,
    .now_ns = dev_now_ns,
    .wait_ns = dev_wait_ns,
    .dma_alloc = dev_dma_alloc,
    .dma_free = dev_dma_free,
    .wait_event = dev_wait_event,
    .trace_dma_setup = dev_trace_dma_setup,
    .dma_sync = dev_dma_sync,
    .replay_dma_alloc = dev_replay_dma_alloc,
    .replay_dma_setup = dev_replay_dma_setup,
    .replay_dma_submit = dev_replay_dma_submit,
    .pci_address = dev_pci_address,
    .describe = dev_describe,
    .handle_open = dev_handle_open,
};
