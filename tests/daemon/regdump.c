/* SPDX-License-Identifier: MIT */
/*
 * sb_regdump: the register space of a board, read once through the device API, written to a
 * file: with it as the resource0 of a made sysfs tree ($STACKBENCH_SYSFS_PCI), the pci:
 * transport maps a still image of a board. The daemon tests use it to own a pci: board (its
 * handle opened as root and handed to a job process) without hardware; nothing on it moves.
 *   sb_regdump URI FILE
 */
#include <stdint.h>
#include <stdio.h>

#include "stackbench/device.h"
#include "stackbench/error.h"

int main(int argc, char **argv)
{
	struct sb_device *dev;
	uint32_t size, v;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: sb_regdump URI FILE\n");
		return 2;
	}
	if (sb_device_open(&dev, argv[1]) < 0) {
		fprintf(stderr, "sb_regdump: %s\n", sb_error_detail());
		return 1;
	}
	size = sb_device_regspace_size(dev);
	if (!(f = fopen(argv[2], "wb"))) {
		perror(argv[2]);
		return 1;
	}
	for (uint32_t off = 0; off < size; off += 4) {
		if (sb_device_read32(dev, off, &v) < 0)
			v = 0;
		fwrite(&v, sizeof(v), 1, f);
	}
	sb_device_close(dev);
	return fclose(f) == 0 ? 0 : 1;
}
