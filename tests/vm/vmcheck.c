/* SPDX-License-Identifier: MIT */
/*
 * sb_vmcheck: the checks the VM test runs inside the QEMU guest, against the simulated board
 * behind ivshmem-plain (served by stackbench-bridge on the host). One phase per command; each
 * check prints "CHECK <name> ok" or "CHECK <name> FAIL: <why>"; the exit code is the number
 * of failures. guest-init.sh runs the phases in order and counts the lines.
 *
 *   sb_vmcheck pci URI        before the module: registers through the image (pci:)
 *   sb_vmcheck dev PATH       with the module: registers through dev: (exact and mmap)
 *   sb_vmcheck after URI      after rmmod: pci: sees what dev: wrote
 *   sb_vmcheck bad PATH       bad requests get errors
 *   sb_vmcheck trace PATH     the DMA trace buffer
 *   sb_vmcheck events PATH    event reads and polls without events
 *   sb_vmcheck unplug PATH BDF  removal while open (unbind), then bind again
 *   sb_vmcheck latency PATH   per-access latency through the module (figures, not checks)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/stackbench.h>

#include "sb_regmap.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/transport.h"

/* Values the phases hand to each other through the board. */
#define PCI_SCRATCH 0x5C0FF001u
#define PCI_MASK 0x0000000212345680ull /* 34-bit address mask of port 3 */
#define DEV_SCRATCH 0xDE7A0002u
#define DEV_MASK 0x00000001ABCDEF00ull

static unsigned failures;

