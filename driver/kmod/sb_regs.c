// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * stackbench PCIe driver: register access and the firmware-ID check.
 *
 * On a board, register access is ioread32/iowrite32 on the mapped BAR. In test mode the
 * board is the simulated one, served by the bridge program through the shared memory of
 * QEMU's ivshmem-plain device; a plain store there does not trap, so exact accesses (with
 * their side effects: pulse bits, write-1-to-clear, the 64-bit low-word latch) go through a
 * mailbox in the bridge's control page (sb_bridge_proto.h).
 */
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/ktime.h>

#include "sb_bridge_proto.h"
#include "sb_drv.h"
#include "sb_regmap.h"

static inline bool sb_test_mode(const struct sb_board *b)
{
	return b->bridge != NULL;
}

int sb_bridge_attach(struct sb_board *b)
{
	resource_size_t len = pci_resource_len(b->pdev, b->regs_bar);
	void __iomem *ctrl;
	u32 magic, version, size;

	if (len < SB_BRIDGE_MIN_SIZE) {
		dev_err(&b->pdev->dev, "ivshmem BAR%d is %pa bytes; the bridge needs %#x\n",
		        b->regs_bar, &len, SB_BRIDGE_MIN_SIZE);
		return -ENODEV;
	}
	ctrl = b->regs + SB_BRIDGE_CTRL_OFFSET;
	magic = ioread32(ctrl + SB_BRIDGE_CTRL_MAGIC);
	version = ioread32(ctrl + SB_BRIDGE_CTRL_VERSION);
	size = ioread32(ctrl + SB_BRIDGE_CTRL_REGS_SIZE);
	if (magic != SB_BRIDGE_MAGIC) {
		dev_err(&b->pdev->dev,
		        "no stackbench bridge behind this ivshmem device (magic %#010x); start "
		        "stackbench-bridge first\n",
		        magic);
		return -ENODEV;
	}
	if (SB_BRIDGE_VERSION_MAJOR(version) != SB_BRIDGE_VERSION_MAJOR(SB_BRIDGE_VERSION)) {
		dev_err(&b->pdev->dev, "bridge protocol %u.%u, this driver speaks %u.x\n",
		        version >> 16, version & 0xffff,
		        SB_BRIDGE_VERSION_MAJOR(SB_BRIDGE_VERSION));
		return -ENODEV;
	}
	if (size < SB_REGMAP_ALIGN || size > SB_BRIDGE_REGS_MAX || size % 4) {
		dev_err(&b->pdev->dev, "bridge reports a register image of %u bytes\n", size);
		return -ENODEV;
	}
	b->bridge = ctrl;
	b->regspace = size;
	b->mb_seq = ioread32(ctrl + SB_BRIDGE_MB_ACK_SEQ);
	return 0;
}

/*
 * One mailbox transaction. The bridge answers in microseconds; spin for up to
 * SB_BRIDGE_SPIN_US, then sleep between polls so that a stalled bridge does not hog the CPU.
 * Called with reg_lock held.
 */
#define SB_BRIDGE_SPIN_US 100

