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
 *   sb_vmcheck replay PATH    the replay buffer: its ring (SB_IOC_REPLAY_DMA), its mapping, the
 *                             device API through dev:
 *   sb_vmcheck events PATH    event reads and polls: none pending, then an injected one
 *   sb_vmcheck rdonly PATH    what a read-only file may and may not do
 *   sb_vmcheck dmaregs PATH   the DMA address registers are the driver's (SB_IOC_TRACE_DMA,
 *                             SB_IOC_REPLAY_DMA), writable register mappings need CAP_SYS_RAWIO
 *   sb_vmcheck msi PATH BDF   events by MSI-X (ivshmem-doorbell), close after removal
 *   sb_vmcheck pollers PATH BDF  polled events: files closed after removal, then bind again
 *   sb_vmcheck unplug PATH BDF  removal while open (unbind), then bind again; the trace and
 *                             replay buffers stay mapped, readable, and are freed with their
 *                             last mappings
 *   sb_vmcheck deadlock PATH BDF  ioctls whose argument faults (userfaultfd) while an mmap and
 *                             an unbind wait: everything finishes (prints DEADLOCK-DONE last,
 *                             or DEADLOCK-STUCK while a child's threads stay blocked)
 *   sb_vmcheck latency PATH   per-access latency through the module (figures, not checks)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/stackbench.h>
#include <linux/userfaultfd.h>

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

/* One SB_IOC_REG_ACCESS; value in for writes, out for reads (may be NULL for writes of 0). */
static int reg_io(int fd, uint32_t op, uint32_t offset, uint64_t *value)
{
	struct sb_reg_io ra = {.size = sizeof(ra), .op = op, .offset = offset};
	int r;

	ra.value = value ? *value : 0;
	r = xioctl(fd, SB_IOC_REG_ACCESS, &ra);
	if (!r && value)
		*value = ra.value;
	return r;
}

static int trace_dma(int fd, uint32_t op, uint32_t ring_offset, uint32_t ring_size,
                     struct sb_trace_dma *td)
{
	memset(td, 0, sizeof(*td));
	td->size = sizeof(*td);
	td->op = op;
	td->ring_offset = ring_offset;
	td->ring_size = ring_size;
	return xioctl(fd, SB_IOC_TRACE_DMA, td);
}

static int replay_dma(int fd, uint32_t op, uint32_t ring_offset, uint32_t ring_log2, uint32_t tail,
                      struct sb_replay_dma *rd)
{
	memset(rd, 0, sizeof(*rd));
	rd->size = sizeof(*rd);
	rd->op = op;
	rd->ring_offset = ring_offset;
	rd->ring_log2 = ring_log2;
	rd->tail = tail;
	return xioctl(fd, SB_IOC_REPLAY_DMA, rd);
}

/* The offset of the first block of a type, found through dev: (UINT32_MAX when absent). */
static uint32_t block_of(const char *path, uint32_t type)
{
	struct sb_device *dev;
	uint32_t off = UINT32_MAX;
	char uri[300];

	snprintf(uri, sizeof(uri), "dev:%s", path);
	if (sb_device_open(&dev, uri) < 0)
		return UINT32_MAX;
	if (sb_device_find_block(dev, type, 0, &off) < 0)
		off = UINT32_MAX;
	sb_device_close(dev);
	return off;
}

/* How many times the kernel log holds needle (-1 when it cannot be read). Not inlined into a
 * caller that uses sigsetjmp (its locals would be 'clobbered'). */
__attribute__((noinline)) static int dmesg_count(const char *needle)
{
	static char buf[1 << 20];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, (int)sizeof(buf) - 1), count = 0;

	if (n < 0)
		return -1;
	buf[n] = 0;
	for (const char *p = buf; (p = strstr(p, needle)) != NULL; p++)
		count++;
	return count;
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
	          !(di.flags & SB_DEVICE_F_MSI) == !di.irq_vectors &&
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

/*
 * A DMA buffer (region ri, named what) maps whole and holds a pattern of words i * mul written
 * through the mapping (checks what.mmap, what.pattern); a mapping past its end is refused
 * (bad.mmap_past_what).
 */
static void map_dma_buffer(int fd, const struct sb_region_info *ri, const char *what, uint32_t mul)
{
	char name[64];
	uint32_t *p;
	size_t bad = 0;
	int r;

	p = mmap(NULL, ri->length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)ri->offset);
	snprintf(name, sizeof(name), "%s.mmap", what);
	check(name, p != MAP_FAILED, "mmap of the %s buffer: %s", what, strerror(errno));
	if (p != MAP_FAILED) {
		for (size_t i = 0; i < ri->length / 4; i++)
			p[i] = (uint32_t)i * mul;
		for (size_t i = 0; i < ri->length / 4; i++)
			bad += p[i] != (uint32_t)i * mul;
		snprintf(name, sizeof(name), "%s.pattern", what);
		check(name, bad == 0, "%zu words differ", bad);
		munmap(p, ri->length);
	}
	r = try_mmap(fd, ri->length + 4096, ri->offset, MAP_SHARED);
	snprintf(name, sizeof(name), "bad.mmap_past_%s", what);
	check(name, r == -EINVAL, "mmap past the %s buffer: %d", what, r);
}

