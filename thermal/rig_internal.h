/* SPDX-License-Identifier: MIT */
/*
 * The cooling-rig controller's host side (docs/rig-protocol.md), in three layers:
 *
 *   byte pipe   struct sb_rig_link: a tty (termios; /dev/ttyUSB0, a pty) or the FT232R through
 *               libftdi. Only open/read/write/flush differ (rig_link.c).
 *   client      struct sb_rig: request/response over a pipe, with sequence numbers, timeouts,
 *               retries and a keep-alive thread (rig.c). Everything above the pipe is shared, so
 *               the code tested through a pty is the code that drives an FT232R.
 *   actuator    the rig: cooling driver of instrument.h (rig.c).
 *
 * Protocol parsing is the pure sb_rig_proto.c the firmware runs too.
 */
#ifndef SB_RIG_INTERNAL_H
#define SB_RIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sb_rig_proto.h"

/* ---- byte pipe ---------------------------------------------------------------------------- */

struct sb_rig_link_ops {
	/* Write all n bytes. 0 or SB_ERR_IO / SB_ERR_TIMEOUT. */
	int (*write)(void *priv, const uint8_t *p, size_t n);
	/* Read what arrives within timeout_ms: bytes read (0 on timeout) or SB_ERR_IO. */
	int (*read)(void *priv, uint8_t *p, size_t cap, int timeout_ms);
	/* Drop unread input. */
	int (*flush)(void *priv);
	void (*close)(void *priv);
};

struct sb_rig_link {
	const struct sb_rig_link_ops *ops;
	void *priv;
	char name[160]; /* for messages: "/dev/ttyUSB0", "FT232R A5XK3RJT" */
};

/* "ftdi", "ftdi:SERIAL" or a tty path. SB_ERR_NOT_FOUND, SB_ERR_BUSY, SB_ERR_PERM, SB_ERR_IO,
 * SB_ERR_URI (malformed), SB_ERR_NOT_SUPPORTED (built without libftdi). */
int sb_rig_link_open(struct sb_rig_link *l, const char *where);
void sb_rig_link_close(struct sb_rig_link *l);

/* ---- client ------------------------------------------------------------------------------- */

#define SB_RIG_TIMEOUT_MS 250 /* one try: a round trip takes ~1 ms plus USB latency */
#define SB_RIG_TRIES                                                                               \
	3                        /* a lost or damaged frame is sent again (every command is
                                   idempotent) */
#define SB_RIG_OPEN_WAIT_MS 3000 /* boards that reset when the port opens boot in < 2 s */

struct sb_rig;

/* Open the pipe and identify the controller (SB_ERR_VERSION for another protocol version). */
int sb_rig_open(struct sb_rig **out, const char *where);
void sb_rig_close(struct sb_rig *r);
const char *sb_rig_where(const struct sb_rig *r);
const struct sb_rig_ident *sb_rig_ident(const struct sb_rig *r);

/*
 * One request. Returns the status byte of the answer (enum sb_rig_status_code, >= 0) with
 * the answer's data (after the status byte) in resp / *resp_len (resp may be NULL), or
 * SB_ERR_TIMEOUT (no answer after SB_RIG_TRIES tries), SB_ERR_IO.
 */
int sb_rig_request(struct sb_rig *r, uint8_t cmd, const uint8_t *payload, uint8_t len,
                   uint8_t *resp, uint8_t *resp_len);

/* The commands; a refusal is an error with the detail (SB_ERR_STATE: fail-safe or a fault
 * still present; SB_ERR_RANGE: out of range; SB_ERR_DEVICE: anything else). */
int sb_rig_get_status(struct sb_rig *r, struct sb_rig_status *st);
int sb_rig_set_fans(struct sb_rig *r, const uint16_t duty_pm[SB_RIG_FANS]);
int sb_rig_get_limits(struct sb_rig *r, struct sb_rig_limits *l, bool *defaults);
int sb_rig_set_limits(struct sb_rig *r, const struct sb_rig_limits *l);
/* Clear latched faults; *left gets those still latched. */
int sb_rig_clear_faults(struct sb_rig *r, uint16_t mask, uint16_t *left);

/* Keep the controller's host-silence timer fed from a thread while the client is open (period
 * in ms; 0 stops it). */
int sb_rig_keepalive(struct sb_rig *r, unsigned period_ms);

/* "overtemp, host silence" (or "none"). */
const char *sb_rig_faults_text(uint16_t faults, char *buf, size_t size);

#endif /* SB_RIG_INTERNAL_H */
