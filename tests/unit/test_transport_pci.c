/* SPDX-License-Identifier: MIT */
/*
 * The pci: transport over a fake sysfs tree in a temporary folder: a resourceN file that holds
 * the simulated board's register image stands in for the BAR (a file maps like a BAR does).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sb_regmap.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/pcidev.h"

static char root[64];

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

/* A function with the simulated board's registers in BAR bar. */
static void make_function(const char *bdf, const char *vendor, const char *device, int bar)
{
	char dir[256], path[300];
	struct sb_device *sim;
	uint32_t *img;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/devices/%s", root, bdf);
	cr_assert_eq(mkdir(dir, 0755), 0);
	put(dir, "vendor", vendor);
	put(dir, "device", device);
	put(dir, "enable", "0\n");
	cr_assert_eq(sb_device_open(&sim, "sim:"), 0, "%s", sb_error_detail());
	img = calloc(SB_REGMAP_SIZE / 4, 4);
	for (uint32_t off = 0; off < SB_REGMAP_SIZE; off += 4)
		cr_assert_eq(sb_device_read32(sim, off, &img[off / 4]), 0);
	sb_device_close(sim);
	snprintf(path, sizeof(path), "%s/resource%d", dir, bar);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(img, 4, SB_REGMAP_SIZE / 4, f), SB_REGMAP_SIZE / 4);
	fclose(f);
	free(img);
}

static void setup(void)
{
	char dir[128];

	snprintf(root, sizeof(root), "/tmp/sb-sysfs-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/devices", root);
	cr_assert_eq(mkdir(dir, 0755), 0);
	make_function("0000:00:04.0", "0x1af4\n", "0x1110\n", 2);
	make_function("0000:83:00.0", "0x19de\n", "0x0510\n", 0);
	sb_pcidev_set_sysfs_root(root);
}

static void teardown(void)
{
	char cmd[128];

	sb_pcidev_set_sysfs_root(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(transport_pci, .init = setup, .fini = teardown);

static uint32_t file_word(const char *bdf, int bar, uint32_t off)
{
	char path[256];
	uint32_t v = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/devices/%s/resource%d", root, bdf, bar);
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, &v, 4, off), 4);
	close(fd);
	return v;
}

Test(transport_pci, ivshmem_uses_bar2_and_walks_the_board)
{
	struct sb_device *dev;
	char path[256], buf[8] = "";
	uint32_t board;
	FILE *f;

	cr_assert_eq(sb_device_open(&dev, "pci:0000:00:04.0"), 0, "%s", sb_error_detail());
	cr_assert_str_eq(sb_device_transport(dev), "pci");
	cr_assert_eq(sb_device_port_count(dev), 9);
	cr_assert_eq(sb_device_regspace_size(dev), SB_REGMAP_SIZE);
	cr_assert_eq(sb_device_find_block(dev, SB_BLK_BOARD_TYPE, 0, &board), 0);
	cr_assert_eq(sb_device_write32(dev, board + SB_BOARD_SCRATCH, 0xC0DE1234u), 0);
	sb_device_close(dev);
	/* The store went to the mapped file: it is the BAR. */
	cr_assert_eq(file_word("0000:00:04.0", 2, board + SB_BOARD_SCRATCH), 0xC0DE1234u);
	snprintf(path, sizeof(path), "%s/devices/0000:00:04.0/enable", root);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	cr_assert_eq(buf[0], '1', "the transport enables the device first");
}

Test(transport_pci, pico_uses_bar0)
{
	struct sb_device *dev;

	char bdf[32];

	cr_assert_eq(sb_device_open(&dev, "pci:83:00.0"), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_device_port_count(dev), 9);
	/* The engine pins its workers near this function. */
	cr_assert_eq(sb_device_pci_address(dev, bdf, sizeof(bdf)), 0);
	cr_assert_str_eq(bdf, "0000:83:00.0");
	sb_device_close(dev);
	cr_assert_eq(sb_device_open(&dev, "sim:"), 0);
	cr_assert_eq(sb_device_pci_address(dev, bdf, sizeof(bdf)), SB_ERR_NOT_SUPPORTED);
	sb_device_close(dev);
}

Test(transport_pci, explicit_bar_and_errors_name_the_file)
{
	struct sb_device *dev;

	cr_assert_eq(sb_device_open(&dev, "pci:0000:00:04.0?bar=0"), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "0000:00:04.0/resource0"), "%s", sb_error_detail());
	cr_assert_eq(sb_device_open(&dev, "pci:0000:00:05.0"), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "no PCI function 0000:00:05.0"), "%s",
	          sb_error_detail());
	cr_assert_eq(sb_device_open(&dev, "pci:0000:00:04.0?bar=7"), SB_ERR_URI);
	cr_assert_eq(sb_device_open(&dev, "pci:0000:00:04.0?bat=2"), SB_ERR_URI);
	cr_assert(strstr(sb_error_detail(), "'bat'"), "%s", sb_error_detail());
}

Test(transport_pci, out_of_range_access_is_refused)
{
	struct sb_device *dev;
	uint32_t v;

	cr_assert_eq(sb_device_open(&dev, "pci:0000:00:04.0"), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_device_read32(dev, SB_REGMAP_SIZE, &v), SB_ERR_RANGE);
	cr_assert_eq(v, 0xFFFFFFFFu);
	cr_assert_eq(sb_device_write32(dev, 2, 0), SB_ERR_RANGE);
	sb_device_close(dev);
}
