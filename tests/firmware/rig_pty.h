/* SPDX-License-Identifier: MIT */
/*
 * The simulated rig's UART on a pty, for host programs: the slave side (/dev/pts/N) is what the
 * host driver opens as rig:/dev/pts/N, the master side is bridged to the firmware's UART in
 * simavr. rig_pty_step() moves the bytes both ways and runs the board; with the board in real
 * time (rig_board_realtime) the firmware's timers count wall time, as on the bench. A thread
 * can run the bridge (rig_pty_start); rig_pty_lock() then guards the board.
 */
#ifndef RIG_PTY_H
#define RIG_PTY_H

#include <stdbool.h>
#include <stdint.h>

#include "rig_board.h"

struct rig_pty;

/* A pty for the board; NULL on error (message on stderr). */
struct rig_pty *rig_pty_new(struct rig_board *b);
void rig_pty_free(struct rig_pty *p);
const char *rig_pty_path(const struct rig_pty *p);

/* Move bytes both ways, then run the board us microseconds. false when the core stopped. */
bool rig_pty_step(struct rig_pty *p, uint64_t us);

/* Run the bridge in a thread (steps of 200 us, real time) until rig_pty_free. */
int rig_pty_start(struct rig_pty *p);
void rig_pty_lock(struct rig_pty *p);
void rig_pty_unlock(struct rig_pty *p);

#endif /* RIG_PTY_H */