static int phase_trace(const char *path)
{
	struct sb_region_info ri;
	struct sb_device *dev;
	struct sb_dma_buf buf;
	uint32_t trace = 0;
	uint64_t addr = 0;
	char uri[300];
	int fd = open(path, O_RDWR), r;

	if (fd < 0) {
		check("trace.open", 0, "open '%s': %s", path, strerror(errno));
		return 1;
	}
	r = region(fd, SB_REGION_TRACE, &ri);
	check("trace.info", r == 0 && ri.length == 1024 * 1024 && ri.bus_addr && ri.flags,
	      "%d: length 0x%llx bus 0x%llx flags 0x%x", r, (unsigned long long)ri.length,
	      (unsigned long long)ri.bus_addr, ri.flags);
	map_dma_buffer(fd, &ri, "trace", 2654435761u);
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

/* replay.ring_addr and replay.ring_log2 through the (unguarded) read path. */
static void replay_ring_regs(int fd, uint32_t replay, uint64_t *addr, uint64_t *log2)
{
	*addr = *log2 = UINT64_MAX;
	reg_io(fd, SB_REG_READ64, replay + SB_REPLAY_RING_ADDR, addr);
	reg_io(fd, SB_REG_READ32, replay + SB_REPLAY_RING_LOG2, log2);
}

/* The replay buffer through the device API of dev: (the library's transport). */
static void replay_device_api(const char *path, const struct sb_region_info *ri)
{
	struct sb_dma_buf buf, again, trace;
	struct sb_device *dev;
	uint32_t replay = 0, tail = 0, log2 = 0;
	uint64_t addr = 0;
	char uri[300];
	int r, r2;

	snprintf(uri, sizeof(uri), "dev:%s", path);
	if (sb_device_open(&dev, uri) < 0) {
		check("replay.device", 0, "%s", sb_error_detail());
		return;
	}
	sb_device_find_block(dev, SB_BLK_REPLAY_TYPE, 0, &replay);
	r = sb_device_replay_dma_alloc(dev, 4096, &buf);
	check("replay.api_alloc", r == 0 && buf.bus == ri->bus_addr && buf.host,
	      "%d: bus 0x%llx, buffer at 0x%llx (%s)", r, (unsigned long long)buf.bus,
	      (unsigned long long)ri->bus_addr, sb_error_detail());
	if (r)
		goto out;
	r = sb_device_replay_dma_alloc(dev, 4096, &again);
	check("replay.api_busy", r == SB_ERR_BUSY, "a second replay buffer: %d", r);
	/* A replay captured by DMA needs both buffers at once. */
	r = sb_device_dma_alloc(dev, 4096, &trace);
	check("replay.api_trace_too", r == 0 && trace.bus != buf.bus, "the trace buffer: %d (%s)",
	      r, sb_error_detail());
	if (r == 0)
		sb_device_dma_free(dev, &trace);
	r = sb_device_replay_dma_setup(dev, &buf, 8);
	sb_device_read64(dev, replay + SB_REPLAY_RING_ADDR, &addr);
	sb_device_read32(dev, replay + SB_REPLAY_RING_LOG2, &log2);
	check("replay.api_setup", r == 0 && addr == ri->bus_addr && log2 == 8,
	      "%d: ring_addr 0x%llx ring_log2 %u (%s)", r, (unsigned long long)addr, log2,
	      sb_error_detail());
	r = sb_device_replay_dma_setup(dev, &buf, 9);
	check("replay.api_setup_too_large", r == SB_ERR_RANGE,
	      "512 descriptors in a 4096-byte buffer: %d", r);
	r = sb_device_replay_dma_submit(dev, &buf, 3);
	sb_device_read32(dev, replay + SB_REPLAY_TAIL, &tail);
	check("replay.api_submit", r == 0 && tail == 3, "%d: replay.tail %u (%s)", r, tail,
	      sb_error_detail());
	sb_device_dma_free(dev, &buf);
	r = sb_device_replay_dma_alloc(dev, (size_t)ri->length + 4096, &buf);
	r2 = r ? sb_device_replay_dma_alloc(dev, (size_t)ri->length, &buf) : -1;
	check("replay.api_whole", r == SB_ERR_RANGE && r2 == 0,
	      "more than the buffer: %d; all of it: %d", r, r2);
	if (r2 == 0)
		sb_device_dma_free(dev, &buf);
out:
	sb_device_close(dev);
}

/*
 * The replay buffer: the board reads its descriptor ring there, at the address the driver
 * programmed (at probe: all of the buffer), and SB_IOC_REPLAY_DMA moves the ring only inside it.
 */
static int phase_replay(const char *path)
{
	uint32_t replay = block_of(path, SB_BLK_REPLAY_TYPE);
	struct sb_device_info di = {.size = sizeof(di)};
	struct sb_region_info ri;
	struct sb_replay_dma rd;
	uint64_t addr, log2, tail = 0, head = 0, status = 0;
	int fd = open(path, O_RDWR), r, r2, r3, r4;

	if (fd < 0 || replay == UINT32_MAX) {
		check("replay.open", 0, "open '%s': %s (replay block 0x%x)", path, strerror(errno),
		      replay);
		return 1;
	}
	r = xioctl(fd, SB_IOC_DEVICE_INFO, &di);
	check("replay.device_flag", r == 0 && (di.flags & SB_DEVICE_F_REPLAY_DMA), "%d: flags 0x%x",
	      r, di.flags);
	r = region(fd, SB_REGION_REPLAY, &ri);
	check("replay.info",
	      r == 0 && ri.length == 1024 * 1024 && ri.bus_addr &&
	          ri.offset == SB_REGION_OFFSET(SB_REGION_REPLAY) &&
	          ri.flags == (SB_REGION_F_READ | SB_REGION_F_WRITE | SB_REGION_F_MMAP |
	                       SB_REGION_F_MMAP_WRITE),
	      "%d: length 0x%llx offset 0x%llx bus 0x%llx flags 0x%x", r,
	      (unsigned long long)ri.length, (unsigned long long)ri.offset,
	      (unsigned long long)ri.bus_addr, ri.flags);
	/* At probe the driver pointed the ring at all of its buffer: 2^16 descriptors of 16 B. */
	replay_ring_regs(fd, replay, &addr, &log2);
	check("replay.ring_programmed", addr == ri.bus_addr && log2 == 16,
	      "replay.ring_addr 0x%llx ring_log2 %llu; buffer at 0x%llx", (unsigned long long)addr,
	      (unsigned long long)log2, (unsigned long long)ri.bus_addr);
	map_dma_buffer(fd, &ri, "replay", 2246822519u);

	r = replay_dma(fd, SB_REPLAY_DMA_STATUS, 0, 0, 0, &rd);
	reg_io(fd, SB_REG_READ32, replay + SB_REPLAY_TAIL, &tail);
	reg_io(fd, SB_REG_READ32, replay + SB_REPLAY_HEAD, &head);
	reg_io(fd, SB_REG_READ32, replay + SB_REPLAY_STATUS, &status);
	check("replay.status",
	      r == 0 && rd.desc_size == SB_REPLAY_DESC_BYTES && rd.ring_offset == 0 &&
	          rd.ring_log2 == 16 && rd.tail == tail && rd.head == head && rd.status == status,
	      "STATUS: %d, desc %u, ring %u+2^%u, tail %u head %u status 0x%x (registers %llu %llu "
	      "0x%llx)",
	      r, rd.desc_size, rd.ring_offset, rd.ring_log2, rd.tail, rd.head, rd.status,
	      (unsigned long long)tail, (unsigned long long)head, (unsigned long long)status);
	r = replay_dma(fd, SB_REPLAY_DMA_SETUP, 4096, 8, 0, &rd);
	replay_ring_regs(fd, replay, &addr, &log2);
	reg_io(fd, SB_REG_READ32, replay + SB_REPLAY_TAIL, &tail);
	check("replay.setup_ring",
	      r == 0 && rd.ring_offset == 4096 && rd.ring_log2 == 8 && rd.tail == 0 &&
	          addr == ri.bus_addr + 4096 && log2 == 8 && tail == 0,
	      "SETUP 4096+2^8: %d (ring %u+2^%u), ring_addr 0x%llx ring_log2 %llu tail %llu "
	      "(buffer 0x%llx)",
	      r, rd.ring_offset, rd.ring_log2, (unsigned long long)addr, (unsigned long long)log2,
	      (unsigned long long)tail, (unsigned long long)ri.bus_addr);
	r = replay_dma(fd, SB_REPLAY_DMA_SETUP, (uint32_t)ri.length, 0, 0, &rd);
	r2 = replay_dma(fd, SB_REPLAY_DMA_SETUP, 8, 4, 0, &rd);
	r3 = replay_dma(fd, SB_REPLAY_DMA_SETUP, 0, 17, 0, &rd);
	r4 = replay_dma(fd, SB_REPLAY_DMA_SETUP, (uint32_t)ri.length - 4096, 9, 0, &rd);
	replay_ring_regs(fd, replay, &addr, &log2);
	check("replay.setup_outside_refused",
	      r == -EINVAL && r2 == -EINVAL && r3 == -EINVAL && r4 == -EINVAL &&
	          addr == ri.bus_addr + 4096 && log2 == 8,
	      "past the end %d, misaligned %d, too large %d, over the end %d; ring_addr 0x%llx "
	      "ring_log2 %llu",
	      r, r2, r3, r4, (unsigned long long)addr, (unsigned long long)log2);
	r = replay_dma(fd, 7, 0, 0, 0, &rd);
	check("replay.bad_op", r == -EINVAL, "operation 7: %d", r);
	r = replay_dma(fd, SB_REPLAY_DMA_SUBMIT, 0, 0, 5, &rd);
	reg_io(fd, SB_REG_READ32, replay + SB_REPLAY_TAIL, &tail);
	check("replay.submit", r == 0 && rd.tail == 5 && tail == 5,
	      "SUBMIT tail 5: %d, answer %u, replay.tail %llu", r, rd.tail,
	      (unsigned long long)tail);
	replay_device_api(path, &ri);
	/* Back to the ring of probe. */
	r = replay_dma(fd, SB_REPLAY_DMA_SETUP, 0, 16, 0, &rd);
	replay_ring_regs(fd, replay, &addr, &log2);
	check("replay.setup_whole", r == 0 && addr == ri.bus_addr && log2 == 16,
	      "SETUP of the whole buffer: %d, ring_addr 0x%llx ring_log2 %llu", r,
	      (unsigned long long)addr, (unsigned long long)log2);
	close(fd);
	return 0;
}

/*
 * Put the simulated cube into thermal failure (sim_ctrl.control.inject_thermal), expect the
 * thermal event on evfd (poll wakes, read returns it once), then reset and initialize the cube
 * again so that later checks find it serving.
 */
static void thermal_event(const char *prefix, const char *path, int evfd)
{
	uint32_t sim = block_of(path, SB_BLK_SIM_CTRL_TYPE),
	         hmc = block_of(path, SB_BLK_HMC_CTRL_TYPE);
	struct pollfd pfd = {.fd = evfd, .events = POLLIN};
	struct sb_event ev = {0};
	uint64_t v = 0;
	char name[64];
	int fd = open(path, O_RDWR), r, n = -1;

	r = fd < 0 ? -errno : reg_io(fd, SB_REG_READ32, sim + SB_SIM_CTRL_CONTROL, &v);
	v |= SB_SIM_CTRL_CONTROL_INJECT_THERMAL_MASK;
	if (!r)
		r = reg_io(fd, SB_REG_WRITE32, sim + SB_SIM_CTRL_CONTROL, &v);
	snprintf(name, sizeof(name), "%s.inject_thermal", prefix);
	check(name, r == 0, "writing sim_ctrl.control.inject_thermal: %d", r);
	r = poll(&pfd, 1, 5000);
	if (r == 1 && (pfd.revents & POLLIN))
		n = (int)read(evfd, &ev, sizeof(ev));
	snprintf(name, sizeof(name), "%s.thermal_delivered", prefix);
	check(name,
	      n == (int)sizeof(ev) && ev.size == sizeof(ev) &&
	          (ev.events & SB_IRQ_STATUS_THERMAL_MASK) && ev.count >= 1 && ev.time_ns > 0,
	      "poll %d revents 0x%x, read %d: events 0x%x count %u", r, pfd.revents, n, ev.events,
	      ev.count);
	n = (int)read(evfd, &ev, sizeof(ev));
	snprintf(name, sizeof(name), "%s.delivered_once", prefix);
	check(name, n < 0 && errno == EAGAIN, "second read: %d (%s)", n, strerror(errno));
	v = SB_HMC_CTRL_RESET_CUBE_MASK;
	if (fd >= 0 && reg_io(fd, SB_REG_WRITE32, hmc + SB_HMC_CTRL_RESET, &v) == 0) {
		v = SB_HMC_CTRL_CONTROL_INIT_MASK;
		reg_io(fd, SB_REG_WRITE32, hmc + SB_HMC_CTRL_CONTROL, &v);
	}
	if (fd >= 0)
		close(fd);
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
	thermal_event("events", path, fd);
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

/* Wait up to 5 s for the device node (devtmpfs creates it after a bind). */
static int wait_node(const char *path)
{
	for (int i = 0; i < 100; i++) {
		if (access(path, F_OK) == 0)
			return 0;
		usleep(50000);
	}
	return -ENOENT;
}

/* Bind the function to the module again and wait for the node. */
static int rebind(const char *path, const char *bdf)
{
	int r = sysfs_write("/sys/bus/pci/drivers/stackbench/bind", bdf);

	return r ? r : wait_node(path);
}

#define TRACE_WORD(i) ((uint32_t)(i)*2654435761u ^ 0x5A5A0000u)
#define TRACE_FREED "trace buffer of 1024 KiB freed"
#define REPLAY_FREED "replay buffer of 1024 KiB freed"

/* Every word of a DMA-buffer mapping still holds the pattern; returns the count that differ. */
static size_t trace_pattern_bad(volatile uint32_t *t, size_t len)
{
	size_t bad = 0;

	for (size_t i = 0; i < len / 4; i++)
		bad += t[i] != TRACE_WORD(i);
	return bad;
}

static int phase_unplug(const char *path, const char *bdf)
{
	struct sigaction sa = {.sa_handler = on_sigbus}, old_bus, old_segv;
	struct sb_region_info regs, trace, replay;
	struct sb_api_version v = {.size = sizeof(v)};
	volatile uint32_t *map, *tmap, *rmap;
	volatile uint32_t sink = 0;
	struct pollfd pfd;
	struct sb_event ev;
	int fd = open(path, O_RDWR), r, sig, status = 0, go[2], freed0, rfreed0;
	volatile size_t bad = 0;
	pid_t child;

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
	if (map == MAP_FAILED || tmap == MAP_FAILED || pipe(go) < 0)
		return 1;
	for (size_t i = 0; i < trace.length / 4; i++)
		tmap[i] = TRACE_WORD(i);
	freed0 = dmesg_count(TRACE_FREED);

	/* A child inherits the trace mapping and keeps it after this process lets go of it. */
	fflush(stdout);
	child = fork();
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		if (trace_pattern_bad(tmap, trace.length))
			_exit(1);
		tmap[0] = 0; /* writable too, and nobody else sees it any more */
		_exit(tmap[0] == 0 ? 0 : 2);
	}
	close(go[0]);
	/* The replay buffer, mapped by this process only. */
	region(fd, SB_REGION_REPLAY, &replay);
	rmap =
	    mmap(NULL, replay.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)replay.offset);
	check("unplug.replay_mapped", rmap != MAP_FAILED && replay.length,
	      "mapping the replay buffer (%llu bytes): %s", (unsigned long long)replay.length,
	      strerror(errno));
	if (rmap == MAP_FAILED)
		rmap = NULL;
	for (size_t i = 0; rmap && i < replay.length / 4; i++)
		rmap[i] = TRACE_WORD(i);
	rfreed0 = dmesg_count(REPLAY_FREED);

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
	r = try_mmap(fd, 4096, trace.offset, MAP_SHARED);
	check("unplug.mmap_trace_enodev", r == -ENODEV,
	      "mmap of the trace buffer after removal: %d", r);
	r = try_mmap(fd, 4096, replay.offset, MAP_SHARED);
	check("unplug.mmap_replay_enodev", r == -ENODEV,
	      "mmap of the replay buffer after removal: %d", r);

	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	sig = sigsetjmp(segv_jump, 1);
	if (!sig)
		sink = map[0];
	check("unplug.regs_sigbus", sig == SIGBUS, "touching the register mapping: signal %d", sig);
	/* The trace buffer is detached, not gone: the mapping reads what was there. */
	sig = sigsetjmp(segv_jump, 1);
	if (!sig)
		bad = trace_pattern_bad(tmap, trace.length);
	check("unplug.trace_readable", sig == 0 && bad == 0,
	      "reading the trace mapping after removal: signal %d, %zu words differ", sig, bad);
	sig = sigsetjmp(segv_jump, 1);
	if (!sig) {
		tmap[1] = 0xD7ACE0FFu;
		bad = tmap[1] != 0xD7ACE0FFu;
		tmap[1] = TRACE_WORD(1);
	}
	check("unplug.trace_writable", sig == 0 && bad == 0,
	      "writing the trace mapping after removal: signal %d", sig);
	/* So is the replay buffer. */
	bad = 1;
	sig = sigsetjmp(segv_jump, 1);
	if (!sig && rmap) {
		bad = trace_pattern_bad(rmap, replay.length);
		rmap[1] = 0xD7ACE0FFu;
		bad += rmap[1] != 0xD7ACE0FFu;
	}
	check("unplug.replay_usable", sig == 0 && bad == 0,
	      "the replay mapping after removal: signal %d, %zu words differ", sig, bad);
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	(void)sink;
	munmap((void *)map, regs.length);
	munmap((void *)tmap, trace.length);
	r = dmesg_count(REPLAY_FREED);
	check("unplug.replay_kept_while_mapped", r >= 0 && r == rfreed0,
	      "the replay buffer was freed while still mapped (%d -> %d)", rfreed0, r);
	if (rmap)
		munmap((void *)rmap, replay.length);
	r = close(fd);
	check("unplug.close", r == 0, "close: %s", strerror(errno));
	r = dmesg_count(REPLAY_FREED);
	check("unplug.replay_freed", r == rfreed0 + 1,
	      "'%s' in the kernel log %d times, expected %d", REPLAY_FREED, r, rfreed0 + 1);
	r = access(path, F_OK);
	check("unplug.node_gone", r < 0, "%s still exists after removal", path);
	r = dmesg_count(TRACE_FREED);
	check("unplug.trace_kept_for_child", r >= 0 && r == freed0,
	      "the trace buffer was freed while a child still maps it (%d -> %d)", freed0, r);

	/* The child, the last holder, reads and writes it, then exits: the buffer is freed. */
	if (write(go[1], "g", 1) != 1 || waitpid(child, &status, 0) != child)
		status = -1;
	close(go[1]);
	check("unplug.trace_child_readable", WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child holding the mapping: status 0x%x", status);
	r = dmesg_count(TRACE_FREED);
	check("unplug.trace_freed", r == freed0 + 1, "'%s' in the kernel log %d times, expected %d",
	      TRACE_FREED, r, freed0 + 1);

	r = rebind(path, bdf);
	check("unplug.rebind", r == 0, "bind %s: %d", bdf, r);
	fd = open(path, O_RDWR);
	v.size = sizeof(v);
	r = fd < 0 ? -errno : xioctl(fd, SB_IOC_API_VERSION, &v);
	check("unplug.reopen", r == 0 && v.version == SB_UAPI_VERSION, "open/ioctl after bind: %d",
	      r);
	if (fd >= 0)
		close(fd);
	return 0;
}

/* What a file opened read-only may do: read, map without PROT_WRITE, events; never write. */
static int phase_rdonly(const char *path)
{
	uint32_t scratch = block_of(path, SB_BLK_BOARD_TYPE) + SB_BOARD_SCRATCH;
	uint32_t mask3 = block_of(path, SB_BLK_GUPS_PORT_TYPE) + 3 * 0x100 + SB_GUPS_PORT_ADDR_MASK;
	uint32_t replay = block_of(path, SB_BLK_REPLAY_TYPE);
	struct sb_region_info regs, tr, rp;
	struct sb_trace_dma td;
	struct sb_replay_dma rd;
	uint64_t v = 0, before = 0, after = 0;
	int ro = open(path, O_RDONLY), rw = open(path, O_RDWR), r, r2;
	volatile uint32_t *p;

	check("rdonly.open", ro >= 0 && rw >= 0, "open '%s': %s", path, strerror(errno));
	if (ro < 0 || rw < 0)
		return 1;
	r = reg_io(ro, SB_REG_READ32, SB_FW_ID_MAGIC, &v);
	check("rdonly.read32", r == 0 && v == SB_REGMAP_MAGIC, "read of the magic: %d, 0x%llx", r,
	      (unsigned long long)v);
	reg_io(rw, SB_REG_READ32, scratch, &before);
	v = 0xBAD0BAD0u;
	r = reg_io(ro, SB_REG_WRITE32, scratch, &v);
	check("rdonly.write32_refused", r == -EBADF, "32-bit write on a read-only file: %d", r);
	v = 0x3FFFFFFC0ull;
	r = reg_io(ro, SB_REG_WRITE64, mask3, &v);
	check("rdonly.write64_refused", r == -EBADF, "64-bit write on a read-only file: %d", r);
	reg_io(rw, SB_REG_READ32, scratch, &after);
	check("rdonly.scratch_unchanged", after == before,
	      "board.scratch 0x%llx before, 0x%llx after", (unsigned long long)before,
	      (unsigned long long)after);
	r = region(ro, SB_REGION_REGS, &regs);
	check("rdonly.region_flags",
	      r == 0 && (regs.flags & SB_REGION_F_MMAP) &&
	          !(regs.flags & (SB_REGION_F_WRITE | SB_REGION_F_MMAP_WRITE)),
	      "register region flags 0x%x (%d)", regs.flags, r);
	/* MAP_SHARED of a read-only file: the kernel clears VM_SHARED, keeps VM_MAYSHARE. */
	p = mmap(NULL, regs.length, PROT_READ, MAP_SHARED, ro, (off_t)regs.offset);
	check("rdonly.mmap_read", p != MAP_FAILED && p[SB_FW_ID_MAGIC / 4] == SB_REGMAP_MAGIC,
	      "read-only MAP_SHARED mapping of the registers: %s",
	      p == MAP_FAILED ? strerror(errno) : "wrong magic");
	if (p != MAP_FAILED) {
		r = mprotect((void *)p, regs.length, PROT_READ | PROT_WRITE) < 0 ? -errno : 0;
		check("rdonly.mprotect_write_refused", r == -EACCES, "mprotect to PROT_WRITE: %d",
		      r);
		munmap((void *)p, regs.length);
	}
	r = try_mmap(ro, regs.length, regs.offset, MAP_SHARED);
	check("rdonly.mmap_write_refused", r == -EACCES, "writable mapping: %d", r);
	region(ro, SB_REGION_TRACE, &tr);
	p = mmap(NULL, tr.length, PROT_READ, MAP_SHARED, ro, (off_t)tr.offset);
	check("rdonly.mmap_trace_read", p != MAP_FAILED,
	      "read-only mapping of the trace buffer: %s", strerror(errno));
	if (p != MAP_FAILED)
		munmap((void *)p, tr.length);
	r = trace_dma(ro, SB_TRACE_DMA_SETUP, 0, 0, &td);
	check("rdonly.trace_setup_refused", r == -EBADF, "SB_TRACE_DMA_SETUP: %d", r);
	r = trace_dma(ro, SB_TRACE_DMA_STATUS, 0, 0, &td);
	check("rdonly.trace_status", r == 0 && td.record_size == SB_TRACE_RECORD_BYTES,
	      "SB_TRACE_DMA_STATUS: %d, record size %u", r, td.record_size);
	region(ro, SB_REGION_REPLAY, &rp);
	p = mmap(NULL, rp.length, PROT_READ, MAP_SHARED, ro, (off_t)rp.offset);
	r = try_mmap(ro, rp.length, rp.offset, MAP_SHARED);
	check("rdonly.mmap_replay",
	      p != MAP_FAILED && r == -EACCES && rp.flags == (SB_REGION_F_READ | SB_REGION_F_MMAP),
	      "replay buffer: read-only mapping %s, writable mapping %d, flags 0x%x",
	      p == MAP_FAILED ? strerror(errno) : "ok", r, rp.flags);
	if (p != MAP_FAILED)
		munmap((void *)p, rp.length);
	reg_io(rw, SB_REG_READ32, replay + SB_REPLAY_TAIL, &before);
	r = replay_dma(ro, SB_REPLAY_DMA_SETUP, 0, 4, 0, &rd);
	r2 = replay_dma(ro, SB_REPLAY_DMA_SUBMIT, 0, 0, (uint32_t)before + 7, &rd);
	reg_io(rw, SB_REG_READ32, replay + SB_REPLAY_TAIL, &after);
	check("rdonly.replay_refused", r == -EBADF && r2 == -EBADF && after == before,
	      "SB_REPLAY_DMA_SETUP %d, SUBMIT %d; replay.tail %llu before, %llu after", r, r2,
	      (unsigned long long)before, (unsigned long long)after);
	r = replay_dma(ro, SB_REPLAY_DMA_STATUS, 0, 0, 0, &rd);
	check("rdonly.replay_status", r == 0 && rd.desc_size == SB_REPLAY_DESC_BYTES,
	      "SB_REPLAY_DMA_STATUS: %d, descriptor size %u", r, rd.desc_size);
	close(ro);
	close(rw);
	return 0;
}

/* Drop CAP_SYS_RAWIO from this process's effective set (root stays root otherwise). */
static int drop_rawio(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	d[CAP_TO_INDEX(CAP_SYS_RAWIO)].effective &= ~CAP_TO_MASK(CAP_SYS_RAWIO);
	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

/* In a child without CAP_SYS_RAWIO: the register region maps read-only only. */
static void rawio_child(const char *path, uint32_t scratch)
{
	struct sb_region_info regs, tr;
	volatile uint32_t *p;
	uint64_t v = DEV_SCRATCH;
	int fd, r;

	r = drop_rawio();
	check("dma.drop_rawio", r == 0, "capset: %d", r);
	fd = open(path, O_RDWR);
	if (fd < 0)
		_exit(100);
	r = region(fd, SB_REGION_REGS, &regs);
	check("dma.norawio_region_flags",
	      r == 0 && (regs.flags & SB_REGION_F_WRITE) && !(regs.flags & SB_REGION_F_MMAP_WRITE),
	      "register region flags without CAP_SYS_RAWIO: 0x%x (%d)", regs.flags, r);
	r = try_mmap(fd, regs.length, regs.offset, MAP_SHARED);
	check("dma.norawio_mmap_write_refused", r == -EPERM,
	      "writable register mapping without CAP_SYS_RAWIO: %d", r);
	p = mmap(NULL, regs.length, PROT_READ, MAP_SHARED, fd, (off_t)regs.offset);
	check("dma.norawio_mmap_read", p != MAP_FAILED && p[SB_FW_ID_MAGIC / 4] == SB_REGMAP_MAGIC,
	      "read-only register mapping without CAP_SYS_RAWIO: %s", strerror(errno));
	if (p != MAP_FAILED) {
		r = mprotect((void *)p, regs.length, PROT_READ | PROT_WRITE) < 0 ? -errno : 0;
		check("dma.norawio_mprotect_refused", r == -EACCES, "mprotect to PROT_WRITE: %d",
		      r);
		munmap((void *)p, regs.length);
	}
	r = reg_io(fd, SB_REG_WRITE32, scratch, &v);
	check("dma.norawio_ioctl_write", r == 0, "register write by ioctl: %d", r);
	region(fd, SB_REGION_TRACE, &tr);
	r = try_mmap(fd, tr.length, tr.offset, MAP_SHARED);
	check("dma.norawio_trace_mmap", r == 0, "writable trace-buffer mapping: %d", r);
	region(fd, SB_REGION_REPLAY, &tr);
	r = try_mmap(fd, tr.length, tr.offset, MAP_SHARED);
	check("dma.norawio_replay_mmap", r == 0 && tr.length,
	      "writable replay-buffer mapping (%llu bytes): %d", (unsigned long long)tr.length, r);
	close(fd);
	_exit((int)failures);
}

/*
 * The replay block's ring registers are the driver's: every register write that touches
 * replay.ring_addr or replay.ring_log2 is refused (whatever the value, also the driver's own
 * address) and leaves them as the driver programmed them; the block's other registers are
 * written as usual.
 */
static void replay_regs_refused(int fd, uint32_t replay)
{
	struct sb_region_info ri;
	uint64_t v, addr0, log20, addr, log2;
	int r, r2, r3, r4;

	region(fd, SB_REGION_REPLAY, &ri);
	replay_ring_regs(fd, replay, &addr0, &log20);
	v = 0x12345000ull;
	r = reg_io(fd, SB_REG_WRITE64, replay + SB_REPLAY_RING_ADDR, &v);
	replay_ring_regs(fd, replay, &addr, &log2);
	check("dma.ring_addr_user_refused",
	      r == -EPERM && addr == addr0 && addr >= ri.bus_addr && addr < ri.bus_addr + ri.length,
	      "writing replay.ring_addr = 0x12345000: %d; it holds 0x%llx (buffer at 0x%llx)", r,
	      (unsigned long long)addr, (unsigned long long)ri.bus_addr);
	v = 1;
	r = reg_io(fd, SB_REG_WRITE32, replay + SB_REPLAY_RING_ADDR_LO, &v);
	r2 = reg_io(fd, SB_REG_WRITE32, replay + SB_REPLAY_RING_ADDR_HI, &v);
	v = 24;
	r3 = reg_io(fd, SB_REG_WRITE32, replay + SB_REPLAY_RING_LOG2, &v);
	/* 64-bit writes that straddle a ring register and its neighbour */
	v = 0;
	r4 = reg_io(fd, SB_REG_WRITE64, replay + SB_REPLAY_RING_ADDR_HI, &v) == -EPERM &&
	     reg_io(fd, SB_REG_WRITE64, replay + SB_REPLAY_PORT_MASK, &v) == -EPERM &&
	     reg_io(fd, SB_REG_WRITE64, replay + SB_REPLAY_RING_LOG2, &v) == -EPERM;
	replay_ring_regs(fd, replay, &addr, &log2);
	check("dma.ring_halves_refused",
	      r == -EPERM && r2 == -EPERM && r3 == -EPERM && r4 && addr == addr0 && log2 == log20,
	      "ring_addr_lo %d, ring_addr_hi %d, ring_log2 %d, straddling %s; ring_addr 0x%llx "
	      "ring_log2 %llu (were 0x%llx %llu)",
	      r, r2, r3, r4 ? "refused" : "not all refused", (unsigned long long)addr,
	      (unsigned long long)log2, (unsigned long long)addr0, (unsigned long long)log20);
	v = ri.bus_addr;
	r = reg_io(fd, SB_REG_WRITE64, replay + SB_REPLAY_RING_ADDR, &v);
	check("dma.ring_own_addr_refused", r == -EPERM,
	      "writing the driver's own address by register: %d (SB_IOC_REPLAY_DMA does that)", r);
	v = 0x3;
	r = reg_io(fd, SB_REG_WRITE32, replay + SB_REPLAY_PORT_MASK, &v);
	v = 0;
	r2 = reg_io(fd, SB_REG_WRITE32, replay + SB_REPLAY_TAIL, &v);
	v = 0x1FF;
	r3 = reg_io(fd, SB_REG_WRITE32, replay + SB_REPLAY_PORT_MASK, &v);
	check("dma.replay_other_regs", r == 0 && r2 == 0 && r3 == 0,
	      "writing replay.port_mask %d, replay.tail %d, port_mask back %d", r, r2, r3);
}

/*
 * The registers holding DMA addresses are the driver's: register writes to them are refused,
 * SB_IOC_TRACE_DMA points them at the driver's own buffer only. A writable mapping of the
 * registers (which would bypass that) needs CAP_SYS_RAWIO.
 */
static int phase_dmaregs(const char *path)
{
	uint32_t trace = block_of(path, SB_BLK_TRACE_TYPE);
	uint32_t scratch = block_of(path, SB_BLK_BOARD_TYPE) + SB_BOARD_SCRATCH;
	struct sb_region_info ri;
	struct sb_trace_dma td;
	uint64_t v, addr = 0, size = 0, wr = 0;
	int fd = open(path, O_RDWR), r, r2, r3, status = -1;
	pid_t child;

	if (fd < 0 || trace == UINT32_MAX) {
		check("dma.open", 0, "open '%s': %s (trace block 0x%x)", path, strerror(errno),
		      trace);
		return 1;
	}
	region(fd, SB_REGION_TRACE, &ri);
	v = 0x12345000ull;
	r = reg_io(fd, SB_REG_WRITE64, trace + SB_TRACE_BUF_ADDR, &v);
	reg_io(fd, SB_REG_READ64, trace + SB_TRACE_BUF_ADDR, &addr);
	check("dma.buf_addr_user_refused", r == -EPERM && addr == ri.bus_addr,
	      "writing trace.buf_addr = 0x12345000: %d; it holds 0x%llx (buffer at 0x%llx)", r,
	      (unsigned long long)addr, (unsigned long long)ri.bus_addr);
	v = 1;
	r = reg_io(fd, SB_REG_WRITE32, trace + SB_TRACE_BUF_ADDR_HI, &v);
	v = ri.length * 2;
	r2 = reg_io(fd, SB_REG_WRITE32, trace + SB_TRACE_BUF_SIZE, &v);
	v = 0;
	r3 = reg_io(fd, SB_REG_WRITE64, trace + SB_TRACE_BUF_ADDR_HI, &v);
	reg_io(fd, SB_REG_READ32, trace + SB_TRACE_BUF_SIZE, &size);
	check("dma.halves_refused",
	      r == -EPERM && r2 == -EPERM && r3 == -EPERM && size == ri.length,
	      "buf_addr_hi %d, buf_size %d, buf_addr_hi+buf_size %d; buf_size holds 0x%llx", r, r2,
	      r3, (unsigned long long)size);
	v = ri.bus_addr;
	r = reg_io(fd, SB_REG_WRITE64, trace + SB_TRACE_BUF_ADDR, &v);
	check("dma.own_addr_by_register_refused", r == -EPERM,
	      "writing the driver's own address by register: %d (SB_IOC_TRACE_DMA does that)", r);
	v = 64;
	r = reg_io(fd, SB_REG_WRITE32, trace + SB_TRACE_BURST_LEN, &v);
	check("dma.other_trace_regs", r == 0, "writing trace.burst_len: %d", r);

	r = trace_dma(fd, SB_TRACE_DMA_SETUP, 4096, 8192, &td);
	reg_io(fd, SB_REG_READ64, trace + SB_TRACE_BUF_ADDR, &addr);
	reg_io(fd, SB_REG_READ32, trace + SB_TRACE_BUF_SIZE, &size);
	check("dma.setup_ring",
	      r == 0 && td.ring_offset == 4096 && td.ring_size == 8192 &&
	          addr == ri.bus_addr + 4096 && size == 8192,
	      "SETUP 4096+8192: %d (ring %u+%u), buf_addr 0x%llx buf_size 0x%llx (buffer 0x%llx)",
	      r, td.ring_offset, td.ring_size, (unsigned long long)addr, (unsigned long long)size,
	      (unsigned long long)ri.bus_addr);
	r = trace_dma(fd, SB_TRACE_DMA_SETUP, (uint32_t)ri.length - 4096, 8192, &td);
	r2 = trace_dma(fd, SB_TRACE_DMA_SETUP, 8, 64, &td);
	r3 = trace_dma(fd, SB_TRACE_DMA_SETUP, 0, (uint32_t)ri.length + 32, &td);
	check("dma.setup_outside_refused", r == -EINVAL && r2 == -EINVAL && r3 == -EINVAL,
	      "past the end %d, misaligned %d, too long %d", r, r2, r3);
	r = trace_dma(fd, 7, 0, 0, &td);
	check("dma.bad_op", r == -EINVAL, "operation 7: %d", r);
	r = trace_dma(fd, SB_TRACE_DMA_SETUP, 0, 0, &td);
	reg_io(fd, SB_REG_READ64, trace + SB_TRACE_BUF_ADDR, &addr);
	reg_io(fd, SB_REG_READ32, trace + SB_TRACE_BUF_SIZE, &size);
	check("dma.setup_whole",
	      r == 0 && td.ring_offset == 0 && td.ring_size == ri.length && addr == ri.bus_addr &&
	          size == ri.length,
	      "SETUP of the whole buffer: %d (ring %u+%u), buf_addr 0x%llx buf_size 0x%llx", r,
	      td.ring_offset, td.ring_size, (unsigned long long)addr, (unsigned long long)size);
	r = trace_dma(fd, SB_TRACE_DMA_STATUS, 0, 0, &td);
	reg_io(fd, SB_REG_READ32, trace + SB_TRACE_WR_PTR, &wr);
	replay_regs_refused(fd, block_of(path, SB_BLK_REPLAY_TYPE));
	check(
	    "dma.status",
	    r == 0 && td.record_size == SB_TRACE_RECORD_BYTES && td.wr_ptr == wr &&
	        td.ring_size == ri.length && td.records == 0 && td.dropped == 0,
	    "STATUS: %d, record size %u, wr_ptr %u (register %llu), ring %u, records %llu dropped "
	    "%llu",
	    r, td.record_size, td.wr_ptr, (unsigned long long)wr, td.ring_size,
	    (unsigned long long)td.records, (unsigned long long)td.dropped);
	close(fd);

	fflush(stdout);
	child = fork();
	if (child == 0)
		rawio_child(path, scratch);
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status))
		check("dma.norawio_child", 0, "the child without CAP_SYS_RAWIO: status 0x%x",
		      status);
	else
		failures += (unsigned)WEXITSTATUS(status);
	return 0;
}

