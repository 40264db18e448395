/* SPDX-License-Identifier: MIT */
/*
 * PCI discovery with libpci (sysfs access method). libpci reports fatal errors through a
 * callback that must not return; the callback here records the message and jumps back to the
 * scan, so the library never exits the process.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pci/pci.h>

#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/pcidev.h"
#include "stackbench/util.h"

static char sysfs_root[PATH_MAX];

void sb_pcidev_set_sysfs_root(const char *dir)
{
	sb_strlcpy(sysfs_root, dir && *dir ? dir : "/sys/bus/pci", sizeof(sysfs_root));
}

const char *sb_pcidev_sysfs_root(void)
{
	/* Unless set: $STACKBENCH_SYSFS_PCI (a recorded or made tree, for tests), else sysfs. */
	if (!sysfs_root[0])
		sb_pcidev_set_sysfs_root(getenv("STACKBENCH_SYSFS_PCI"));
	return sysfs_root;
}

enum sb_pcidev_kind sb_pcidev_kind(uint16_t vendor, uint16_t device)
{
	if (vendor == SB_PCI_VENDOR_PICO)
		return SB_PCIDEV_PICO;
	if (vendor == SB_PCI_VENDOR_QEMU && device == SB_PCI_DEVICE_IVSHMEM)
		return SB_PCIDEV_IVSHMEM;
	return SB_PCIDEV_OTHER;
}

int sb_pcidev_register_bar(uint16_t vendor, uint16_t device)
{
	switch (sb_pcidev_kind(vendor, device)) {
	case SB_PCIDEV_PICO:
		return 0;
	case SB_PCIDEV_IVSHMEM:
		return 2; /* BAR0 holds ivshmem's own registers, BAR2 the shared memory */
	default:
		return -1;
	}
}

const char *sb_pcidev_kind_name(enum sb_pcidev_kind kind)
{
	switch (kind) {
	case SB_PCIDEV_PICO:
		return "pico";
	case SB_PCIDEV_IVSHMEM:
		return "ivshmem";
	default:
		return "other";
	}
}