static int sb_bridge_xfer(struct sb_board *b, u32 op, u32 off, u64 *val)
{
	void __iomem *mb = b->bridge;
	ktime_t start = ktime_get();
	ktime_t spin_end = ktime_add_us(start, SB_BRIDGE_SPIN_US);
	ktime_t deadline = ktime_add_ms(start, sb_bridge_timeout_ms);
	u32 seq = b->mb_seq + 1;
	u32 status;

	lockdep_assert_held(&b->reg_lock);
	iowrite32(op, mb + SB_BRIDGE_MB_OP);
	iowrite32(off, mb + SB_BRIDGE_MB_OFFSET);
	iowrite32(lower_32_bits(*val), mb + SB_BRIDGE_MB_VALUE_LO);
	iowrite32(upper_32_bits(*val), mb + SB_BRIDGE_MB_VALUE_HI);
	/* iowrite32 stores are ordered with each other: the doorbell goes last. */
	iowrite32(seq, mb + SB_BRIDGE_MB_REQ_SEQ);
	b->mb_seq = seq;
	while (ioread32(mb + SB_BRIDGE_MB_ACK_SEQ) != seq) {
		ktime_t now = ktime_get();

		if (ktime_after(now, deadline)) {
			dev_err_ratelimited(&b->dev,
			                    "bridge did not answer within %u ms (op %u at %#x)\n",
			                    sb_bridge_timeout_ms, op, off);
			return -ETIMEDOUT;
		}
		if (ktime_before(now, spin_end))
			cpu_relax();
		else
			usleep_range(20, 100);
	}
	status = ioread32(mb + SB_BRIDGE_MB_STATUS);
	*val = (u64)ioread32(mb + SB_BRIDGE_MB_RESULT_HI) << 32 |
	       ioread32(mb + SB_BRIDGE_MB_RESULT_LO);
	switch (status) {
	case SB_BRIDGE_ST_OK:
		return 0;
	case SB_BRIDGE_ST_RANGE:
		return -EINVAL;
	default:
		dev_err_ratelimited(&b->dev, "bridge status %u (op %u at %#x)\n", status, op, off);
		return -EIO;
	}
}

static bool sb_reg_ok(const struct sb_board *b, u32 off, u32 width)
{
	return off % 4 == 0 && off < b->regs_len && width <= b->regs_len - off;
}

int sb_reg_read(struct sb_board *b, u32 off, u32 *val)
{
	u64 v = 0;
	int ret;

	if (!sb_reg_ok(b, off, 4))
		return -EINVAL;
	if (!sb_test_mode(b)) {
		*val = ioread32(b->regs + off);
		return 0;
	}
	mutex_lock(&b->reg_lock);
	ret = sb_bridge_xfer(b, SB_BRIDGE_OP_READ32, off, &v);
	mutex_unlock(&b->reg_lock);
	*val = lower_32_bits(v);
	return ret;
}

int sb_reg_write(struct sb_board *b, u32 off, u32 val)
{
	u64 v = val;
	int ret;

	if (!sb_reg_ok(b, off, 4))
		return -EINVAL;
	if (!sb_test_mode(b)) {
		iowrite32(val, b->regs + off);
		return 0;
	}
	mutex_lock(&b->reg_lock);
	ret = sb_bridge_xfer(b, SB_BRIDGE_OP_WRITE32, off, &v);
	mutex_unlock(&b->reg_lock);
	return ret;
}

/* 64-bit registers: low word first (a read of it latches the high word), then high. */
int sb_reg_read64(struct sb_board *b, u32 off, u64 *val)
{
	int ret = 0;

	if (!sb_reg_ok(b, off, 8))
		return -EINVAL;
	mutex_lock(&b->reg_lock);
	if (sb_test_mode(b)) {
		ret = sb_bridge_xfer(b, SB_BRIDGE_OP_READ64, off, val);
	} else {
		u32 lo = ioread32(b->regs + off);

		*val = (u64)ioread32(b->regs + off + 4) << 32 | lo;
	}
	mutex_unlock(&b->reg_lock);
	return ret;
}

int sb_reg_write64(struct sb_board *b, u32 off, u64 val)
{
	int ret = 0;

	if (!sb_reg_ok(b, off, 8))
		return -EINVAL;
	mutex_lock(&b->reg_lock);
	if (sb_test_mode(b)) {
		ret = sb_bridge_xfer(b, SB_BRIDGE_OP_WRITE64, off, &val);
	} else {
		iowrite32(lower_32_bits(val), b->regs + off);
		iowrite32(upper_32_bits(val), b->regs + off + 4);
	}
	mutex_unlock(&b->reg_lock);
	return ret;
}

/*
 * The blocks the driver itself uses, and where it keeps their offsets. Those with DMA
 * registers (dma) must appear at most once and in the major version the driver was built for:
 * the driver guards the registers of the layout it knows, in the block it found.
 */
