/* SPDX-License-Identifier: MIT */
/*
 * Bench instruments: a temperature source (a thermal camera: the hot spot of a region of
 * interest, and the whole frame), a power source (a meter: watts, and volts and amps when it
 * reports them) and a cooling actuator (applies a named cooling configuration; reports fan
 * supply, fan speed and cooling power).
 *
 * Each is opened from a connection string "SCHEME:[REST][?KEY=VALUE&...]" (docs/instruments.md):
 *
 *   temperature  sim:[?roi=X,Y,W,H|all]   the simulated bench's camera (FLIR One frames)
 *                flirone:[SERIAL|BUS:ADDR][?roi=...|auto&calib=FILE.yaml&stall_ms=N]
 *                                          FLIR One over USB 09cb:1996 (libusb)
 *                sensors:[CHIP][?feature=NAME|LABEL&poll_ms=N&stall_ms=N]
 *                                          a card's hwmon sensor through libsensors
 *   power        sim:                      the simulated bench's meter
 *                wattsup:/dev/ttyUSBn      Watts up? PRO through the kernel's ftdi_sio
 *                wattsup:ftdi[:SERIAL]     Watts up? PRO through libftdi (FT232R)
 *                wt310:/dev/usbtmcN        Yokogawa WT310 (SCPI over USBTMC)
 *                sigrok:DRIVER[:conn=...]  a meter or supply libsigrok acquires from: its power,
 *                korad:/dev/ttyACMn        or volts x amps
 *                sensors:[CHIP][?feature=NAME|LABEL | ?curr=NAME&in=NAME]
 *                                          a card's hwmon power sensor, or volts x amps
 *   cooling      sim:                      the simulated bench's cooling rig
 *                sigrok:DRIVER[:conn=...&serialcomm=...][?configs=FILE.yaml]
 *                                          a fan supply libsigrok drives (korad-kaxxxxp, ...)
 *                korad:/dev/ttyACMn        alias of sigrok:korad-kaxxxxp:conn=/dev/ttyACMn
 *                rig:/dev/ttyUSBn          the cooling-rig controller (firmware/, docs/rig-
 *                rig:ftdi[:SERIAL]         protocol.md) on a tty or its FT232R through libftdi;
 *                                          ?config=RIGFILE&heatsink_max_c=C&silence_s=S&stall_s=S
 *                                          &supply=korad:PORT|sigrok:... (fan voltages)
 *
 * sim: instruments measure the simulated bench of an open sim: device (sb_device_bench());
 * real ones ignore the device or use it for nothing but the clock. Every reading carries the
 * bench time it was taken at (sb_device_now_ns() of the device, which is the monotonic clock on
 * hardware), so a caller samples them on the bench clock: one call, one reading.
 *
 * Real instruments run a reader thread that keeps the device drained; a sample takes the latest
 * data and never waits on the device.
 *
 * Errors: SB_ERR_URI for a malformed string or an unknown scheme (the detail lists the known
 * ones), SB_ERR_NOT_SUPPORTED for a sim: instrument on a board that is not simulated,
 * SB_ERR_INVAL for a bad option value, SB_ERR_NOT_FOUND when the instrument is not attached,
 * SB_ERR_BUSY when another process holds it, SB_ERR_PERM when its device node is not
 * accessible (udev rules, docs/instruments.md), SB_ERR_IO / SB_ERR_TIMEOUT when it disconnects
 * or stops answering, SB_ERR_PARSE for garbage that never resynchronizes.
 */
#ifndef STACKBENCH_INSTRUMENT_H
#define STACKBENCH_INSTRUMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "stackbench/device.h"
#include "stackbench/radiometry.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SB_INSTRUMENT_NAME_MAX 32

/* The kinds of instrument. */
enum sb_instrument_kind {
	SB_INSTRUMENT_TEMPERATURE = 0,
	SB_INSTRUMENT_POWER = 1,
	SB_INSTRUMENT_COOLING = 2,
};

/*
 * Check a connection string of a kind without opening anything (a campaign file is checked
 * before any device is open): 0 if its driver is built (its options are checked when it is
 * opened) or SB_ERR_URI (malformed, unknown scheme: the detail lists the known ones).
 */
int sb_instrument_check(enum sb_instrument_kind kind, const char *conn);

