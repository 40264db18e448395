/* SPDX-License-Identifier: MIT */
/*
 * stackbench-bridge-bench: measure the latency the bridge adds per register access, acting
 * as the guest on the host side of the shared memory (no VM, no QEMU):
 *
 *   stackbench-bridge --shm /dev/shm/sbb & stackbench-bridge-bench --shm /dev/shm/sbb
 *
 * Figures (nanoseconds, CLOCK_MONOTONIC):
 *   mailbox read32 / write32   doorbell to acknowledgement (the exact path, dev: in the VM);
 *   image store                a plain store to a write-only command word until the bridge
 *                              has applied it (the word reads 0 again) (the pci: / mmap path);
 *   mailbox read32 after idle  the same, 5 ms after the previous access (the bridge sleeps
 *                              --sleep-us between polls once idle for --spin-us);
 *   image refresh interval     how often a read-only word (board.cycles) changes in the image.
 * Do not run it while a guest uses the same bridge.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sb_bridge_proto.h"
#include "sb_regmap.h"
#include "stackbench/transport.h"

static uint32_t *shm;
static uint32_t seq;

static uint32_t rd(uint32_t byte_off)
{
	return __atomic_load_n(&shm[byte_off / 4], __ATOMIC_ACQUIRE);
}

static void wr(uint32_t byte_off, uint32_t v)
{
	__atomic_store_n(&shm[byte_off / 4], v, __ATOMIC_RELEASE);
}

static int mailbox(uint32_t op, uint32_t off, uint32_t val, uint32_t *result)
{
	const uint32_t c = SB_BRIDGE_CTRL_OFFSET;
	uint64_t deadline = sb_monotonic_ns() + 1000000000ull;

	wr(c + SB_BRIDGE_MB_OP, op);
	wr(c + SB_BRIDGE_MB_OFFSET, off);
	wr(c + SB_BRIDGE_MB_VALUE_LO, val);
	wr(c + SB_BRIDGE_MB_VALUE_HI, 0);
	wr(c + SB_BRIDGE_MB_REQ_SEQ, ++seq);
	while (rd(c + SB_BRIDGE_MB_ACK_SEQ) != seq)
		if (sb_monotonic_ns() > deadline)
			return -1;
	*result = rd(c + SB_BRIDGE_MB_RESULT_LO);
	return (int)rd(c + SB_BRIDGE_MB_STATUS);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, uint64_t *t, unsigned n)
{
	double sum = 0;

	qsort(t, n, sizeof(*t), cmp_u64);
	for (unsigned i = 0; i < n; i++)
		sum += (double)t[i];
	printf("%-28s n=%-6u mean %8.0f ns  p50 %8llu ns  p99 %8llu ns  max %8llu ns\n", what, n,
	       sum / n, (unsigned long long)t[n / 2], (unsigned long long)t[n * 99 / 100],
	       (unsigned long long)t[n - 1]);
}

int main(int argc, char **argv)
{
	const uint32_t scratch = SB_LAYOUT_BOARD_OFFSET + SB_BOARD_SCRATCH;
	const uint32_t reset = SB_LAYOUT_HMC_CTRL_OFFSET + SB_HMC_CTRL_RESET;
	const uint32_t cycles = SB_LAYOUT_BOARD_OFFSET + SB_BOARD_CYCLES_LO;
	const char *path = NULL;
	unsigned n = 20000, changes = 0;
	uint64_t *t, t0, end;
	uint32_t v, last;
	struct stat st;
	int c, fd;

	while ((c = getopt(argc, argv, "s:n:h")) != -1) {
		if (c == 's')
			path = optarg;
		else if (c == 'n')
			n = (unsigned)strtoul(optarg, NULL, 10);
		else {
			fprintf(stderr, "usage: stackbench-bridge-bench -s SHM [-n COUNT]\n");
			return 2;
		}
	}
	if (!path || n < 100) {
		fprintf(stderr, "usage: stackbench-bridge-bench -s SHM [-n COUNT >= 100]\n");
		return 2;
	}
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < SB_BRIDGE_MIN_SIZE) {
		fprintf(stderr, "stackbench-bridge-bench: cannot use '%s'\n", path);
		return 1;
	}
	shm = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (shm == MAP_FAILED ||
	    rd(SB_BRIDGE_CTRL_OFFSET + SB_BRIDGE_CTRL_MAGIC) != SB_BRIDGE_MAGIC) {
		fprintf(stderr, "stackbench-bridge-bench: no bridge serving '%s'\n", path);
		return 1;
	}
	seq = rd(SB_BRIDGE_CTRL_OFFSET + SB_BRIDGE_MB_ACK_SEQ);
	t = calloc(n, sizeof(*t));
	if (!t)
		return 1;

	for (unsigned i = 0; i < n; i++) {
		t0 = sb_monotonic_ns();
		if (mailbox(SB_BRIDGE_OP_READ32, scratch, 0, &v) != SB_BRIDGE_ST_OK)
			goto fail;
		t[i] = sb_monotonic_ns() - t0;
	}
	report("mailbox read32", t, n);
	for (unsigned i = 0; i < n; i++) {
		t0 = sb_monotonic_ns();
		if (mailbox(SB_BRIDGE_OP_WRITE32, scratch, i, &v) != SB_BRIDGE_ST_OK)
			goto fail;
		t[i] = sb_monotonic_ns() - t0;
	}
	report("mailbox write32", t, n);
	for (unsigned i = 0; i < n; i++) {
		uint64_t deadline;

		t0 = sb_monotonic_ns();
		deadline = t0 + 1000000000ull;
		wr(reset, SB_HMC_CTRL_RESET_STATS_MASK);
		while (rd(reset) != 0)
			if (sb_monotonic_ns() > deadline)
				goto fail;
		t[i] = sb_monotonic_ns() - t0;
	}
	report("image store applied", t, n);
	/* The first access after the bridge went idle (it sleeps between polls then). */
	for (unsigned i = 0; i < 200; i++) {
		usleep(5000);
		t0 = sb_monotonic_ns();
		if (mailbox(SB_BRIDGE_OP_READ32, scratch, 0, &v) != SB_BRIDGE_ST_OK)
			goto fail;
		t[i] = sb_monotonic_ns() - t0;
	}
	report("mailbox read32 after idle", t, 200);
	/* Let the bridge go idle, then time how the image follows a read-only word. */
	usleep(20000);
	last = rd(cycles);
	t0 = sb_monotonic_ns();
	end = t0 + 100000000ull;
	while (sb_monotonic_ns() < end) {
		v = rd(cycles);
		if (v != last) {
			changes++;
			last = v;
		}
	}
	printf("%-28s %u changes in 100 ms: one every %.1f us\n", "image refresh interval", changes,
	       changes ? 100000.0 / changes : 0.0);
	free(t);
	return 0;
fail:
	fprintf(stderr, "stackbench-bridge-bench: the bridge did not answer\n");
	free(t);
	return 1;
}
