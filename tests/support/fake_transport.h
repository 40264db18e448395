/* SPDX-License-Identifier: MIT */
/*
 * A scripted fake transport for tests. It serves a register image (a plain array of words)
 * and, optionally, checks the host's accesses against a script of expected operations.
 * Every access is also appended to a log the test can inspect.
 */
#ifndef SB_TEST_FAKE_TRANSPORT_H
#define SB_TEST_FAKE_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "stackbench/transport.h"

enum fake_op { FAKE_READ, FAKE_WRITE, FAKE_WAIT };

struct fake_step {
	enum fake_op op;
	uint32_t offset; /* FAKE_WAIT: ignored */
	uint64_t value;  /* read: value returned; write: value expected; wait: ns (0 = any) */
};

#define FAKE_LOG_MAX 4096

struct fake {
	uint32_t *image; /* register image served when no script step applies */
	uint32_t size;   /* bytes */
	const struct fake_step *script;
	unsigned nsteps, pos; /* scripted steps, and how many were consumed */
	bool strict;          /* every access must match the next step */
	char failure[256];    /* first mismatch, "" if none */
	uint64_t now_ns;
	unsigned nlog;
	struct fake_step log[FAKE_LOG_MAX];
	bool closed;
};

extern const struct sb_transport_ops fake_transport_ops;

/* A fresh fake with a zeroed image of size bytes. */
struct fake *fake_new(uint32_t size);
void fake_free(struct fake *f);

/* Fill the image with the register space of the generated layout (all blocks present). */
void fake_fill_regmap(struct fake *f, unsigned nports);

/* Write words of the image directly. */
void fake_set(struct fake *f, uint32_t offset, uint32_t value);

/* Count logged writes to offset; last written value in *value (if any). */
unsigned fake_writes_to(const struct fake *f, uint32_t offset, uint32_t *value);

#endif /* SB_TEST_FAKE_TRANSPORT_H */
