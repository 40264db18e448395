/* SPDX-License-Identifier: MIT */
/* The replayed cooling-rig controller's answers (rig_replay.h). */
#include "rig_replay.h"

/* GET_STATUS of each phase; thermocouples in 0.25 C, cold junctions in 0.0625 C. */
static const struct sb_rig_status status[] = {
    /* powered on: RESET latched, EEPROM blank, the fail-safe holds the fans at 100 % */
    [RIG_BOOT] = {.flags = SB_RIG_FLAG_FAILSAFE | SB_RIG_FLAG_DEFAULTS,
                  .faults = SB_RIG_FAULT_RESET | SB_RIG_FAULT_EEPROM,
                  .uptime_ms = 1840,
                  .host_age_ms = 1840,
                  .duty_pm = {1000, 1000},
                  .rpm = {2910, 2460},
                  .tc_q2 = {97, 94}, /* 24.25 C, 23.5 C */
                  .cj_q4 = {369, 370}},
    [RIG_IDLE] = {.uptime_ms = 2100,
                  .host_age_ms = 12,
                  .tc_q2 = {98, 94}, /* 24.5 C */
                  .cj_q4 = {369, 370}},
    [RIG_COOLING] = {.uptime_ms = 65250,
                     .host_age_ms = 12,
                     .duty_pm = {RIG_CFG2_DUTY0, RIG_CFG2_DUTY1},
                     .rpm = {2424, 1230},
                     .tc_q2 = {165, 95}, /* 41.25 C, 23.75 C */
                     .cj_q4 = {369, 370}},
    /* the heatsink over the rig file's 85 C */
    [RIG_FAILSAFE] = {.flags = SB_RIG_FLAG_FAILSAFE,
                      .faults = SB_RIG_FAULT_OVERTEMP,
                      .active = SB_RIG_FAULT_OVERTEMP,
                      .uptime_ms = 3601000,
                      .host_age_ms = 12,
                      .duty_pm = {1000, 1000},
                      .rpm = {2905, 2470},
                      .tc_q2 = {344, 96}, /* 86 C, 24 C */
                      .cj_q4 = {369, 370}},
    [RIG_COOLED] = {.uptime_ms = 3700500,
                    .host_age_ms = 12,
                    .duty_pm = {RIG_CFG2_DUTY0, RIG_CFG2_DUTY1},
                    .rpm = {2431, 1228},
                    .tc_q2 = {320, 96}, /* 80 C */
                    .cj_q4 = {369, 370}},
};

void rig_replay_status(enum rig_phase p, struct sb_rig_status *st)
{
	*st = status[p];
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