__attribute__((format(printf, 3, 4))) static void check(const char *name, int ok, const char *fmt,
                                                        ...)
{
	va_list ap;

	if (ok) {
		printf("CHECK %s ok\n", name);
	} else {
		printf("CHECK %s FAIL: ", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
		failures++;
	}
	fflush(stdout);
}

static uint32_t port_reg(struct sb_device *dev, unsigned port, uint32_t reg)
{
	uint32_t off = 0;

	sb_device_find_block(dev, SB_BLK_GUPS_PORT_TYPE, port, &off);
	return off + reg;
}

static uint32_t board_reg(struct sb_device *dev, uint32_t reg)
{
	uint32_t off = 0;

	sb_device_find_block(dev, SB_BLK_BOARD_TYPE, 0, &off);
	return off + reg;
}

static struct sb_device *open_dev(const char *prefix, const char *uri)
{
	struct sb_device *dev;
	char name[64];
	int err = sb_device_open(&dev, uri);

	snprintf(name, sizeof(name), "%s.open", prefix);
	check(name, err == 0, "sb_device_open('%s'): %s", uri, sb_error_detail());
	if (err)
		return NULL;
	snprintf(name, sizeof(name), "%s.walk", prefix);
	/* fw_id, board, hmc_ctrl, irq, trace, stream, replay, 9 ports and the simulator's sim_ctrl */
	check(name, sb_device_block_count(dev) == 17 && sb_device_port_count(dev) == 9,
	      "%u blocks, %u ports (expected 17 and 9)", sb_device_block_count(dev),
	      sb_device_port_count(dev));
	return dev;
}

/* Write then read back a 32-bit and a 64-bit register; returns 1 when both match. */
static void rw_check(const char *prefix, struct sb_device *dev, uint32_t scratch, uint64_t mask)
{
	uint32_t s = 0;
	uint64_t m = 0;
	char name[64];
	int e1, e2;

	e1 = sb_device_write32(dev, board_reg(dev, SB_BOARD_SCRATCH), scratch);
	e2 = sb_device_read32(dev, board_reg(dev, SB_BOARD_SCRATCH), &s);
	snprintf(name, sizeof(name), "%s.scratch", prefix);
	check(name, !e1 && !e2 && s == scratch, "wrote 0x%08x, read 0x%08x (%d %d)", scratch, s, e1,
	      e2);
	e1 = sb_device_write64(dev, port_reg(dev, 3, SB_GUPS_PORT_ADDR_MASK), mask);
	e2 = sb_device_read64(dev, port_reg(dev, 3, SB_GUPS_PORT_ADDR_MASK), &m);
	snprintf(name, sizeof(name), "%s.addr_mask64", prefix);
	check(name, !e1 && !e2 && m == mask, "wrote 0x%016llx, read 0x%016llx (%d %d)",
	      (unsigned long long)mask, (unsigned long long)m, e1, e2);
}

/* Read what another path wrote: the model has it. */
static void expect_values(const char *prefix, struct sb_device *dev, uint32_t scratch,
                          uint64_t mask)
{
	uint32_t s = 0;
	uint64_t m = 0;
	char name[64];
	uint64_t deadline = sb_monotonic_ns() + 5000000000ull;

	/* The image path may take a bridge poll to show a change (longer on a loaded host). */
	do {
		sb_device_read32(dev, board_reg(dev, SB_BOARD_SCRATCH), &s);
		sb_device_read64(dev, port_reg(dev, 3, SB_GUPS_PORT_ADDR_MASK), &m);
	} while ((s != scratch || m != mask) && sb_monotonic_ns() < deadline);
	snprintf(name, sizeof(name), "%s.sees_scratch", prefix);
	check(name, s == scratch, "expected 0x%08x, read 0x%08x", scratch, s);
	snprintf(name, sizeof(name), "%s.sees_addr_mask", prefix);
	check(name, m == mask, "expected 0x%016llx, read 0x%016llx", (unsigned long long)mask,
	      (unsigned long long)m);
}

/* A write-only pulse reads 0 once the bridge has applied it to the model. */
static void pulse_applied(const char *prefix, struct sb_device *dev)
{
	uint32_t hmc = 0, v = 1;
	uint64_t deadline = sb_monotonic_ns() + 5000000000ull;
	char name[64];

	sb_device_find_block(dev, SB_BLK_HMC_CTRL_TYPE, 0, &hmc);
	sb_device_write32(dev, hmc + SB_HMC_CTRL_RESET, SB_HMC_CTRL_RESET_STATS_MASK);
	while (sb_monotonic_ns() < deadline &&
	       sb_device_read32(dev, hmc + SB_HMC_CTRL_RESET, &v) == 0 && v)
		;
	snprintf(name, sizeof(name), "%s.pulse_applied", prefix);
	check(name, v == 0, "hmc_ctrl.reset still reads 0x%x after 5 s", v);
}

static int phase_pci(const char *uri)
{
	struct sb_device *dev = open_dev("pci", uri);

	if (!dev)
		return 1;
	check("pci.transport", !strcmp(sb_device_transport(dev), "pci"), "transport %s",
	      sb_device_transport(dev));
	rw_check("pci", dev, PCI_SCRATCH, PCI_MASK);
	pulse_applied("pci", dev);
	sb_device_close(dev);
	return 0;
}

static int phase_dev(const char *path)
{
	char uri[300];
	struct sb_device *dev;

	snprintf(uri, sizeof(uri), "dev:%s", path);
	dev = open_dev("dev", uri);
	if (!dev)
		return 1;
	/* The model got what pci: stored into the image before the module was loaded. */
	expect_values("dev", dev, PCI_SCRATCH, PCI_MASK);
	rw_check("dev", dev, DEV_SCRATCH, DEV_MASK);
	sb_device_close(dev);
	/* The same through a mapping of the register region (the image, in test mode). */
	snprintf(uri, sizeof(uri), "dev:%s?access=mmap", path);
	dev = open_dev("devmap", uri);
	if (!dev)
		return 1;
	expect_values("devmap", dev, DEV_SCRATCH, DEV_MASK);
	pulse_applied("devmap", dev);
	sb_device_close(dev);
	return 0;
}

static int phase_after(const char *uri)
{
	struct sb_device *dev = open_dev("after", uri);

	if (!dev)
		return 1;
	expect_values("after", dev, DEV_SCRATCH, DEV_MASK);
	sb_device_close(dev);
	return 0;
}

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

static int region(int fd, uint32_t index, struct sb_region_info *ri)
{
	memset(ri, 0, sizeof(*ri));
	ri->size = sizeof(*ri);
	ri->index = index;
	return xioctl(fd, SB_IOC_REGION_INFO, ri);
}

static int try_mmap(int fd, size_t len, uint64_t off, int flags)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, (off_t)off);

	if (p == MAP_FAILED)
		return -errno;
	munmap(p, len);
	return 0;
}

