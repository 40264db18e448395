/* SPDX-License-Identifier: MIT */
/*
 * The dev: transport: the stackbench kernel module's character device (/dev/stackbenchN).
 * Its ioctl interface (driver/ uapi header) is defined by the driver work; until then opening
 * a dev: URI reports SB_ERR_NOT_SUPPORTED.
 */
#include "stackbench/error.h"
#include "stackbench/transport.h"

static int dev_open(const struct sb_uri *uri, void **priv)
{
	(void)priv;
	return sb_error_set(
	    SB_ERR_NOT_SUPPORTED,
	    "the dev: transport ('%s') needs the stackbench kernel module interface, "
	    "which this build does not have yet; use pci: or sim:",
	    uri->path);
}

static void dev_close(void *priv)
{
	(void)priv;
}

static int dev_read32(void *priv, uint32_t offset, uint32_t *value)
{
	(void)priv;
	(void)offset;
	*value = 0xFFFFFFFFu;
	return SB_ERR_NOT_SUPPORTED;
}

static int dev_write32(void *priv, uint32_t offset, uint32_t value)
{
	(void)priv;
	(void)offset;
	(void)value;
	return SB_ERR_NOT_SUPPORTED;
}

static uint32_t dev_regspace(void *priv)
{
	(void)priv;
	return 0;
}

static uint64_t dev_now_ns(void *priv)
{
	(void)priv;
	return sb_monotonic_ns();
}

static int dev_wait_ns(void *priv, uint64_t ns)
{
	(void)priv;
	return sb_sleep_ns(ns);
}

const struct sb_transport_ops sb_transport_dev = {
    .name = "dev",
    .open = dev_open,
    .close = dev_close,
    .read32 = dev_read32,
    .write32 = dev_write32,
    .regspace_size = dev_regspace,
    .now_ns = dev_now_ns,
    .wait_ns = dev_wait_ns,
};