static const struct {
	u32 type, version;
	bool dma;
	size_t slot; /* offsetof the block's offset in struct sb_board */
	const char *name;
} sb_used_blocks[] = {
    {SB_BLK_IRQ_TYPE, SB_BLK_IRQ_VERSION, false, offsetof(struct sb_board, irq_block), "irq"},
    {SB_BLK_TRACE_TYPE, SB_BLK_TRACE_VERSION, true, offsetof(struct sb_board, trace_block),
     "trace"},
    {SB_BLK_REPLAY_TYPE, SB_BLK_REPLAY_VERSION, true, offsetof(struct sb_board, replay_block),
     "replay"},
};

/*
 * Registers that hold a DMA address, or bound a DMA range, are the driver's (docs/driver.md,
 * "Trust model"): whoever writes them decides which host memory the board writes (trace) or
 * reads (replay). Each is listed as the 32-bit words it occupies, at their offsets in the
 * generated register map; a DMA register added to the map later gets its words here (and its
 * block a line in sb_used_blocks, with dma set).
 */
static const struct {
	u32 type; /* block type */
	u32 word; /* byte offset of the 32-bit word in the block */
} sb_dma_words[] = {
    {SB_BLK_TRACE_TYPE, SB_TRACE_BUF_ADDR_LO},    {SB_BLK_TRACE_TYPE, SB_TRACE_BUF_ADDR_HI},
    {SB_BLK_TRACE_TYPE, SB_TRACE_BUF_SIZE},       {SB_BLK_REPLAY_TYPE, SB_REPLAY_RING_ADDR_LO},
    {SB_BLK_REPLAY_TYPE, SB_REPLAY_RING_ADDR_HI}, {SB_BLK_REPLAY_TYPE, SB_REPLAY_RING_LOG2},
};

/* The offset of the block of a type the driver uses (U32_MAX: absent, or not used). */
static u32 sb_block_of(const struct sb_board *b, u32 type)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sb_used_blocks); i++)
		if (sb_used_blocks[i].type == type)
			return *(const u32 *)((const char *)b + sb_used_blocks[i].slot);
	return U32_MAX;
}

/* Does a register access of width bytes at off touch a register the driver owns? */
bool sb_reg_dma_owned(const struct sb_board *b, u32 off, u32 width)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sb_dma_words); i++) {
		u32 blk = sb_block_of(b, sb_dma_words[i].type);
		u64 start = (u64)blk + sb_dma_words[i].word;

		if (blk != U32_MAX && off < start + sizeof(u32) && (u64)off + width > start)
			return true;
	}
	return false;
}

/* Record the block at off when the driver uses its type; -ENODEV when it cannot guard it. */
static int sb_note_block(struct sb_board *b, u32 off, u32 type)
{
	unsigned int i;
	u32 *slot, version;
	int ret;

	for (i = 0; i < ARRAY_SIZE(sb_used_blocks); i++) {
		if (sb_used_blocks[i].type != type)
			continue;
		slot = (u32 *)((char *)b + sb_used_blocks[i].slot);
		if (!sb_used_blocks[i].dma) {
			if (*slot == U32_MAX)
				*slot = off;
			return 0;
		}
		if (*slot != U32_MAX) {
			dev_err(
			    &b->pdev->dev,
			    "a second %s block at %#x (the first at %#x); this driver guards the "
			    "DMA registers of one\n",
			    sb_used_blocks[i].name, off, *slot);
			return -ENODEV;
		}
		ret = sb_reg_read(b, off + SB_BLK_VERSION, &version);
		if (ret)
			return ret;
		if (SB_BLK_VERSION_MAJOR(version) !=
		    SB_BLK_VERSION_MAJOR(sb_used_blocks[i].version)) {
			dev_err(&b->pdev->dev,
			        "%s block at %#x has version %u.%u; this driver knows the DMA "
			        "registers of %u.x\n",
			        sb_used_blocks[i].name, off, SB_BLK_VERSION_MAJOR(version),
			        SB_BLK_VERSION_MINOR(version),
			        SB_BLK_VERSION_MAJOR(sb_used_blocks[i].version));
			return -ENODEV;
		}
		*slot = off;
		return 0;
	}
	return 0;
}

