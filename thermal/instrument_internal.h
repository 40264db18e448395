/* SPDX-License-Identifier: MIT */
/* Instrument drivers: the operations each kind of instrument implements. */
#ifndef SB_INSTRUMENT_INTERNAL_H
#define SB_INSTRUMENT_INTERNAL_H

#include <pthread.h>
#include <stddef.h>

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

/* Real instruments. */
extern const struct sb_temp_ops sb_temp_flirone;      /* flirone.c (libusb) */
extern const struct sb_power_ops sb_power_wattsup;    /* wattsup.c (tty, libftdi) */
extern const struct sb_power_ops sb_power_wt310;      /* wt310.c (USBTMC) */
extern const struct sb_cooling_ops sb_cooling_sigrok; /* sigrok.c (libsigrok) */
extern const struct sb_power_ops sb_power_sigrok;     /* sigrok_meter.c (libsigrok) */
extern const struct sb_temp_ops sb_temp_sensors;      /* sensors.c (libsensors, hwmon) */
extern const struct sb_power_ops sb_power_sensors;    /* sensors.c */

/* The hwmon chips' temperature and power features (and current / voltage pairs) libsensors
 * finds, as sources with their connection strings, into out (at most max); how many. */
struct sb_found_instrument;
unsigned sb_sensors_discover(struct sb_found_instrument *out, unsigned max);

/* libsigrok (sigrok.c): the driver name and scan options (a GSList of struct sr_config) of
 * "sigrok:DRIVER[:conn=...][:serialcomm=...]" or "korad:PATH"; then a context, the driver and
 * the first device its scan finds, opened ("what" names the instrument in errors). On failure
 * the caller releases what was set (sr_exit of a non-NULL *ctx frees the rest). */
struct sr_context;
struct sr_dev_driver;
struct sr_dev_inst;
int sb_sigrok_scan_options(const struct sb_conn *c, char *driver, size_t dcap, void **opts);
void sb_sigrok_free_options(void *opts);
int sb_sigrok_open_dev(const struct sb_conn *c, const char *driver, void *opts, const char *what,
                       struct sr_context **ctx, struct sr_dev_driver **drv,
                       struct sr_dev_inst **sdi);

/* Monotonic clock in ns (reader threads stamp what they receive with it). */
uint64_t sb_inst_mono_ns(void);

/* Parse an option as an unsigned number in [min, max]; SB_ERR_INVAL names the option. */
int sb_conn_opt_uint(const struct sb_conn *c, const char *key, unsigned min, unsigned max,
                     unsigned *out);

/*
 * What a meter's reader thread has received since the last sample (meter_common.c): the
 * records' mean power, the latest volts and amps, when the last record came, and the first
 * error. The reader adds, the sampler takes; both under the lock.
 */
struct sb_meter_acc {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	double sum_w, last_w, volts, amps;
	bool has_va;
	unsigned n;
	uint64_t records, last_mono_ns;
	int err;
	char err_msg[256];
};

void sb_meter_acc_init(struct sb_meter_acc *a);
void sb_meter_acc_release(struct sb_meter_acc *a);
void sb_meter_acc_add(struct sb_meter_acc *a, double w, bool has_va, double v, double amps);
void sb_meter_acc_fail(struct sb_meter_acc *a, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Wait up to ms for the first record (open); 0, the reader's error, or SB_ERR_TIMEOUT. */
int sb_meter_acc_wait_first(struct sb_meter_acc *a, const char *conn, unsigned ms);
/*
 * A reading: the mean of the records since the last take (the latest again when none came),
 * stamped t_ns; SB_ERR_TIMEOUT when no record came for stall_ms, or the reader's error.
 */
int sb_meter_acc_take(struct sb_meter_acc *a, const char *conn, unsigned stall_ms,
                      double interval_s, uint64_t t_ns, struct sb_power_reading *r);

/*
 * Open an instrument's device node (a tty, a USBTMC node) read-write and non-blocking, and lock
 * it against other users, with the errors and hints every instrument on a node gives (one rule
 * for all: docs/instruments.md): SB_ERR_NOT_FOUND ("is the instrument plugged in?
 * ('stackbench instruments' lists what is)"), SB_ERR_PERM ("install the udev rules and join
 * group 'stackbench'"), SB_ERR_INVAL (not a character device: only character devices are
 * instruments), SB_ERR_BUSY ("held by PID N (COMMAND)"), SB_ERR_IO. The detail names path
 * (meter_common.c).
 */
int sb_node_open(const char *path, int *fd);
/* Open a serial line raw at baud, 8N1, as sb_node_open (a node that is not a tty is left as it
 * is). */
int sb_tty_open(const char *path, unsigned baud, int *fd);
/* Write all of buf (bounded by timeout_ms); SB_ERR_IO / SB_ERR_TIMEOUT. */
int sb_fd_write_all(int fd, const void *buf, size_t len, unsigned timeout_ms);
/* Read what arrives within timeout_ms (poll + read); returns bytes, 0 on timeout, SB_ERR_IO
 * (and SB_ERR_NOT_FOUND for a device that went away). */
int sb_fd_read_some(int fd, void *buf, size_t cap, unsigned timeout_ms);

#endif /* SB_INSTRUMENT_INTERNAL_H */
