/* SPDX-License-Identifier: MIT */
/*
 * Every public header compiles in one translation unit (no clashing names between the parts
 * of the library), and the umbrella header gives a working library.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "stackbench/stackbench.h"

Test(headers, umbrella_header_covers_the_library)
{
	struct sb_device *dev;

	cr_assert_str_eq(sb_version(), SB_VERSION_STRING);
	cr_assert_str_eq(sb_strerror(SB_ERR_LOOP), "register block list loops");
	cr_assert_eq(sb_device_open(&dev, "sim:"), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_device_port_count(dev), 9);
	sb_device_close(dev);
}
