/* SPDX-License-Identifier: MIT */
/*
 * PCI discovery: find the boards on this machine with libpci (sysfs), their ids, the driver
 * bound to them and their NUMA node, and which BAR holds the register space.
 *
 * Boards are the Micron/Pico AC-510 (vendor 0x19de) and, for the VM tests, QEMU's
 * ivshmem-plain device (1af4:1110) served by the stackbench bridge.
 */
#ifndef STACKBENCH_PCIDEV_H
#define STACKBENCH_PCIDEV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SB_PCI_VENDOR_PICO 0x19de
#define SB_PCI_VENDOR_QEMU 0x1af4 /* Red Hat / Qumranet (virtio, ivshmem) */
#define SB_PCI_DEVICE_IVSHMEM 0x1110

enum sb_pcidev_kind {
	SB_PCIDEV_OTHER = 0,   /* not a board */
	SB_PCIDEV_PICO = 1,    /* a Pico Computing module (the AC-510) */
	SB_PCIDEV_IVSHMEM = 2, /* QEMU ivshmem-plain: the simulated board in a VM */
};

struct sb_pcidev {
	char bdf[16]; /* "DDDD:BB:DD.F" */
	uint16_t domain;
	uint8_t bus, dev, fn;
	uint16_t vendor, device;
	uint16_t subsys_vendor, subsys_device;
	uint16_t class_code; /* base class << 8 | subclass */
	enum sb_pcidev_kind kind;
	int register_bar; /* BAR with the register space (boards), or -1 */
	char driver[64];  /* the bound driver, "" when none */
	int numa_node;    /* from sysfs, -1 when unknown */
};

/* Scan flags. */
#define SB_PCIDEV_ALL 1u /* every PCI function, not only boards */

/*
 * List the PCI functions (boards only unless SB_PCIDEV_ALL), sorted by BDF, into a malloc'ed
 * array (*list, *count; an empty list is not an error). Reads the sysfs tree under
 * sb_pcidev_sysfs_root(). Returns 0, SB_ERR_NOT_FOUND (no sysfs PCI tree), SB_ERR_IO (libpci
 * failed; the detail carries its message) or SB_ERR_NOMEM.
 */
int sb_pcidev_scan(struct sb_pcidev **list, size_t *count, unsigned flags);

/* Free a list from sb_pcidev_scan(); NULL is ignored. */
void sb_pcidev_free(struct sb_pcidev *list);

/* What a vendor/device pair is, and which BAR holds its registers (-1: not a board). */
enum sb_pcidev_kind sb_pcidev_kind(uint16_t vendor, uint16_t device);
int sb_pcidev_register_bar(uint16_t vendor, uint16_t device);
const char *sb_pcidev_kind_name(enum sb_pcidev_kind kind);

/*
 * The sysfs PCI tree (default $STACKBENCH_SYSFS_PCI, else "/sys/bus/pci"; its devices/ folder
 * lists the functions). Tests and tools point it at a copy (a recorded tree, or a made one
 * whose resource file is a plain file). Process-wide; set it before scanning or opening pci:
 * URIs.
 */
void sb_pcidev_set_sysfs_root(const char *dir);
const char *sb_pcidev_sysfs_root(void);

/*
 * Read the ids of one function from sysfs (bdf "DDDD:BB:DD.F"). Returns 0, SB_ERR_NOT_FOUND or
 * SB_ERR_IO.
 */
int sb_pcidev_read_ids(const char *bdf, uint16_t *vendor, uint16_t *device);

/* The driver bound to a function ("" when none) into buf. Returns 0 or SB_ERR_NOT_FOUND. */
int sb_pcidev_read_driver(const char *bdf, char *buf, size_t size);

/*
 * The character device the stackbench module made for a function ("/dev/stackbench0"), from
 * sysfs. Returns 0 or SB_ERR_NOT_FOUND (the module does not drive the function).
 */
int sb_pcidev_char_device(const char *bdf, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_PCIDEV_H */