/* Interrupts of the device named name in /proc/interrupts (-1: no such line). */
static long irq_count(const char *name)
{
	char line[512];
	long total = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':'), *end;
		size_t n = strlen(line);

		while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
			line[--n] = 0;
		if (!p || n < strlen(name) || strcmp(line + n - strlen(name), name))
			continue;
		total = 0;
		for (p++;; p = end) {
			long c = strtol(p, &end, 10);

			if (end == p)
				break;
			total += c;
		}
	}
	fclose(f);
	return total;
}

/* Events by MSI-X (the ivshmem-doorbell device, whose vector the bridge raises). */
static int phase_msi(const char *path, const char *bdf)
{
	struct sb_device_info di = {.size = sizeof(di)};
	long before, after;
	int fd = open(path, O_RDWR | O_NONBLOCK), fd2, r;

	if (fd < 0) {
		check("msi.open", 0, "open '%s': %s", path, strerror(errno));
		return 1;
	}
	r = xioctl(fd, SB_IOC_DEVICE_INFO, &di);
	check("msi.device_info", r == 0 && (di.flags & SB_DEVICE_F_MSI) && di.irq_vectors == 1,
	      "%d: flags 0x%x, %u vectors", r, di.flags, di.irq_vectors);
	before = irq_count(strrchr(path, '/') + 1);
	thermal_event("msi", path, fd);
	after = irq_count(strrchr(path, '/') + 1);
	check("msi.interrupt_counted", before >= 0 && after > before,
	      "/proc/interrupts: %ld before the event, %ld after", before, after);
	/* A file closed after removal gives back what it took (nothing, with MSI). */
	fd2 = open(path, O_RDONLY);
	r = sysfs_write("/sys/bus/pci/drivers/stackbench/unbind", bdf);
	check("msi.unbind", r == 0 && fd2 >= 0, "unbind %s: %d", bdf, r);
	r = close(fd2) < 0 ? -errno : 0;
	r = r ? r : (close(fd) < 0 ? -errno : 0);
	check("msi.close_after_remove", r == 0, "close after removal: %d", r);
	r = rebind(path, bdf);
	fd = r ? -1 : open(path, O_RDWR);
	di.size = sizeof(di);
	r = fd < 0 ? -errno : xioctl(fd, SB_IOC_DEVICE_INFO, &di);
	check("msi.rebind", r == 0 && (di.flags & SB_DEVICE_F_MSI), "bind again: %d, flags 0x%x", r,
	      di.flags);
	if (fd >= 0)
		close(fd);
	return 0;
}

