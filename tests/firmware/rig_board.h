/* SPDX-License-Identifier: MIT */
/*
 * The cooling rig's board around the real firmware ELF in simavr (libsimavr): two MAX31855
 * converters on the SPI bus answering scripted temperatures and faults (chip selects PC0, PC1),
 * two 4-pin fans whose tachometers (PD4, PD5) pulse at a speed that follows the PWM duty the
 * firmware drives (or a fixed speed, or not at all: a stalled fan), PWM duty and frequency
 * measured from the timer output pins (PB2, PD3; an undriven pin reads high, as the fan's
 * pull-up makes it), the UART bridged to byte queues, the EEPROM readable and writable.
 * Time is simulated: nothing here sleeps, so tests are deterministic and fast.
 */
#ifndef RIG_BOARD_H
#define RIG_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sb_rig_proto.h"

struct rig_board;

/* Load the ELF into a fresh ATmega328P at 16 MHz and hold it in reset state; NULL on error
 * (message on stderr). */
struct rig_board *rig_board_new(const char *elf);
void rig_board_free(struct rig_board *b);

/* Advance simulated time. Returns false if the core stopped (crashed or done). */
bool rig_board_run_us(struct rig_board *b, uint64_t us);
uint64_t rig_board_now_us(const struct rig_board *b);
/* External reset (the RESET pin); EEPROM is kept. */
void rig_board_reset(struct rig_board *b);

/* UART: bytes to the MCU (delivered at the line rate), bytes it sent. */
void rig_board_send(struct rig_board *b, const uint8_t *p, size_t n);
size_t rig_board_recv(struct rig_board *b, uint8_t *p, size_t cap);
size_t rig_board_pending(const struct rig_board *b); /* bytes sent by the MCU, not read */

/*
 * One request: encode (next sequence number), send, run until a whole response frame arrives
 * (at most timeout_us). Returns the response's status byte (>= 0) with the frame in *resp, or
 * -1 on timeout / a frame that is not the answer. *elapsed_us, if set, gets the round trip.
 */
int rig_board_request(struct rig_board *b, uint8_t cmd, const void *payload, uint8_t len,
                      struct sb_rig_frame *resp, uint64_t timeout_us);
/* Run until a whole frame arrives; 1 with it in *f, 0 on timeout. */
int rig_board_wait_frame(struct rig_board *b, struct sb_rig_frame *f, uint64_t timeout_us);

/* Thermocouples: a reading (temp_c, cold junction cj_c) with fault bits (enum sb_rig_tc_fault:
 * OPEN, SHORT_GND, SHORT_VCC set the MAX31855's bits; NO_ANSWER leaves MISO high), or a raw
 * 32-bit frame. */
void rig_board_set_tc(struct rig_board *b, unsigned sensor, double temp_c, double cj_c,
                      uint8_t fault);
void rig_board_set_tc_raw(struct rig_board *b, unsigned sensor, uint32_t raw);
uint32_t rig_board_max31855_frame(double temp_c, double cj_c, uint8_t fault);
/* Frames the firmware read from a sensor so far. */
unsigned rig_board_tc_reads(const struct rig_board *b, unsigned sensor);

/*
 * A heatsink that follows the fans: the heatsink sensor reads ambient + rise, where the rise
 * relaxes (time constant tau_s) towards rise_still_c at 0 % and rise_full_c at 100 % of the
 * fans' mean duty (fan 0 weighs 0.7, fan 1 0.3). The ambient sensor reads ambient_c.
 */
void rig_board_heatsink_model(struct rig_board *b, double ambient_c, double rise_still_c,
                              double rise_full_c, double tau_s);
double rig_board_heatsink_c(const struct rig_board *b);

/* Fans: rpm = max_rpm x duty (first-order, 0.3 s), or a fixed speed (fixed_rpm >= 0; 0 = no
 * pulses: a stalled fan); fixed_rpm < 0 returns to the duty-following model. */
void rig_board_fan(struct rig_board *b, unsigned fan, double max_rpm, double fixed_rpm);
double rig_board_fan_rpm(const struct rig_board *b, unsigned fan);

/* PWM measurement between a mark and now: duty (0..1) and frequency (rising edges / s). */
struct rig_pwm_mark {
	uint64_t cycle;
	uint64_t high[SB_RIG_FANS];
	uint64_t rises[SB_RIG_FANS];
};
void rig_board_pwm_mark(struct rig_board *b, struct rig_pwm_mark *m);
double rig_board_pwm_duty(struct rig_board *b, const struct rig_pwm_mark *m, unsigned fan);
double rig_board_pwm_hz(struct rig_board *b, const struct rig_pwm_mark *m, unsigned fan);
/* Since when (us) the fan's PWM line has been high without a break; UINT64_MAX if low now. */
uint64_t rig_board_high_since_us(const struct rig_board *b, unsigned fan);

/* EEPROM access (the whole 1 KiB). */
void rig_board_eeprom_read(struct rig_board *b, unsigned addr, uint8_t *p, size_t n);
void rig_board_eeprom_write(struct rig_board *b, unsigned addr, const uint8_t *p, size_t n);

/* Stack use: from now on the lowest stack pointer is tracked (slower); the peak depth in bytes
 * below RAMEND since. */
void rig_board_track_stack(struct rig_board *b);
unsigned rig_board_stack_peak(const struct rig_board *b);

/* Real-time pacing (for a host program on the pty): each run_us sleeps so that simulated time
 * does not run ahead of the monotonic clock. */
void rig_board_realtime(struct rig_board *b, bool on);

#endif /* RIG_BOARD_H */
