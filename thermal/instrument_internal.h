/* SPDX-License-Identifier: MIT */
/* Instrument drivers: the operations each kind of instrument implements. */
#ifndef SB_INSTRUMENT_INTERNAL_H
#define SB_INSTRUMENT_INTERNAL_H

#include "stackbench/instrument.h"

#define SB_CONN_MAX_OPTS 8

/* A parsed connection string: SCHEME:REST?KEY=VALUE&... */
struct sb_conn {
	const char *text;
	char scheme[16];
	char rest[256];
	unsigned nopts;
	struct {
		char key[32];
		char value[128];
	} opts[SB_CONN_MAX_OPTS];
};

/* Value of an option, or NULL. */
const char *sb_conn_opt(const struct sb_conn *c, const char *key);
/* SB_ERR_URI unless every option is in known (NULL-terminated). */
int sb_conn_check_opts(const struct sb_conn *c, const char *const known[]);

struct sb_temp_ops {
	int (*open)(const struct sb_conn *c, struct sb_device *dev, void **priv);
	void (*close)(void *priv);
	int (*sample)(void *priv, struct sb_temp_reading *r);
	int (*set_roi)(void *priv, const struct sb_roi *roi);
};

struct sb_power_ops {
	int (*open)(const struct sb_conn *c, struct sb_device *dev, void **priv);
	void (*close)(void *priv);
	int (*sample)(void *priv, struct sb_power_reading *r);
};

struct sb_cooling_ops {
	int (*open)(const struct sb_conn *c, struct sb_device *dev, void **priv);
	void (*close)(void *priv);
	int (*apply)(void *priv, const char *name);
	int (*status)(void *priv, struct sb_cooling_state *st);
	unsigned (*count)(void *priv);
	const char *(*name)(void *priv, unsigned i);
	int (*describe)(void *priv, unsigned i, struct sb_cooling_state *st);
	int (*recover)(void *priv); /* NULL: no fail-safe */
};

/* The simulated bench's instruments (instrument_sim.c). */
extern const struct sb_temp_ops sb_temp_sim;
extern const struct sb_power_ops sb_power_sim;
extern const struct sb_cooling_ops sb_cooling_sim;
/* The cooling-rig controller (rig.c). */
extern const struct sb_cooling_ops sb_cooling_rig;

#endif /* SB_INSTRUMENT_INTERNAL_H */
