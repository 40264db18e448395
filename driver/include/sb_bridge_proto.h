/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The stackbench bridge protocol: how the simulated board is served to a QEMU guest through
 * the memory of an ivshmem-plain device (BAR2 of PCI 1af4:1110), which the guest and the
 * bridge program (driver/bridge/) share. Used by the kernel module in test mode and by the
 * bridge; macros only, so that both kernel and userspace can include it.
 *
 * Layout of the shared memory (little-endian 32-bit words):
 *
 *   SB_BRIDGE_REGS_OFFSET   the register image: the board's register space, word for word.
 *                           The bridge refreshes it from the model continuously and notices
 *                           guest stores by comparing it with a shadow copy (the image path,
 *                           used by pci: and by mappings of the register region).
 *   SB_BRIDGE_CTRL_OFFSET   the control page: identification, heartbeat and one mailbox for
 *                           exact register access (the path of SB_IOC_REG_ACCESS in test
 *                           mode).
 *
 * Mailbox transaction (guest side, one at a time):
 *   1. write OP, OFFSET, VALUE_LO, VALUE_HI;
 *   2. write REQ_SEQ = previous sequence + 1 (the doorbell; the stores before it are ordered);
 *   3. poll ACK_SEQ until it equals the new sequence; then read STATUS, RESULT_LO/HI.
 * The bridge performs the access on the model exactly (read side effects included), then
 * writes STATUS and RESULT and finally ACK_SEQ. Stores the guest made to the register image
 * before ringing the doorbell are applied before the mailbox request.
 */
#ifndef SB_BRIDGE_PROTO_H
#define SB_BRIDGE_PROTO_H

#define SB_BRIDGE_MAGIC 0x53424252u   /* "SBBR", in CTRL_MAGIC once the bridge serves */
#define SB_BRIDGE_VERSION 0x00010000u /* major << 16 | minor */
#define SB_BRIDGE_VERSION_MAJOR(v) ((v) >> 16)

#define SB_BRIDGE_REGS_OFFSET 0x00000u
#define SB_BRIDGE_REGS_MAX 0x10000u /* the register image may use up to 64 KiB */
#define SB_BRIDGE_CTRL_OFFSET 0x10000u
#define SB_BRIDGE_CTRL_SIZE 0x1000u
/* Smallest shared-memory size; ivshmem wants a power of two. */
#define SB_BRIDGE_MIN_SIZE 0x20000u
#define SB_BRIDGE_DEFAULT_SIZE 0x100000u

/* Control page words, byte offsets from SB_BRIDGE_CTRL_OFFSET. Written by the bridge: */
#define SB_BRIDGE_CTRL_MAGIC 0x00
#define SB_BRIDGE_CTRL_VERSION 0x04
#define SB_BRIDGE_CTRL_REGS_SIZE 0x08 /* bytes of register image */
#define SB_BRIDGE_CTRL_HEARTBEAT 0x0C /* incremented by every poll of the bridge */

/* Mailbox request, written by the guest (its own cache line). */
#define SB_BRIDGE_MB_REQ_SEQ 0x40
#define SB_BRIDGE_MB_OP 0x44
#define SB_BRIDGE_MB_OFFSET 0x48
#define SB_BRIDGE_MB_VALUE_LO 0x4C
#define SB_BRIDGE_MB_VALUE_HI 0x50

/* Mailbox response, written by the bridge (its own cache line). */
#define SB_BRIDGE_MB_ACK_SEQ 0x80
#define SB_BRIDGE_MB_STATUS 0x84
#define SB_BRIDGE_MB_RESULT_LO 0x88
#define SB_BRIDGE_MB_RESULT_HI 0x8C

/* Mailbox operations (the same codes as SB_REG_* of the uapi). */
#define SB_BRIDGE_OP_READ32 1
#define SB_BRIDGE_OP_WRITE32 2
#define SB_BRIDGE_OP_READ64 3
#define SB_BRIDGE_OP_WRITE64 4

/* Mailbox status. */
#define SB_BRIDGE_ST_OK 0
#define SB_BRIDGE_ST_RANGE 1 /* offset misaligned or outside the register space */
#define SB_BRIDGE_ST_BADOP 2 /* unknown operation */
#define SB_BRIDGE_ST_MODEL 3 /* the model reported an error */

#endif /* SB_BRIDGE_PROTO_H */
