/* SPDX-License-Identifier: MIT */
/*
 * The dev: transport's checks before it trusts a device node. (With the module, the VM test
 * exercises it: tests/vm.)
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stackbench/device.h"
#include "stackbench/error.h"

Test(transport_dev, missing_node_says_load_the_module)
{
	struct sb_device *dev;

	cr_assert_eq(sb_device_open(&dev, "dev:/nonexistent/stackbench0"), SB_ERR_NOT_FOUND);
	cr_assert(
	    strstr(sb_error_detail(),
	           "no device node '/nonexistent/stackbench0' (is the stackbench module loaded?)"),
	    "%s", sb_error_detail());
}

Test(transport_dev, other_files_are_not_stackbench_devices)
{
	struct sb_device *dev;
	char path[] = "/tmp/sb-devnode-XXXXXX";
	char uri[64];
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(uri, sizeof(uri), "dev:%s", path);
	cr_assert_eq(sb_device_open(&dev, uri), SB_ERR_NOT_SUPPORTED);
	cr_assert(strstr(sb_error_detail(), "is not a stackbench device"), "%s", sb_error_detail());
	unlink(path);
	cr_assert_eq(sb_device_open(&dev, "dev:/dev/null"), SB_ERR_NOT_SUPPORTED);
	cr_assert(strstr(sb_error_detail(), "'/dev/null' is not a stackbench device"), "%s",
	          sb_error_detail());
}

Test(transport_dev, options_are_checked)
{
	struct sb_device *dev;

	cr_assert_eq(sb_device_open(&dev, "dev:/dev/null?access=dma"), SB_ERR_URI);
	cr_assert(strstr(sb_error_detail(), "'dma' is not mmap or ioctl"), "%s", sb_error_detail());
	cr_assert_eq(sb_device_open(&dev, "dev:/dev/null?acess=mmap"), SB_ERR_URI);
	cr_assert(strstr(sb_error_detail(), "unknown dev: option 'acess'"), "%s",
	          sb_error_detail());
}
