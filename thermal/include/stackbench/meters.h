/* SPDX-License-Identifier: MIT */
/*
 * Power meters: the pure protocol parts (bytes in, structs out; no I/O).
 *
 * Watts up? PRO: commands "#C,S,N[,args];"; with external logging on ("#L,W,3,E,,1;") the meter
 * sends one record a second: "#d,-,18,W,V,mA,Wh,cost,mo-kWh,mo-cost,maxW,maxV,maxmA,minW,minV,
 * minmA,PF,duty,power-cycle,Hz,VA;". Amps fields are in mA, PF and duty as they are, every
 * other field in tenths. A field the meter does not fill is "_" (NAN here), except W.
 *
 * Yokogawa WT310 (SCPI): ":NUM:NORM:VAL?" answers the numeric items as comma-separated ASCII
 * numbers; "NAN" / "INF" (or 9.91E+37, the instrument's "no data") mark items without a value.
 */
#ifndef STACKBENCH_METERS_H
#define STACKBENCH_METERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SB_WATTSUP_FIELDS 18
#define SB_WATTSUP_LINE_MAX 256

struct sb_wattsup_record {
	double power_w, volts, amps, energy_wh, cost, month_kwh, month_cost;
	double max_w, max_v, max_a, min_w, min_v, min_a;
	double power_factor, duty_cycle, power_cycle, freq_hz, va;
};

/*
 * Parse one record, from '#' to ';' inclusive. Returns 0, or SB_ERR_PARSE (not a data record,
 * wrong field count, a field that is not a number; the detail names the field).
 */
int sb_wattsup_parse(const char *rec, size_t len, struct sb_wattsup_record *r);

/* Records out of a byte stream: a '#' starts a record, ';' ends it; other bytes are noise. */
struct sb_wattsup_lines {
	char buf[SB_WATTSUP_LINE_MAX];
	size_t len;
	bool in_record;
	uint64_t records, bad_records, partial, noise_bytes;
};

void sb_wattsup_lines_init(struct sb_wattsup_lines *l);

/*
 * Feed bytes; for every complete data record call fn (a record that does not parse is counted
 * in bad_records; other messages, such as replies to commands, are passed to fn only when they
 * are data records). Returns the number of data records delivered.
 */
int sb_wattsup_feed(struct sb_wattsup_lines *l, const uint8_t *data, size_t len,
                    void (*fn)(void *ctx, const struct sb_wattsup_record *r), void *ctx);

/*
 * Parse an ASCII list of numbers (a SCPI answer, ending at len or a newline). Each value goes
 * to vals[i] (NAN for NAN / INF / 9.91E+37); returns the count, or SB_ERR_PARSE naming the item.
 */
int sb_scpi_parse_numbers(const char *text, size_t len, double *vals, unsigned max);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_METERS_H */
