/* SPDX-License-Identifier: MIT */
/*
 * The cooling-rig controller behind the replayed FT232R: what it answers, phase by phase, in the
 * replay gen_ft232r_replay writes, and what rig_ftdi_check expects the driver to send and
 * report. The frames are the real protocol (firmware/include/sb_rig_proto.h).
 *
 * The session (the requests are the driver's, thermal/rig.c, with the default rig file
 * thermal/rigs/ac510-rig.yaml):
 *
 *   open      IDENTIFY 1     answered with a damaged CRC: the driver asks again
 *             IDENTIFY 2     firmware 1.4.2, its answer split over two reads
 *             GET_LIMITS 3   the defaults (EEPROM blank): the driver writes the rig file's
 *             SET_LIMITS 4   answered BAD_CRC (the controller saw the frame damaged): again
 *             SET_LIMITS 5   ok
 *             GET_STATUS 6   just powered on: RESET and EEPROM latched, fans at 100 %
 *             CLEAR_FAULTS 7 (RESET | EEPROM) ok; the keep-alive starts (GET_STATUS each second)
 *   idle      GET_STATUS     no fault, fans off
 *             SET_FANS       Cfg2 (83.3 %, 50 %): ok
 *   cooling   GET_STATUS     Cfg2 driven, heatsink 41.25 C
 *             SET_FANS       Cfg3: refused, FAILSAFE (the heatsink went over its limit)
 *   failsafe  GET_STATUS     OVERTEMP latched and present, fans at 100 %, heatsink 86 C
 *             CLEAR_FAULTS   all: refused, FAULT_ACTIVE; GET_STATUS (failsafe again)
 *             CLEAR_FAULTS   all: ok, nothing left
 *             SET_FANS       Cfg2 again (the recovery re-applies what was applied): ok
 *   cooled    GET_STATUS     Cfg2 driven, heatsink 80 C
 *
 * After the open, the keep-alive thread's GET_STATUS can come between any two requests and
 * takes a sequence number, so every request after the open is in the replay once for each
 * sequence number from RIG_SEQ_OPEN_END to RIG_SEQ_LAST, and a GET_STATUS of a phase answers
 * that phase whatever its number.
 */
#ifndef SB_TEST_RIG_REPLAY_H
#define SB_TEST_RIG_REPLAY_H

#include "sb_rig_proto.h"

#define RIG_SEQ_OPEN_END 8 /* the open uses sequence numbers 1..7 */
#define RIG_SEQ_LAST 120   /* room for ~100 keep-alives (100 s) during the check */

enum rig_phase {
	RIG_BOOT,     /* what the open's GET_STATUS sees */
	RIG_IDLE,     /* faults cleared, nothing applied */
	RIG_COOLING,  /* Cfg2 applied */
	RIG_FAILSAFE, /* over temperature */
	RIG_COOLED,   /* recovered, Cfg2 again */
};

/* The controller's answer to GET_STATUS in a phase. */
void rig_replay_status(enum rig_phase p, struct sb_rig_status *st);

/* Its IDENTIFY answer and the limits it holds at first (the defaults, EEPROM blank). */
void rig_replay_ident(struct sb_rig_ident *id);

/* The limits the driver writes: thermal/rigs/ac510-rig.yaml (85 C, 5 s, 3 s, fans 0 and 1). */
void rig_replay_file_limits(struct sb_rig_limits *l);

/* Duties (per mille) of Cfg2 and Cfg3 in that rig file. */
#define RIG_CFG2_DUTY0 833
#define RIG_CFG2_DUTY1 500
#define RIG_CFG3_DUTY0 542
#define RIG_CFG3_DUTY1 500

#define RIG_TAKEOVER_CLEAR (SB_RIG_FAULT_RESET | SB_RIG_FAULT_EEPROM)

#endif /* SB_TEST_RIG_REPLAY_H */
