/* SPDX-License-Identifier: MIT */
/* PCI discovery with libpci over a recorded sysfs tree (tests/data/sysfs-pci). */
#include <criterion/criterion.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/pcidev.h"

#define SYSFS SB_TEST_DATA_DIR "/sysfs-pci"

static void use_fake_sysfs(void)
{
	sb_pcidev_set_sysfs_root(SYSFS);
}

static void restore_sysfs(void)
{
	sb_pcidev_set_sysfs_root(NULL);
}

TestSuite(pcidev, .init = use_fake_sysfs, .fini = restore_sysfs);

Test(pcidev, boards_only_sorted_with_driver_numa_and_bar)
{
	struct sb_pcidev *l;
	size_t n;

	cr_assert_eq(sb_pcidev_scan(&l, &n, 0), 0, "%s", sb_error_detail());
	cr_assert_eq(n, 3);
	cr_assert_str_eq(l[0].bdf, "0000:00:04.0");
	cr_assert_eq(l[0].vendor, 0x1af4);
	cr_assert_eq(l[0].device, 0x1110);
	cr_assert_eq(l[0].kind, SB_PCIDEV_IVSHMEM);
	cr_assert_eq(l[0].register_bar, 2);
	cr_assert_str_eq(l[0].driver, "");
	cr_assert_eq(l[0].numa_node, -1);
	cr_assert_str_eq(l[1].bdf, "0000:83:00.0");
	cr_assert_eq(l[1].kind, SB_PCIDEV_PICO);
	cr_assert_eq(l[1].device, 0x0510);
	cr_assert_eq(l[1].register_bar, 0);
	cr_assert_str_eq(l[1].driver, "stackbench");
	cr_assert_eq(l[1].numa_node, 1);
	cr_assert_eq(l[1].bus, 0x83);
	cr_assert_eq(l[1].subsys_vendor, 0x19de);
	cr_assert_eq(l[1].class_code, 0x0580);
	cr_assert_str_eq(l[2].bdf, "0000:84:00.0");
	cr_assert_str_eq(l[2].driver, "");
	sb_pcidev_free(l);
}

Test(pcidev, all_functions)
{
	struct sb_pcidev *l;
	size_t n;

	cr_assert_eq(sb_pcidev_scan(&l, &n, SB_PCIDEV_ALL), 0, "%s", sb_error_detail());
	cr_assert_eq(n, 5);
	cr_assert_str_eq(l[0].bdf, "0000:00:00.0");
	cr_assert_eq(l[0].kind, SB_PCIDEV_OTHER);
	cr_assert_eq(l[0].register_bar, -1);
	cr_assert_str_eq(l[2].bdf, "0000:17:00.0");
	cr_assert_str_eq(l[2].driver, "i40e");
	cr_assert_eq(l[2].class_code, 0x0200);
	cr_assert_eq(l[2].numa_node, 0);
	sb_pcidev_free(l);
}

Test(pcidev, char_device_of_a_bound_board)
{
	char node[64];

	cr_assert_eq(sb_pcidev_char_device("0000:83:00.0", node, sizeof(node)), 0);
	cr_assert_str_eq(node, "/dev/stackbench0");
	cr_assert_eq(sb_pcidev_char_device("0000:84:00.0", node, sizeof(node)), SB_ERR_NOT_FOUND);
}

Test(pcidev, ids_and_driver_from_sysfs)
{
	uint16_t v, d;
	char drv[64];

	cr_assert_eq(sb_pcidev_read_ids("0000:00:04.0", &v, &d), 0);
	cr_assert_eq(v, 0x1af4);
	cr_assert_eq(d, 0x1110);
	cr_assert_eq(sb_pcidev_read_driver("0000:83:00.0", drv, sizeof(drv)), 0);
	cr_assert_str_eq(drv, "stackbench");
	cr_assert_eq(sb_pcidev_read_driver("0000:84:00.0", drv, sizeof(drv)), 0);
	cr_assert_str_eq(drv, "");
	cr_assert_eq(sb_pcidev_read_ids("0000:99:00.0", &v, &d), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "0000:99:00.0/vendor"), "%s", sb_error_detail());
	cr_assert_eq(sb_pcidev_read_driver("0000:99:00.0", drv, sizeof(drv)), SB_ERR_NOT_FOUND);
}

Test(pcidev, kinds_and_register_bars)
{
	cr_assert_eq(sb_pcidev_kind(0x19de, 0x1234), SB_PCIDEV_PICO);
	cr_assert_eq(sb_pcidev_kind(0x1af4, 0x1110), SB_PCIDEV_IVSHMEM);
	cr_assert_eq(sb_pcidev_kind(0x1af4, 0x1041), SB_PCIDEV_OTHER);
	cr_assert_eq(sb_pcidev_register_bar(0x19de, 0x0510), 0);
	cr_assert_eq(sb_pcidev_register_bar(0x1af4, 0x1110), 2);
	cr_assert_eq(sb_pcidev_register_bar(0x8086, 0x1572), -1);
	cr_assert_str_eq(sb_pcidev_kind_name(SB_PCIDEV_IVSHMEM), "ivshmem");
}

Test(pcidev, missing_tree_is_not_found_and_named)
{
	struct sb_pcidev *l = (void *)1;
	size_t n = 7;

	sb_pcidev_set_sysfs_root("/nonexistent/sys/bus/pci");
	cr_assert_eq(sb_pcidev_scan(&l, &n, 0), SB_ERR_NOT_FOUND);
	cr_assert_null(l);
	cr_assert_eq(n, 0);
	cr_assert(strstr(sb_error_detail(), "'/nonexistent/sys/bus/pci/devices'"), "%s",
	          sb_error_detail());
}
