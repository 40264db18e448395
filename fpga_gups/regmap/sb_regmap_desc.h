/* SPDX-License-Identifier: MIT */
/*
 * Types of the machine-readable register-map table that regmapgen emits
 * (fpga_gups/generated/sb_regmap_table.c). The model's register decoder, `stackbench info` and
 * the tests read the table; host code addresses registers through the macros of sb_regmap.h.
 */
#ifndef SB_REGMAP_DESC_H
#define SB_REGMAP_DESC_H

#include <stdbool.h>
#include <stdint.h>

enum sb_reg_access {
	SB_ACC_RO = 0,  /* driven by the hardware; writes ignored */
	SB_ACC_RW = 1,  /* read/write storage */
	SB_ACC_WO = 2,  /* write-only; reads return 0 */
	SB_ACC_W1C = 3, /* write 1 to clear */
};

struct sb_regmap_value {
	const char *name;
	uint32_t value;
};

struct sb_regmap_field {
	const char *name;
	uint8_t lo, hi; /* bit positions, inclusive */
	uint8_t access; /* enum sb_reg_access */
	bool pulse;     /* self-clearing command bit */
	uint32_t reset; /* unshifted */
	const struct sb_regmap_value *values;
	uint16_t nvalues;
	const char *description;
};

struct sb_regmap_reg {
	const char *name;
	uint32_t offset; /* within the block; element 0 for arrays */
	uint8_t width;   /* 32 or 64 */
	uint16_t count;  /* 1, or elements of an array */
	uint32_t stride; /* bytes between array elements */
	uint8_t access;  /* enum sb_reg_access of the register as a whole */
	uint64_t reset;
	/* Per 32-bit word (index 0 = low word): which bits the host may write as storage, which
	 * are self-clearing commands and which are write-1-to-clear. */
	uint32_t write_mask[2];
	uint32_t pulse_mask[2];
	uint32_t w1c_mask[2];
	const struct sb_regmap_field *fields;
	uint16_t nfields;
	const char *description;
};

struct sb_regmap_block {
	const char *name;
	uint32_t type;
	uint32_t version; /* major << 16 | minor */
	uint32_t size;    /* bytes */
	const struct sb_regmap_reg *regs;
	uint16_t nregs;
	bool sim_only; /* implemented by the simulated board only */
	const char *description;
};

/* Where instances of a block sit in the register space. */
struct sb_regmap_instance {
	uint16_t block; /* index into sb_regmap_blocks */
	uint32_t offset;
	uint16_t count;
	uint32_t stride;
};

/*
 * A further board of the description: its own register space (fw_id at 0, then its blocks), for
 * designs other than the primary layout's (sb_regmap_layout, the AC-510 GUPS design).
 */
struct sb_regmap_board {
	const char *name;
	uint32_t size; /* bytes of its register space */
	const struct sb_regmap_instance *layout;
	uint16_t nlayout;
	const char *description;
};

struct sb_regmap_record_field {
	const char *name;
	uint8_t word, lo, hi;
	const char *description;
};

struct sb_regmap_record {
	const char *name;
	uint16_t words;
	const struct sb_regmap_record_field *fields;
	uint16_t nfields;
	const char *description;
};

extern const struct sb_regmap_block sb_regmap_blocks[];
extern const unsigned sb_regmap_nblocks;
extern const struct sb_regmap_instance sb_regmap_layout[];
extern const unsigned sb_regmap_nlayout;
extern const struct sb_regmap_board sb_regmap_boards[];
extern const unsigned sb_regmap_nboards;
extern const struct sb_regmap_record sb_regmap_records[];
extern const unsigned sb_regmap_nrecords;

#endif /* SB_REGMAP_DESC_H */