static int phase_bad(const char *path)
{
	struct sb_device_info di;
	struct sb_region_info regs, ri;
	struct sb_reg_io ra;
	struct sb_api_version v;
	unsigned char big[512];
	char small[8];
	int fd = open(path, O_RDWR), r;

	check("bad.open", fd >= 0, "open '%s': %s", path, strerror(errno));
	if (fd < 0)
		return 1;
	r = region(fd, SB_REGION_REGS, &regs);
	check("bad.regs_info", r == 0 && regs.length == 0x2000 && regs.offset == 0,
	      "region info: %d, length 0x%llx offset 0x%llx", r, (unsigned long long)regs.length,
	      (unsigned long long)regs.offset);
	r = try_mmap(fd, regs.length, regs.offset, MAP_SHARED);
	check("bad.mmap_regs_ok", r == 0, "mmap of the whole register region: %d", r);
	r = try_mmap(fd, regs.length + 4096, regs.offset, MAP_SHARED);
	check("bad.mmap_past_bar", r == -EINVAL, "mmap one page past the BAR: %d", r);
	r = try_mmap(fd, 4096, regs.offset + regs.length, MAP_SHARED);
	check("bad.mmap_offset_past_bar", r == -EINVAL, "mmap at the end of the BAR: %d", r);
	r = try_mmap(fd, 4096, SB_REGION_OFFSET(7), MAP_SHARED);
	check("bad.mmap_no_region", r == -EINVAL, "mmap of region 7: %d", r);
	r = try_mmap(fd, 4096, regs.offset, MAP_PRIVATE);
	check("bad.mmap_private", r == -EINVAL, "MAP_PRIVATE: %d", r);

	memset(&di, 0, sizeof(di));
	di.size = 4;
	r = xioctl(fd, SB_IOC_DEVICE_INFO, &di);
	check("bad.ioctl_short_size", r == -EINVAL, "device info with size 4: %d", r);
	di.size = 1u << 20;
	r = xioctl(fd, SB_IOC_DEVICE_INFO, &di);
	check("bad.ioctl_huge_size", r == -EINVAL, "device info with size 1 MiB: %d", r);
	memset(big, 0, sizeof(big));
	((struct sb_device_info *)big)->size = sizeof(big);
	r = xioctl(fd, SB_IOC_DEVICE_INFO, big);
	check("ioctl.larger_zeroed_size",
	      r == 0 && ((struct sb_device_info *)big)->size == sizeof(struct sb_device_info),
	      "device info with a larger, zeroed struct: %d, size %u", r,
	      ((struct sb_device_info *)big)->size);
	big[sizeof(struct sb_device_info) + 3] = 1;
	((struct sb_device_info *)big)->size = sizeof(big);
	r = xioctl(fd, SB_IOC_DEVICE_INFO, big);
	check("bad.ioctl_unknown_extension", r == -E2BIG, "non-zero bytes past the struct: %d", r);
	r = xioctl(fd, _IO(SB_IOC_MAGIC, 0x7F), &di);
	check("bad.ioctl_unknown", r == -ENOTTY, "unknown ioctl number: %d", r);
	r = xioctl(fd, _IOR('T', 0x01, int), &di);
	check("bad.ioctl_other_magic", r == -ENOTTY, "other subsystem's ioctl: %d", r);
	r = xioctl(fd, SB_IOC_API_VERSION, NULL);
	check("bad.ioctl_null", r == -EFAULT, "NULL argument: %d", r);
	r = region(fd, 9, &ri);
	check("bad.region_index", r == -EINVAL, "region 9: %d", r);

	memset(&ra, 0, sizeof(ra));
	ra.size = sizeof(ra);
	ra.op = SB_REG_READ32;
	ra.offset = (uint32_t)regs.length;
	r = xioctl(fd, SB_IOC_REG_ACCESS, &ra);
	check("bad.reg_past_bar", r == -EINVAL, "register read at the end of the region: %d", r);
	ra.offset = 2;
	r = xioctl(fd, SB_IOC_REG_ACCESS, &ra);
	check("bad.reg_misaligned", r == -EINVAL, "register read at offset 2: %d", r);
	ra.offset = 0;
	ra.op = 99;
	r = xioctl(fd, SB_IOC_REG_ACCESS, &ra);
	check("bad.reg_op", r == -EINVAL, "register op 99: %d", r);
	ra.op = SB_REG_READ64;
	ra.offset = (uint32_t)regs.length - 4;
	r = xioctl(fd, SB_IOC_REG_ACCESS, &ra);
	check("bad.reg64_straddles_end", r == -EINVAL, "64-bit read over the end: %d", r);
	ra.op = SB_REG_READ32;
	ra.offset = SB_FW_ID_MAGIC;
	r = xioctl(fd, SB_IOC_REG_ACCESS, &ra);
	check("ioctl.reg_magic", r == 0 && ra.value == SB_REGMAP_MAGIC,
	      "magic through the ioctl: %d, 0x%llx", r, (unsigned long long)ra.value);

	v.size = sizeof(v);
	r = xioctl(fd, SB_IOC_API_VERSION, &v);
	check("ioctl.api_version", r == 0 && v.version == SB_UAPI_VERSION, "%d, version 0x%x", r,
	      v.version);
	memset(&di, 0, sizeof(di));
	di.size = sizeof(di);
	r = xioctl(fd, SB_IOC_DEVICE_INFO, &di);
	check("ioctl.device_info",
	      r == 0 && di.vendor == 0x1af4 && di.device == 0x1110 && di.regs_bar == 2 &&
	          (di.flags & SB_DEVICE_F_TEST_MODE) && !(di.flags & SB_DEVICE_F_MMAP_EXACT) &&
	          !(di.flags & SB_DEVICE_F_MSI) && di.irq_vectors == 0 &&
	          di.fw_magic == SB_REGMAP_MAGIC && di.fw_regmap_hash == SB_REGMAP_HASH &&
	          di.num_regions == SB_REGION_COUNT,
	      "%d: %04x:%04x bar %u flags 0x%x vectors %u magic 0x%08x", r, di.vendor, di.device,
	      di.regs_bar, di.flags, di.irq_vectors, di.fw_magic);
	r = (int)read(fd, small, sizeof(small));
	check("bad.read_short_buffer", r < 0 && errno == EINVAL, "read of 8 bytes: %d (%s)", r,
	      strerror(errno));
	close(fd);
	return 0;
}

