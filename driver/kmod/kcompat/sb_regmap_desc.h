/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Kernel stand-in for fpga_gups/regmap/sb_regmap_desc.h. The generated sb_regmap.h includes
 * that header for the types of the register-map table; the module uses only the macros of
 * sb_regmap.h (offsets, masks), never the table, so all it needs is uint32_t, which
 * linux/types.h provides.
 */
#ifndef SB_REGMAP_DESC_H
#define SB_REGMAP_DESC_H

#include <linux/types.h>

#endif /* SB_REGMAP_DESC_H */