/* The i-th connection-string scheme of a kind ("flirone"), and what it is (*what, when not
 * NULL); NULL past the last: what help texts list, from the drivers' own table. */
const char *sb_instrument_scheme(enum sb_instrument_kind kind, unsigned i, const char **what);

/* ---- temperature ------------------------------------------------------------------------ */

struct sb_temp_reading {
	uint64_t t_ns;    /* bench time of the frame */
	double hotspot_c; /* hottest pixel of the ROI, at the camera's resolution */
	unsigned hot_x, hot_y;
	double roi_mean_c, roi_min_c;
	struct sb_roi roi;
	/* The whole frame, or NULL when the source has none; valid until the next sample. */
	const struct sb_thermal_image *frame;
};

struct sb_temp_source;

int sb_temp_source_open(struct sb_temp_source **out, const char *conn, struct sb_device *dev);
void sb_temp_source_close(struct sb_temp_source *s);
/* Take one reading now. Returns 0, SB_ERR_IO / SB_ERR_TIMEOUT (device), SB_ERR_PARSE. */
int sb_temp_source_sample(struct sb_temp_source *s, struct sb_temp_reading *r);
/* Change the region of interest (w == 0: whole frame). SB_ERR_RANGE outside the frame. */
int sb_temp_source_set_roi(struct sb_temp_source *s, const struct sb_roi *roi);
/* The driver ("sim", "flirone", ...) and the connection string. */
const char *sb_temp_source_driver(const struct sb_temp_source *s);
const char *sb_temp_source_conn(const struct sb_temp_source *s);
/*
 * After a failed sample (a disconnect, a stall): close the driver and open the same connection
 * string again, retrying every 250 ms until it opens or timeout_ms of real time have passed.
 * Returns 0 (the source works again), or the last open error (detail: the connection string,
 * the attempts, the last reason).
 */
int sb_temp_source_reconnect(struct sb_temp_source *s, unsigned timeout_ms);

/* ---- power ------------------------------------------------------------------------------ */

struct sb_power_reading {
	uint64_t t_ns;
	double power_w; /* mean since the previous reading (the meter's own integration) */
	bool has_va;    /* volts and amps are valid */
	double volts, amps;
	double interval_s; /* the meter's own integration interval (0: not known) */
	unsigned records;  /* meter records the reading is the mean of (0: the latest, repeated) */
};

struct sb_power_source;

int sb_power_source_open(struct sb_power_source **out, const char *conn, struct sb_device *dev);
void sb_power_source_close(struct sb_power_source *s);
int sb_power_source_sample(struct sb_power_source *s, struct sb_power_reading *r);
const char *sb_power_source_driver(const struct sb_power_source *s);
const char *sb_power_source_conn(const struct sb_power_source *s);
/* As sb_temp_source_reconnect(). */
int sb_power_source_reconnect(struct sb_power_source *s, unsigned timeout_ms);

/* ---- cooling ---------------------------------------------------------------------------- */

#define SB_COOLING_MAX_FANS 4

struct sb_cooling_state {
	char name[SB_INSTRUMENT_NAME_MAX]; /* applied configuration */
	double fan_supply_v, fan_supply_a; /* backplane fans' supply (NAN: not known) */
	double fan_rpm;
	double desk_fan_distance_cm; /* 0: off (NAN: not known) */
	double cooling_power_w;
	/* Controllers with their own fans, sensors and fail-safe (rig:) also report these;
	 * others leave them zero (nfans 0, has_heatsink false). */
	unsigned nfans;
	double duty_pct[SB_COOLING_MAX_FANS], rpm[SB_COOLING_MAX_FANS];
	bool has_heatsink;
	double heatsink_c, ambient_c; /* thermocouples; NAN while one is faulty */
	bool failsafe;                /* the controller holds every fan at 100 % */
	unsigned faults;              /* latched faults (docs/rig-protocol.md) */
	unsigned faults_active;       /* ... whose condition is still present */
	char faults_text[96];         /* named, comma-separated; "" when none */
	uint64_t clock_ns;            /* the controller's own clock (its uptime) */
};

struct sb_cooling;