/*
 * Find the firmware-ID block at offset 0, check its type, magic and major version, then walk
 * the NEXT chain (bounded, aligned, in range, no loops) for the blocks the driver itself
 * uses: irq (events), trace and replay (their DMA registers).
 */
int sb_fw_check(struct sb_board *b)
{
	struct device *dev = &b->pdev->dev;
	u32 type, next, off = 0, limit;
	unsigned int n;
	int ret;

	ret = sb_reg_read(b, SB_BLK_TYPE, &type);
	if (!ret)
		ret = sb_reg_read(b, SB_FW_ID_MAGIC, &b->fw.magic);
	if (!ret)
		ret = sb_reg_read(b, SB_BLK_VERSION, &b->fw.block_version);
	if (ret)
		return ret;
	if (type != SB_BLK_FW_ID_TYPE || b->fw.magic != SB_REGMAP_MAGIC) {
		dev_err(dev,
		        "no stackbench firmware: type %#010x magic %#010x at offset 0 (expected "
		        "%#010x %#010x)\n",
		        type, b->fw.magic, SB_BLK_FW_ID_TYPE, SB_REGMAP_MAGIC);
		return -ENODEV;
	}
	if (SB_BLK_VERSION_MAJOR(b->fw.block_version) !=
	    SB_BLK_VERSION_MAJOR(SB_BLK_FW_ID_VERSION)) {
		dev_err(dev, "firmware-ID block version %u.%u; this driver supports %u.x\n",
		        SB_BLK_VERSION_MAJOR(b->fw.block_version),
		        SB_BLK_VERSION_MINOR(b->fw.block_version),
		        SB_BLK_VERSION_MAJOR(SB_BLK_FW_ID_VERSION));
		return -ENODEV;
	}
	ret = sb_reg_read(b, SB_FW_ID_FW_VERSION, &b->fw.fw_version);
	if (!ret)
		ret = sb_reg_read(b, SB_FW_ID_BUILD_ID, &b->fw.build_id);
	if (!ret)
		ret = sb_reg_read(b, SB_FW_ID_REGMAP_HASH, &b->fw.regmap_hash);
	if (!ret)
		ret = sb_reg_read(b, SB_FW_ID_REGMAP_SIZE, &b->fw.regmap_size);
	if (ret)
		return ret;
	if (b->fw.regmap_hash != SB_REGMAP_HASH)
		dev_warn(dev,
		         "register-map hash %#010x differs from the driver's %#010x (built from "
		         "another regmap.yaml)\n",
		         b->fw.regmap_hash, SB_REGMAP_HASH);

	limit = min_t(u64, b->regs_len, b->fw.regmap_size ? b->fw.regmap_size : b->regs_len);
	b->irq_block = U32_MAX;
	b->trace_block = U32_MAX;
	b->replay_block = U32_MAX;
	for (n = 0; n < 256; n++) {
		ret = sb_reg_read(b, off + SB_BLK_TYPE, &type);
		if (!ret)
			ret = sb_reg_read(b, off + SB_BLK_NEXT, &next);
		if (!ret)
			ret = sb_note_block(b, off, type);
		if (ret)
			return ret;
		if (!next)
			return 0;
		if (next % SB_REGMAP_ALIGN || next <= off || next >= limit) {
			/* The chain only moves forward in our designs; anything else is broken. */
			dev_err(dev, "register block at %#x has a bad NEXT pointer %#x\n", off,
			        next);
			return -ENODEV;
		}
		off = next;
	}
	dev_err(dev, "more than %u register blocks; the block list is broken\n", n);
	return -ENODEV;
}