/* Polled events (msi=0): files closed after removal, then events after binding again. */
static int phase_pollers(const char *path, const char *bdf)
{
	struct sb_device_info di = {.size = sizeof(di)};
	int fd1 = open(path, O_RDWR), fd2 = open(path, O_RDONLY | O_NONBLOCK), r;

	if (fd1 < 0 || fd2 < 0) {
		check("pollers.open", 0, "open '%s': %s", path, strerror(errno));
		return 1;
	}
	r = xioctl(fd1, SB_IOC_DEVICE_INFO, &di);
	check("pollers.polling",
	      r == 0 && !(di.flags & SB_DEVICE_F_MSI) && di.irq_vectors == 0 && di.poll_interval_ms,
	      "%d: flags 0x%x, %u vectors, poll every %u ms", r, di.flags, di.irq_vectors,
	      di.poll_interval_ms);
	r = sysfs_write("/sys/bus/pci/drivers/stackbench/unbind", bdf);
	check("pollers.unbind", r == 0, "unbind %s: %d", bdf, r);
	r = close(fd1) < 0 ? -errno : 0;
	r = r ? r : (close(fd2) < 0 ? -errno : 0);
	check("pollers.close_after_remove", r == 0, "close after removal: %d", r);
	r = rebind(path, bdf);
	check("pollers.rebind", r == 0, "bind again: %d", r);
	fd1 = open(path, O_RDONLY | O_NONBLOCK);
	if (fd1 < 0)
		return 1;
	thermal_event("pollers", path, fd1);
	close(fd1);
	return 0;
}