/* Read a sysfs attribute of one function: "0x19de\n" and the like. */
static int read_attr(const char *bdf, const char *attr, char *buf, size_t size)
{
	char path[PATH_MAX + 64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/devices/%s/%s", sb_pcidev_sysfs_root(), bdf, attr);
	f = fopen(path, "re");
	if (!f)
		return sb_error_set(errno == ENOENT ? SB_ERR_NOT_FOUND : SB_ERR_IO,
		                    "cannot read '%s': %s", path, strerror(errno));
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

static int read_hex16(const char *bdf, const char *attr, uint16_t *out)
{
	char buf[32], *end;
	unsigned long v;
	int err;

	if ((err = read_attr(bdf, attr, buf, sizeof(buf))) < 0)
		return err;
	errno = 0;
	v = strtoul(buf, &end, 16);
	if (errno || end == buf || v > 0xFFFF || (*end && *end != '\n'))
		return sb_error_set(SB_ERR_IO, "PCI function %s: bad %s '%s'", bdf, attr, buf);
	*out = (uint16_t)v;
	return 0;
}

int sb_pcidev_read_ids(const char *bdf, uint16_t *vendor, uint16_t *device)
{
	int err = read_hex16(bdf, "vendor", vendor);

	return err < 0 ? err : read_hex16(bdf, "device", device);
}

int sb_pcidev_read_driver(const char *bdf, char *buf, size_t size)
{
	char path[PATH_MAX + 64], link[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/devices/%s", sb_pcidev_sysfs_root(), bdf);
	if (access(path, F_OK) < 0)
		return sb_error_set(SB_ERR_NOT_FOUND, "no PCI function %s (no '%s')", bdf, path);
	snprintf(path, sizeof(path), "%s/devices/%s/driver", sb_pcidev_sysfs_root(), bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		buf[0] = '\0';
		return 0;
	}
	link[n] = '\0';
	base = strrchr(link, '/');
	sb_strlcpy(buf, base ? base + 1 : link, size);
	return 0;
}

int sb_pcidev_char_device(const char *bdf, char *buf, size_t size)
{
	char path[PATH_MAX + 64];
	struct dirent *e;
	int err = SB_ERR_NOT_FOUND;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/devices/%s/stackbench", sb_pcidev_sysfs_root(), bdf);
	dir = opendir(path);
	if (!dir)
		return SB_ERR_NOT_FOUND;
	while ((e = readdir(dir)))
		if (!strncmp(e->d_name, "stackbench", 10)) {
			snprintf(buf, size, "/dev/%s", e->d_name);
			err = 0;
			break;
		}
	closedir(dir);
	return err;
}

/* libpci's callbacks. */
static _Thread_local jmp_buf *pci_jump;
static _Thread_local char pci_msg[256];

__attribute__((format(printf, 1, 2), noreturn)) static void pci_fatal(char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	vsnprintf(pci_msg, sizeof(pci_msg), msg, ap);
	va_end(ap);
	longjmp(*pci_jump, 1);
}

__attribute__((format(printf, 1, 2))) static void pci_note(char *msg, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, msg);
	vsnprintf(buf, sizeof(buf), msg, ap);
	va_end(ap);
	sb_dbg("libpci: %s", buf);
}

static int cmp_dev(const void *a, const void *b)
{
	const struct sb_pcidev *x = a, *y = b;

	return strcmp(x->bdf, y->bdf);
}

static void fill(struct sb_pcidev *p, struct pci_dev *d)
{
	const char *drv;

	memset(p, 0, sizeof(*p));
	p->domain = (uint16_t)d->domain;
	p->bus = d->bus;
	p->dev = d->dev;
	p->fn = d->func;
	snprintf(p->bdf, sizeof(p->bdf), "%04x:%02x:%02x.%x", p->domain, p->bus, p->dev, p->fn);
	p->vendor = d->vendor_id;
	p->device = d->device_id;
	p->subsys_vendor = d->subsys_vendor_id;
	p->subsys_device = d->subsys_id;
	p->class_code = d->device_class;
	p->kind = sb_pcidev_kind(p->vendor, p->device);
	p->register_bar = sb_pcidev_register_bar(p->vendor, p->device);
	p->numa_node = d->numa_node;
	drv = pci_get_string_property(d, PCI_FILL_DRIVER);
	sb_strlcpy(p->driver, drv ? drv : "", sizeof(p->driver));
}

int sb_pcidev_scan(struct sb_pcidev **list, size_t *count, unsigned flags)
{
	char devices[PATH_MAX + 16], param[PATH_MAX];
	struct sb_pcidev *volatile out = NULL;
	volatile size_t n = 0;
	struct pci_access *a;
	struct pci_dev *d;
	jmp_buf jb;
	volatile size_t total = 0;

	*list = NULL;
	*count = 0;
	snprintf(devices, sizeof(devices), "%s/devices", sb_pcidev_sysfs_root());
	if (access(devices, R_OK) < 0)
		return sb_error_set(SB_ERR_NOT_FOUND,
		                    "no PCI devices to scan: cannot read '%s': %s", devices,
		                    strerror(errno));
	a = pci_alloc();
	a->error = pci_fatal;
	a->warning = pci_note;
	a->debug = pci_note;
	a->method = PCI_ACCESS_SYS_BUS_PCI;
	sb_strlcpy(param, sb_pcidev_sysfs_root(), sizeof(param));
	pci_set_param(a, "sysfs.path", param);
	if (setjmp(jb)) {
		pci_jump = NULL;
		free(out);
		pci_cleanup(a);
		return sb_error_set(SB_ERR_IO, "scanning PCI devices in '%s': libpci: %s",
		                    sb_pcidev_sysfs_root(), pci_msg);
	}
	pci_jump = &jb;
	pci_init(a);
	pci_scan_bus(a);
	for (d = a->devices; d; d = d->next)
		total++;
	out = calloc(total ? total : 1, sizeof(*out));
	if (!out) {
		pci_jump = NULL;
		pci_cleanup(a);
		return sb_error_set(SB_ERR_NOMEM, "out of memory listing %zu PCI functions", total);
	}
	for (d = a->devices; d; d = d->next) {
		pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_SUBSYS |
		                     PCI_FILL_NUMA_NODE | PCI_FILL_DRIVER);
		if (!(flags & SB_PCIDEV_ALL) &&
		    sb_pcidev_kind(d->vendor_id, d->device_id) == SB_PCIDEV_OTHER)
			continue;
		fill(&out[n], d);
		n++;
	}
	pci_jump = NULL;
	pci_cleanup(a);
	qsort(out, n, sizeof(*out), cmp_dev);
	*list = out;
	*count = n;
	return 0;
}

void sb_pcidev_free(struct sb_pcidev *list)
{
	free(list);
}
