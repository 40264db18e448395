/* SPDX-License-Identifier: MIT */
/*
 * The pci: transport: map a BAR of a PCI function through sysfs (resourceN), no kernel module
 * needed. Enables the device first (writes 1 to 'enable'). The BAR is the board's register BAR
 * (BAR0 on the AC-510, BAR2 on QEMU's ivshmem in the VM tests) unless ?bar=N says otherwise.
 * No DMA and no interrupts: those need the kernel module (dev:). While a driver holds the BAR
 * the kernel refuses the mapping (CONFIG_IO_STRICT_DEVMEM); use dev: then.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/pcidev.h"
#include "stackbench/transport.h"
#include "stackbench/util.h"

struct pci {
	volatile uint32_t *regs;
	size_t len;
	int fd;
	char bdf[16];
};

static int errno_to_sb(int e)
{
	if (e == ENOENT || e == ENODEV || e == ENXIO)
		return SB_ERR_NOT_FOUND;
	if (e == EACCES || e == EPERM)
		return SB_ERR_PERM;
	return SB_ERR_IO;
}

static int enable_device(const char *dir)
{
	char path[4300];
	int fd, e;

	snprintf(path, sizeof(path), "%s/enable", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		return sb_error_set(errno_to_sb(e), "cannot open '%s': %s", path, strerror(e));
	}
	if (write(fd, "1", 1) != 1) {
		e = errno;
		close(fd);
		if (e == EBUSY) {
			/* A driver owns the function and has enabled it already. */
			sb_dbg("'%s': device is bound to a driver (already enabled)", path);
			return 0;
		}
		return sb_error_set(errno_to_sb(e), "cannot enable the device through '%s': %s",
		                    path, strerror(e));
	}
	close(fd);
	return 0;
}

/* The register BAR's resource file of the function (path) and its number, from the URI. */
static int bar_path(const struct sb_uri *uri, char *path, size_t size)
{
	const char *bar_opt = sb_uri_opt(uri, "bar");
	uint16_t vendor, device;
	uint64_t bar = 0;
	int err;

	for (unsigned i = 0; i < uri->nopts; i++)
		if (strcmp(uri->opts[i].key, "bar"))
			return sb_error_set(SB_ERR_URI, "unknown pci: option '%s' (known: bar)",
			                    uri->opts[i].key);
	if (bar_opt && (err = sb_parse_u64(bar_opt, "pci: option 'bar'", false, &bar)) < 0)
		return err;
	if (bar > 5)
		return sb_error_set(SB_ERR_URI, "pci: option 'bar': %llu is not a BAR (0..5)",
		                    (unsigned long long)bar);
	if (!bar_opt && sb_pcidev_read_ids(uri->path, &vendor, &device) == 0 &&
	    sb_pcidev_register_bar(vendor, device) > 0)
		bar = (uint64_t)sb_pcidev_register_bar(vendor, device);
	snprintf(path, size, "%s/devices/%s/resource%llu", sb_pcidev_sysfs_root(), uri->path,
	         (unsigned long long)bar);
	return 0;
}

/* Enable the function and open its register BAR's resource file read-write (root's part). */
static int pci_handle_open(const struct sb_uri *uri)
{
	char dir[4200], path[4300];
	int fd, err, e;

	if ((err = bar_path(uri, path, sizeof(path))) < 0)
		return err;
	snprintf(dir, sizeof(dir), "%s/devices/%s", sb_pcidev_sysfs_root(), uri->path);
	if (access(dir, F_OK) < 0)
		return sb_error_set(SB_ERR_NOT_FOUND, "no PCI function %s (no '%s')", uri->path,
		                    dir);
	if ((err = enable_device(dir)) < 0)
		return err;
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		return sb_error_set(errno_to_sb(e), "cannot open '%s': %s", path, strerror(e));
	}
	return fd;
}

