/* SPDX-License-Identifier: MIT */
/* The replayed cooling-rig controller's answers (rig_replay.h). */
#include "rig_replay.h"

#include <string.h>

void rig_replay_status(enum rig_phase p, struct sb_rig_status *st)
{
	memset(st, 0, sizeof(*st));
	st->host_age_ms = 12;
	/* Cold junctions at 23.0625 C and 23.125 C. */
	st->cj_q4[0] = 369;
	st->cj_q4[1] = 370;
	switch (p) {
	case RIG_BOOT: /* powered on: RESET latched, EEPROM blank, the fail-safe holds */
		st->flags = SB_RIG_FLAG_FAILSAFE | SB_RIG_FLAG_DEFAULTS;
		st->faults = SB_RIG_FAULT_RESET | SB_RIG_FAULT_EEPROM;
		st->uptime_ms = 1840;
		st->host_age_ms = 1840;
		st->duty_pm[0] = st->duty_pm[1] = 1000;
		st->rpm[0] = 2910;
		st->rpm[1] = 2460;
		st->tc_q2[0] = 97; /* 24.25 C */
		st->tc_q2[1] = 94; /* 23.5 C */
		break;
	case RIG_IDLE:
		st->uptime_ms = 2100;
		st->tc_q2[0] = 98; /* 24.5 C */
		st->tc_q2[1] = 94;
		break;
	case RIG_COOLING:
		st->uptime_ms = 65250;
		st->duty_pm[0] = RIG_CFG2_DUTY0;
		st->duty_pm[1] = RIG_CFG2_DUTY1;
		st->rpm[0] = 2424;
		st->rpm[1] = 1230;
		st->tc_q2[0] = 165; /* 41.25 C */
		st->tc_q2[1] = 95;  /* 23.75 C */
		break;
	case RIG_FAILSAFE:
		st->flags = SB_RIG_FLAG_FAILSAFE;
		st->faults = st->active = SB_RIG_FAULT_OVERTEMP;
		st->uptime_ms = 3601000;
		st->duty_pm[0] = st->duty_pm[1] = 1000;
		st->rpm[0] = 2905;
		st->rpm[1] = 2470;
		st->tc_q2[0] = 344; /* 86 C, over the rig file's 85 C */
		st->tc_q2[1] = 96;  /* 24 C */
		break;
	case RIG_COOLED:
		st->uptime_ms = 3700500;
		st->duty_pm[0] = RIG_CFG2_DUTY0;
		st->duty_pm[1] = RIG_CFG2_DUTY1;
		st->rpm[0] = 2431;
		st->rpm[1] = 1228;
		st->tc_q2[0] = 320; /* 80 C */
		st->tc_q2[1] = 96;
		break;
	}
}

void rig_replay_ident(struct sb_rig_ident *id)
{
	*id = (struct sb_rig_ident){
	    .proto = SB_RIG_PROTO_VERSION,
	    .fw_major = 1,
	    .fw_minor = 4,
	    .fw_patch = 2,
	    .build_id = 0x5eed0042u,
	    .fans = SB_RIG_FANS,
	    .sensors = SB_RIG_SENSORS,
	};
}

void rig_replay_file_limits(struct sb_rig_limits *l)
{
	*l = (struct sb_rig_limits){
	    .heatsink_max_q2 = 85 * 4,
	    .silence_ms = 5000,
	    .stall_ms = 3000,
	    .fan_mask = 0x03,
	};
}