static int phase_trace(const char *path)
{
	struct sb_region_info ri;
	struct sb_device *dev;
	struct sb_dma_buf buf;
	uint32_t trace = 0;
	uint64_t addr = 0;
	char uri[300];
	uint32_t *p;
	int fd = open(path, O_RDWR), r, bad = 0;

	if (fd < 0) {
		check("trace.open", 0, "open '%s': %s", path, strerror(errno));
		return 1;
	}
	r = region(fd, SB_REGION_TRACE, &ri);
	check("trace.info", r == 0 && ri.length == 1024 * 1024 && ri.bus_addr && ri.flags,
	      "%d: length 0x%llx bus 0x%llx flags 0x%x", r, (unsigned long long)ri.length,
	      (unsigned long long)ri.bus_addr, ri.flags);
	p = mmap(NULL, ri.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)ri.offset);
	check("trace.mmap", p != MAP_FAILED, "mmap of the trace buffer: %s", strerror(errno));
	if (p != MAP_FAILED) {
		for (size_t i = 0; i < ri.length / 4; i++)
			p[i] = (uint32_t)(i * 2654435761u);
		for (size_t i = 0; i < ri.length / 4; i++)
			bad += p[i] != (uint32_t)(i * 2654435761u);
		check("trace.pattern", bad == 0, "%d words differ", bad);
		munmap(p, ri.length);
	}
	r = try_mmap(fd, ri.length + 4096, ri.offset, MAP_SHARED);
	check("bad.mmap_past_trace", r == -EINVAL, "mmap past the trace buffer: %d", r);
	close(fd);

	snprintf(uri, sizeof(uri), "dev:%s", path);
	if (sb_device_open(&dev, uri) < 0) {
		check("trace.device", 0, "%s", sb_error_detail());
		return 1;
	}
	r = sb_device_dma_alloc(dev, 4096, &buf);
	check("trace.dma_alloc", r == 0 && buf.bus == ri.bus_addr, "%d: bus 0x%llx (%s)", r,
	      (unsigned long long)buf.bus, sb_error_detail());
	sb_device_find_block(dev, SB_BLK_TRACE_TYPE, 0, &trace);
	sb_device_read64(dev, trace + SB_TRACE_BUF_ADDR, &addr);
	check("trace.buf_addr_programmed", addr == ri.bus_addr,
	      "trace.buf_addr 0x%llx, buffer at 0x%llx", (unsigned long long)addr,
	      (unsigned long long)ri.bus_addr);
	if (r == 0)
		sb_device_dma_free(dev, &buf);
	sb_device_close(dev);
	return 0;
}