/*
 * Deadlock checks. A thread's ioctl argument lies on a userfaultfd page, so copying it blocks
 * until this program resolves the fault; meanwhile an unbind (and in scenario A an mmap of the
 * device, which holds mmap_lock for writing) is started. A driver that copies the argument
 * while holding its state lock then deadlocks: the unbind waits for the lock, the mmap (A) or
 * the fault handler of the device's own register mapping (B, the argument's tail lies there)
 * waits behind the unbind, and the ioctl waits for the mmap or for the fault handler.
 */
struct dl_job {
	int fd;
	void *arg;
	const char *bdf;
	int uffd;
	void *page, *src;
	size_t map_len;
	uint64_t map_off;
	long ret;
	int go, done;
};

/*
 * The threads exist before anything blocks (creating one maps its stack, which would wait for
 * a blocked mmap_lock) and wait for their go.
 */
static void dl_go(struct dl_job *j)
{
	__atomic_store_n(&j->go, 1, __ATOMIC_RELEASE);
}

static void dl_wait_go(struct dl_job *j)
{
	while (!__atomic_load_n(&j->go, __ATOMIC_ACQUIRE))
		usleep(1000);
}

static void dl_done(struct dl_job *j, long ret)
{
	j->ret = ret;
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
}

static void *dl_ioctl(void *p)
{
	struct dl_job *j = p;

	dl_wait_go(j);
	dl_done(j, xioctl(j->fd, SB_IOC_REG_ACCESS, j->arg));
	return NULL;
}

