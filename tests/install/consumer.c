/* SPDX-License-Identifier: MIT */
/* A program built against an installed libstackbench through pkg-config. */
#include <stackbench/stackbench.h>
#include <stdio.h>

int main(void)
{
	struct sb_device *dev;

	if (sb_device_open(&dev, "sim:") < 0) {
		fprintf(stderr, "%s\n", sb_error_detail());
		return 1;
	}
	printf("stackbench %s: %u ports\n", sb_version(), sb_device_port_count(dev));
	sb_device_close(dev);
	return 0;
}