static int phase_events(const char *path)
{
	struct pollfd pfd;
	struct sb_event ev;
	int fd = open(path, O_RDWR | O_NONBLOCK), r;

	if (fd < 0) {
		check("events.open", 0, "open '%s': %s", path, strerror(errno));
		return 1;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	r = poll(&pfd, 1, 50);
	check("events.poll_timeout", r == 0, "poll without events: %d revents 0x%x", r,
	      pfd.revents);
	r = (int)read(fd, &ev, sizeof(ev));
	check("events.read_nonblock", r < 0 && errno == EAGAIN, "read without events: %d (%s)", r,
	      strerror(errno));
	close(fd);
	return 0;
}

static sigjmp_buf segv_jump;

static void on_sigbus(int sig)
{
	siglongjmp(segv_jump, sig);
}

static int sysfs_write(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY), r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		r = -errno;
	close(fd);
	return r;
}

static int phase_unplug(const char *path, const char *bdf)
{
	struct sigaction sa = {.sa_handler = on_sigbus}, old_bus, old_segv;
	struct sb_region_info regs, trace;
	struct sb_api_version v = {.size = sizeof(v)};
	volatile uint32_t *map, *tmap;
	volatile uint32_t sink = 0;
	struct pollfd pfd;
	struct sb_event ev;
	int fd = open(path, O_RDWR), r, sig;

	if (fd < 0) {
		check("unplug.open", 0, "open '%s': %s", path, strerror(errno));
		return 1;
	}
	region(fd, SB_REGION_REGS, &regs);
	region(fd, SB_REGION_TRACE, &trace);
	map = mmap(NULL, regs.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)regs.offset);
	tmap =
	    mmap(NULL, trace.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)trace.offset);
	check("unplug.mapped",
	      map != MAP_FAILED && tmap != MAP_FAILED && map[SB_FW_ID_MAGIC / 4] == SB_REGMAP_MAGIC,
	      "mappings before removal");
	if (map == MAP_FAILED || tmap == MAP_FAILED)
		return 1;
	tmap[0] = 0x600DF00Du;

	r = sysfs_write("/sys/bus/pci/drivers/stackbench/unbind", bdf);
	check("unplug.unbind", r == 0, "unbind %s: %d", bdf, r);
	r = xioctl(fd, SB_IOC_API_VERSION, &v);
	check("unplug.ioctl_enodev", r == -ENODEV, "ioctl after removal: %d", r);
	r = xioctl(fd, _IO(SB_IOC_MAGIC, 0x7F), &v);
	check("unplug.ioctl_unknown", r == -ENOTTY, "unknown ioctl after removal: %d", r);
	r = (int)read(fd, &ev, sizeof(ev));
	check("unplug.read_enodev", r < 0 && errno == ENODEV, "read after removal: %d (%s)", r,
	      strerror(errno));
	pfd.fd = fd;
	pfd.events = POLLIN;
	r = poll(&pfd, 1, 100);
	check("unplug.poll_hup", r == 1 && (pfd.revents & (POLLERR | POLLHUP)),
	      "poll after removal: %d revents 0x%x", r, pfd.revents);
	r = try_mmap(fd, 4096, regs.offset, MAP_SHARED);
	check("unplug.mmap_enodev", r == -ENODEV, "mmap after removal: %d", r);

	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	sig = sigsetjmp(segv_jump, 1);
	if (!sig)
		sink = map[0];
	check("unplug.regs_sigbus", sig == SIGBUS, "touching the register mapping: signal %d", sig);
	sig = sigsetjmp(segv_jump, 1);
	if (!sig)
		sink = tmap[0];
	check("unplug.trace_sigbus", sig == SIGBUS, "touching the trace mapping: signal %d", sig);
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	(void)sink;
	munmap((void *)map, regs.length);
	munmap((void *)tmap, trace.length); /* the last mapping: the module frees the buffer */
	r = close(fd);
	check("unplug.close", r == 0, "close: %s", strerror(errno));
	r = access(path, F_OK);
	check("unplug.node_gone", r < 0, "%s still exists after removal", path);

	r = sysfs_write("/sys/bus/pci/drivers/stackbench/bind", bdf);
	check("unplug.rebind", r == 0, "bind %s: %d", bdf, r);
	usleep(300000); /* devtmpfs creates the node */
	fd = open(path, O_RDWR);
	v.size = sizeof(v);
	r = fd < 0 ? -errno : xioctl(fd, SB_IOC_API_VERSION, &v);
	check("unplug.reopen", r == 0 && v.version == SB_UAPI_VERSION, "open/ioctl after bind: %d",
	      r);
	if (fd >= 0)
		close(fd);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, uint64_t *t, unsigned n)
{
	double sum = 0;

	qsort(t, n, sizeof(*t), cmp_u64);
	for (unsigned i = 0; i < n; i++)
		sum += (double)t[i];
	printf("LATENCY %-40s n=%-5u p50 %8llu ns  mean %9.0f ns  p99 %9llu ns\n", what, n,
	       (unsigned long long)t[n / 2], sum / n, (unsigned long long)t[n * 99 / 100]);
}