static void *dl_unbind(void *p)
{
	struct dl_job *j = p;

	dl_wait_go(j);
	dl_done(j, sysfs_write("/sys/bus/pci/drivers/stackbench/unbind", j->bdf));
	return NULL;
}

static void *dl_mmap(void *p)
{
	struct dl_job *j = p;
	void *m;

	dl_wait_go(j);
	m = mmap(NULL, j->map_len, PROT_READ, MAP_SHARED, j->fd, (off_t)j->map_off);

	if (m != MAP_FAILED)
		munmap(m, j->map_len);
	dl_done(j, m == MAP_FAILED ? -errno : 0);
	return NULL;
}

static void *dl_resolve(void *p)
{
	struct dl_job *j = p;
	struct uffdio_copy c = {.dst = (uintptr_t)j->page, .src = (uintptr_t)j->src, .len = 4096};

	dl_wait_go(j);
	dl_done(j, ioctl(j->uffd, UFFDIO_COPY, &c) < 0 ? -errno : 0);
	return NULL;
}

/* A userfaultfd watching one anonymous page. */
static int dl_uffd(void *page)
{
	struct uffdio_api api = {.api = UFFD_API};
	struct uffdio_register reg = {.range = {(uintptr_t)page, 4096},
	                              .mode = UFFDIO_REGISTER_MODE_MISSING};
	int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (uffd < 0)
		return -errno;
	if (ioctl(uffd, UFFDIO_API, &api) < 0 || ioctl(uffd, UFFDIO_REGISTER, &reg) < 0) {
		close(uffd);
		return -errno;
	}
	return uffd;
}