static int pci_open(const struct sb_uri *uri, void **priv)
{
	char path[4300], driver[64];
	struct stat st;
	struct pci *p;
	void *map;
	int err, e, fd;

	if ((err = bar_path(uri, path, sizeof(path))) < 0)
		return err;
	/* A handle given by the process that owns the board (stackbenchd), else our own. */
	if ((fd = sb_transport_given_fd(uri)) < 0 && (fd = pci_handle_open(uri)) < 0)
		return fd;
	p = calloc(1, sizeof(*p));
	if (!p) {
		close(fd);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	sb_strlcpy(p->bdf, uri->path, sizeof(p->bdf));
	p->fd = fd;
	if (fstat(p->fd, &st) < 0 || st.st_size < 16) {
		err = sb_error_set(SB_ERR_IO, "'%s' has no usable size (BAR not memory?)", path);
		goto fail_map;
	}
	p->len = (size_t)st.st_size;
	map = mmap(NULL, p->len, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	if (map == MAP_FAILED) {
		e = errno;
		if (sb_pcidev_read_driver(uri->path, driver, sizeof(driver)) == 0 && driver[0])
			err = sb_error_set(
			    errno_to_sb(e),
			    "cannot map '%s': %s; driver '%s' holds the device (use "
			    "dev:/dev/stackbenchN with the stackbench module, or unbind "
			    "the driver)",
			    path, strerror(e), driver);
		else
			err =
			    sb_error_set(errno_to_sb(e), "cannot map '%s': %s", path, strerror(e));
		goto fail_map;
	}
	p->regs = map;
	*priv = p;
	return 0;

fail_map:
	close(p->fd);
	free(p);
	return err;
}

static void pci_close(void *priv)
{
	struct pci *p = priv;

	munmap((void *)p->regs, p->len);
	close(p->fd);
	free(p);
}

static int pci_read32(void *priv, uint32_t offset, uint32_t *value)
{
	struct pci *p = priv;

	if (offset % 4 || offset >= p->len) {
		*value = 0xFFFFFFFFu;
		return sb_error_set(SB_ERR_RANGE,
		                    "register read at 0x%x outside the 0x%zx-byte BAR", offset,
		                    p->len);
	}
	*value = p->regs[offset / 4];
	return 0;
}

static int pci_write32(void *priv, uint32_t offset, uint32_t value)
{
	struct pci *p = priv;

	if (offset % 4 || offset >= p->len)
		return sb_error_set(SB_ERR_RANGE,
		                    "register write at 0x%x outside the 0x%zx-byte BAR", offset,
		                    p->len);
	p->regs[offset / 4] = value;
	return 0;
}

static uint32_t pci_regspace(void *priv)
{
	struct pci *p = priv;

	return p->len > UINT32_MAX ? UINT32_MAX : (uint32_t)p->len;
}

static uint64_t hw_now_ns(void *priv)
{
	(void)priv;
	return sb_monotonic_ns();
}

static int hw_wait_ns(void *priv, uint64_t ns)
{
	(void)priv;
	return sb_sleep_ns(ns);
}

static int pci_address(void *priv, char *bdf, size_t size)
{
	sb_strlcpy(bdf, ((struct pci *)priv)->bdf, size);
	return 0;
}

static int pci_describe(void *priv, char *buf, size_t size)
{
	const struct pci *p = priv;

	snprintf(buf, size, "BAR of %s mapped through sysfs (no kernel module), %zu bytes", p->bdf,
	         p->len);
	return 0;
}

const struct sb_transport_ops sb_transport_pci = {
    .name = "pci",
    .open = pci_open,
    .close = pci_close,
    .read32 = pci_read32,
    .write32 = pci_write32,
    .regspace_size = pci_regspace,
    .now_ns = hw_now_ns,
    .wait_ns = hw_wait_ns,
    .pci_address = pci_address,
    .describe = pci_describe,
    .handle_open = pci_handle_open,
};