/*
 * Figures, not checks: what one access costs through the module in this (TCG) guest. Leaves
 * board.scratch as the dev phase set it.
 */
static int phase_latency(const char *path)
{
	enum { N = 1000 };
	static uint64_t t[N];
	struct sb_device *dev;
	char uri[300];
	uint32_t v, scratch, hmc;
	uint64_t t0;

	snprintf(uri, sizeof(uri), "dev:%s", path);
	if (sb_device_open(&dev, uri) < 0)
		return 1;
	scratch = board_reg(dev, SB_BOARD_SCRATCH);
	for (unsigned i = 0; i < N; i++) {
		t0 = sb_monotonic_ns();
		sb_device_read32(dev, scratch, &v);
		t[i] = sb_monotonic_ns() - t0;
	}
	report("dev: ioctl read32 (bridge mailbox)", t, N);
	for (unsigned i = 0; i < N; i++) {
		t0 = sb_monotonic_ns();
		sb_device_write32(dev, scratch, i);
		t[i] = sb_monotonic_ns() - t0;
	}
	report("dev: ioctl write32 (bridge mailbox)", t, N);
	sb_device_write32(dev, scratch, DEV_SCRATCH);
	sb_device_close(dev);

	snprintf(uri, sizeof(uri), "dev:%s?access=mmap", path);
	if (sb_device_open(&dev, uri) < 0)
		return 1;
	sb_device_find_block(dev, SB_BLK_HMC_CTRL_TYPE, 0, &hmc);
	for (unsigned i = 0; i < N; i++) {
		t0 = sb_monotonic_ns();
		sb_device_read32(dev, scratch, &v);
		t[i] = sb_monotonic_ns() - t0;
	}
	report("dev: mmap read32 (register image)", t, N);
	for (unsigned i = 0; i < N / 4; i++) {
		t0 = sb_monotonic_ns();
		sb_device_write32(dev, hmc + SB_HMC_CTRL_RESET, SB_HMC_CTRL_RESET_STATS_MASK);
		do
			sb_device_read32(dev, hmc + SB_HMC_CTRL_RESET, &v);
		while (v);
		t[i] = sb_monotonic_ns() - t0;
	}
	report("dev: mmap store until applied (image)", t, N / 4);
	fflush(stdout);
	sb_device_close(dev);
	return 0;
}

int main(int argc, char **argv)
{
	int r;

	if (argc == 3 && !strcmp(argv[1], "pci"))
		r = phase_pci(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "dev"))
		r = phase_dev(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "after"))
		r = phase_after(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "bad"))
		r = phase_bad(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "trace"))
		r = phase_trace(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "events"))
		r = phase_events(argv[2]);
	else if (argc == 4 && !strcmp(argv[1], "unplug"))
		r = phase_unplug(argv[2], argv[3]);
	else if (argc == 3 && !strcmp(argv[1], "latency"))
		r = phase_latency(argv[2]);
	else {
		fprintf(stderr, "usage: sb_vmcheck pci|dev|after|bad|trace|events|latency ARG | "
		                "unplug PATH BDF\n");
		return 100;
	}
	return (int)failures + r;
}