/* Wait for the ioctl's fault on the watched page (5 s). */
static int dl_fault_seen(int uffd)
{
	struct pollfd pfd = {.fd = uffd, .events = POLLIN};
	struct uffd_msg msg;

	if (poll(&pfd, 1, 5000) != 1 || read(uffd, &msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		return 0;
	return msg.event == UFFD_EVENT_PAGEFAULT;
}

/* What a scenario's child process shares with the parent that watches it. */
struct dl_shared {
	struct dl_job io, ub, mm, rs;
	int uffd, fault_seen;
};

/*
 * The scenario itself, in a child process: once its mmap_lock is stuck, every page fault of
 * the process blocks too (a stack page, a buffer), so the parent, another process, watches.
 */
static void dl_child(struct dl_shared *sh, const char *path, const char *bdf, int with_mmap)
{
	static unsigned char src[4096] __attribute__((aligned(4096)));
	struct sb_reg_io ra = {0};
	struct sb_region_info regs;
	pthread_t th[4];
	int fd = open(path, O_RDWR), n = 0;
	char *area;

	if (fd < 0 || region(fd, SB_REGION_REGS, &regs) < 0)
		_exit(2);
	/* Two pages: the watched one, then (B) the device's register mapping or (A) nothing. */
	area = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mmap(area, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (!with_mmap)
		mmap(area + 4096, 4096, PROT_READ, MAP_SHARED | MAP_FIXED, fd, (off_t)regs.offset);
	sh->uffd = dl_uffd(area);
	if (sh->uffd < 0)
		_exit(3);
	/* A: the whole argument on the watched page; B: its first 8 bytes, the rest registers. */
	ra.size = sizeof(ra);
	ra.op = SB_REG_READ32;
	ra.offset = SB_FW_ID_MAGIC;
	memcpy(src + (with_mmap ? 0 : 4096 - 8), &ra, with_mmap ? sizeof(ra) : 8);
	sh->io = (struct dl_job){.fd = fd, .arg = area + (with_mmap ? 0 : 4096 - 8)};
	sh->ub = (struct dl_job){.bdf = bdf};
	sh->mm = (struct dl_job){.fd = fd, .map_len = 4096, .map_off = regs.offset};
	sh->rs = (struct dl_job){.uffd = sh->uffd, .page = area, .src = src};
	if (!with_mmap)
		sh->mm.done = 1;
	pthread_create(&th[n++], NULL, dl_ioctl, &sh->io);
	pthread_create(&th[n++], NULL, dl_unbind, &sh->ub);
	pthread_create(&th[n++], NULL, dl_resolve, &sh->rs);
	if (with_mmap)
		pthread_create(&th[n++], NULL, dl_mmap, &sh->mm);
	dl_go(&sh->io);
	sh->fault_seen = dl_fault_seen(sh->uffd);
	/*
	 * The unbind finishes unless the ioctl holds the state lock while it faults; then it
	 * waits for the lock (and the 8 s pass).
	 */
	dl_go(&sh->ub);
	for (int t = 0; t < 800 && !__atomic_load_n(&sh->ub.done, __ATOMIC_ACQUIRE); t++)
		usleep(10000);
	if (with_mmap) {
		dl_go(&sh->mm);
		usleep(300000); /* ... and the mmap holds mmap_lock and waits behind the unbind */
	}
	dl_go(&sh->rs);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

/* Returns 1 when the child's threads are stuck (it can never finish). */
static int dl_scenario(const char *path, const char *bdf, int with_mmap)
{
	const char *sc = with_mmap ? "deadlock.a" : "deadlock.b";
	struct dl_shared *sh =
	    mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct dl_job *jobs[4];
	int left = 4, status = -1;
	char name[64];
	pid_t child;

	if (sh == MAP_FAILED)
		return 0;
	memset(sh, 0, sizeof(*sh));
	sh->uffd = -1;
	jobs[0] = &sh->io, jobs[1] = &sh->ub, jobs[2] = &sh->rs, jobs[3] = &sh->mm;
	fflush(stdout);
	child = fork();
	if (child == 0)
		dl_child(sh, path, bdf, with_mmap);
	/* Setup, up to 5 s for the fault, 8.3 s of waits, then 10 s for everything to finish. */
	for (int t = 0; t < 250 && left; t++) {
		usleep(100000);
		left = 0;
		for (int i = 0; i < 4; i++)
			left += !__atomic_load_n(&jobs[i]->done, __ATOMIC_ACQUIRE);
		if (waitpid(child, &status, WNOHANG) == child) {
			child = -1;
			break;
		}
	}
	snprintf(name, sizeof(name), "%s_setup", sc);
	check(name, sh->uffd >= 0 && sh->fault_seen,
	      "userfaultfd %d, the ioctl faulted on the watched page: %d (child status 0x%x)",
	      sh->uffd, sh->fault_seen, status);
	snprintf(name, sizeof(name), "%s_no_deadlock", sc);
	check(name, left == 0,
	      "threads still blocked after 25 s: ioctl %s, unbind %s, fault resolution %s, mmap %s",
	      sh->io.done ? "done" : "blocked", sh->ub.done ? "done" : "blocked",
	      sh->rs.done ? "done" : "blocked", sh->mm.done ? "done" : "blocked");
	if (left)
		return 1;
	if (child > 0)
		waitpid(child, &status, 0);
	snprintf(name, sizeof(name), "%s_results", sc);
	/*
	 * The mmap and the ioctl find the board removed (A); in B copying the argument's tail
	 * faults on the register mapping, which removal took away (SIGBUS, so EFAULT).
	 */
	check(name,
	      sh->ub.ret == 0 && sh->rs.ret == 0 && sh->io.ret == (with_mmap ? -ENODEV : -EFAULT) &&
	          (!with_mmap || sh->mm.ret == -ENODEV),
	      "unbind %ld, fault resolution %ld, ioctl %ld, mmap %ld", sh->ub.ret, sh->rs.ret,
	      sh->io.ret, sh->mm.ret);
	munmap(sh, sizeof(*sh));
	snprintf(name, sizeof(name), "%s_rebind", sc);
	check(name, rebind(path, bdf) == 0, "bind %s again", bdf);
	return 0;
}

/* Both scenarios, or the one $sbvm_deadlock names ("a" or "b", from the kernel command line). */
static int phase_deadlock(const char *path, const char *bdf)
{
	const char *which = getenv("sbvm_deadlock") ? getenv("sbvm_deadlock") : "ab";

	if ((strchr(which, 'a') && dl_scenario(path, bdf, 1)) ||
	    (strchr(which, 'b') && dl_scenario(path, bdf, 0))) {
		printf("DEADLOCK-STUCK\n");
		return 1;
	}
	printf("DEADLOCK-DONE\n");
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

/* The phases: one argument (a path or URI), or two (the device node and the BDF). */
static const struct {
	const char *name;
	int (*one)(const char *arg);
	int (*two)(const char *path, const char *bdf);
} phases[] = {
    {"pci", phase_pci, NULL},         {"dev", phase_dev, NULL},
    {"after", phase_after, NULL},     {"bad", phase_bad, NULL},
    {"trace", phase_trace, NULL},     {"replay", phase_replay, NULL},
    {"events", phase_events, NULL},   {"rdonly", phase_rdonly, NULL},
    {"dmaregs", phase_dmaregs, NULL}, {"latency", phase_latency, NULL},
    {"unplug", NULL, phase_unplug},   {"msi", NULL, phase_msi},
    {"pollers", NULL, phase_pollers}, {"deadlock", NULL, phase_deadlock},
};

int main(int argc, char **argv)
{
	for (size_t i = 0; argc >= 3 && i < sizeof(phases) / sizeof(phases[0]); i++) {
		if (strcmp(argv[1], phases[i].name))
			continue;
		if (phases[i].one && argc == 3)
			return (int)failures + phases[i].one(argv[2]);
		if (phases[i].two && argc == 4)
			return (int)failures + phases[i].two(argv[2], argv[3]);
	}
	fprintf(stderr,
	        "usage: sb_vmcheck pci|dev|after|bad|trace|replay|events|rdonly|dmaregs|latency "
	        "ARG\n"
	        "       sb_vmcheck unplug|msi|pollers|deadlock PATH BDF\n");
	return 100;
}