int sb_cooling_open(struct sb_cooling **out, const char *conn, struct sb_device *dev);
void sb_cooling_close(struct sb_cooling *c);
/* Apply a named configuration now. SB_ERR_NOT_FOUND (detail lists the names). */
int sb_cooling_apply(struct sb_cooling *c, const char *name);
int sb_cooling_status(struct sb_cooling *c, struct sb_cooling_state *st);
/* The configurations the actuator knows: count, and the name of the i-th. */
unsigned sb_cooling_count(const struct sb_cooling *c);
const char *sb_cooling_name(const struct sb_cooling *c, unsigned i);
/* What the i-th configuration sets (fans, cooling power), without applying it. SB_ERR_RANGE. */
int sb_cooling_describe(struct sb_cooling *c, unsigned i, struct sb_cooling_state *st);
const char *sb_cooling_driver(const struct sb_cooling *c);
/*
 * Leave a fail-safe: clear the controller's latched faults and put the applied configuration
 * back. SB_ERR_STATE (detail names them) while a fault's condition is still present,
 * SB_ERR_NOT_SUPPORTED for actuators without a fail-safe.
 */
int sb_cooling_recover(struct sb_cooling *c);

/*
 * Wait ns as both the bench and the cooling actuator count it: the bench clock advances
 * (sb_device_wait_ns), and if the actuator's own clock (clock_ns) moved less — a real rig next
 * to a simulated board — the rest is slept. Actuators without a clock: the bench wait alone.
 */
int sb_cooling_wait(struct sb_cooling *c, struct sb_device *dev, uint64_t ns);

/*
 * The settle criterion after a cooling change: the heatsink (the actuator's own sensor) moved
 * by at most tolerance_c over the last window_s, read every poll_s; max_s bounds the wait.
 * Times are the actuator's clock (the heatsink's physical time).
 */
struct sb_cooling_settle {
	double tolerance_c, window_s, max_s, poll_s; /* window_s 0: do not wait */
};

/* The criterion's defaults (campaigns' cooling_settle, point --settle). */
#define SB_COOLING_SETTLE_TOLERANCE_C 0.5
#define SB_COOLING_SETTLE_WINDOW_S 30.0
#define SB_COOLING_SETTLE_MAX_S 900.0
#define SB_COOLING_SETTLE_POLL_S 1.0

struct sb_cooling_settled {
	bool waited;       /* the actuator has a heatsink sensor and a window was asked */
	bool settled;      /* the criterion was met (else max_s passed: a warning) */
	double seconds;    /* waited, on the actuator's clock */
	double heatsink_c; /* last reading */
	double span_c;     /* max - min over the last window */
};

/* Wait until settled. Returns 0 (also when max_s passed: out->settled false, a warning),
 * SB_ERR_STATE if the actuator is or goes into its fail-safe, or an instrument error. */
int sb_cooling_settle(struct sb_cooling *c, struct sb_device *dev,
                      const struct sb_cooling_settle *crit, struct sb_cooling_settled *out);

/* ---- discovery -------------------------------------------------------------------------- */

/* An instrument found on this machine, with the connection string to open it with. */
struct sb_found_instrument {
	char kind[16];  /* "camera", "meter", "adapter", "supply", "sensor" */
	char what[96];  /* "FLIR One (09cb:1996) bus 1 address 5" */
	char conn[192]; /* "flirone:1:5"; "" when stackbench has no driver for it */
	char note[128]; /* serial number, permissions, what to do */
};

/*
 * Find what is attached: FLIR One (09cb:1996) and PureThermal (1e4e:0100) cameras by USB id,
 * FTDI adapters with their serial numbers (libftdi), serial nodes (dev_dir/ttyUSB*, ttyACM*),
 * USBTMC nodes (dev_dir/usbtmc*), the supplies a libsigrok scan finds, and the hwmon chips'
 * temperature and power features libsensors finds (a card's own sensors, "sensor" and "meter"
 * with their sensors: connection strings; a current and a voltage whose labels name the same
 * rail, "12v_pex_curr" and "12v_pex_vol", as one volts x amps meter). dev_dir is "/dev"
 * normally. Returns the count (at most max), never an error: a part that cannot be searched
 * (no USB here) is skipped and logged at debug level.
 */
int sb_instruments_discover(struct sb_found_instrument *out, unsigned max, const char *dev_dir,
                            bool sigrok_scan);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_INSTRUMENT_H */
