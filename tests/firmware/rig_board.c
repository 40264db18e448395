/* SPDX-License-Identifier: MIT */
/* The cooling rig's board around the firmware in simavr (rig_board.h). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "avr_eeprom.h"
#include "avr_extint.h"
#include "avr_ioport.h"
#include "avr_spi.h"
#include "avr_uart.h"
#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_irq.h"

#include "rig_board.h"

#define F_CPU 16000000u
#define CYCLES_PER_US (F_CPU / 1000000u)
#define FAN_TAU_S 0.3
#define MODEL_FAN0_WEIGHT 0.7

struct pwm_pin {
	int level;
	uint64_t last_edge, high_acc, rises, high_since;
};

struct fan {
	double max_rpm, fixed_rpm, rpm, phase;
	int level;
	uint64_t last;
	uint64_t high_at_last[SB_RIG_FANS];
};

struct sensor {
	double temp_c, cj_c;
	uint8_t fault;
	bool has_raw;
	uint32_t raw, latched;
	unsigned byte, reads;
	int cs;
};

struct pin_ctx {
	struct rig_board *b;
	unsigned i;
};

struct rig_board {
	avr_io_t io; /* our part of the board: its reset hook restarts the fans */
	avr_t *avr;
	elf_firmware_t fw;
	/* UART */
	avr_irq_t *uart_in;
	uint8_t *in, *out;
	size_t in_len, in_off, in_cap, out_len, out_off, out_cap;
	bool xon;
	uint8_t seq;
	struct sb_rig_decoder dec;
	/* SPI and sensors */
	avr_irq_t *spi_in;
	struct sensor tc[SB_RIG_SENSORS];
	/* fans */
	avr_irq_t *tach[SB_RIG_FANS];
	struct pwm_pin pwm[SB_RIG_FANS];
	struct fan fan[SB_RIG_FANS];
	struct pin_ctx ctx[SB_RIG_FANS + SB_RIG_SENSORS];
	/* heatsink model */
	bool model;
	double amb_c, rise_still_c, rise_full_c, tau_s, rise_c;
	uint64_t model_cycle, model_high[SB_RIG_FANS];
	/* stack */
	bool track_sp;
	uint16_t sp_min;
	/* real time */
	bool realtime;
	struct timespec rt0;
	uint64_t rt_cycle0;
};

static uint64_t now_cycle(const struct rig_board *b)
{
	return b->avr->cycle;
}

/* ---- PWM pins ---------------------------------------------------------------------------- */

/* Cycles the pin was high until now (never before its last edge: monotonic). */
static uint64_t pwm_high(const struct pwm_pin *p, uint64_t now)
{
	return p->high_acc + (p->level && now > p->last_edge ? now - p->last_edge : 0);
}

static void pwm_pin_changed(struct avr_irq_t *irq, uint32_t value, void *param)
{
	struct pin_ctx *c = param;
	struct pwm_pin *p = &c->b->pwm[c->i];
	uint64_t now = now_cycle(c->b);
	int level = (value & 0xff) != 0;

	(void)irq;
	if (level == p->level)
		return;
	if (p->level)
		p->high_acc += now - p->last_edge;
	else {
		p->rises++;
		p->high_since = now;
	}
	p->level = level;
	p->last_edge = now;
}

void rig_board_pwm_mark(struct rig_board *b, struct rig_pwm_mark *m)
{
	m->cycle = now_cycle(b);
	for (unsigned i = 0; i < SB_RIG_FANS; i++) {
		m->high[i] = pwm_high(&b->pwm[i], m->cycle);
		m->rises[i] = b->pwm[i].rises;
	}
}

double rig_board_pwm_duty(struct rig_board *b, const struct rig_pwm_mark *m, unsigned fan)
{
	uint64_t now = now_cycle(b);

	if (now == m->cycle)
		return b->pwm[fan].level;
	return (double)(pwm_high(&b->pwm[fan], now) - m->high[fan]) / (double)(now - m->cycle);
}

double rig_board_pwm_hz(struct rig_board *b, const struct rig_pwm_mark *m, unsigned fan)
{
	uint64_t now = now_cycle(b);

	if (now == m->cycle)
		return 0;
	return (double)(b->pwm[fan].rises - m->rises[fan]) * F_CPU / (double)(now - m->cycle);
}

uint64_t rig_board_high_since_us(const struct rig_board *b, unsigned fan)
{
	return b->pwm[fan].level ? b->pwm[fan].high_since / CYCLES_PER_US : UINT64_MAX;
}

/* Mean duty of a fan since a cycle whose high total was high0. */
static double duty_since(struct rig_board *b, unsigned fan, uint64_t cycle0, uint64_t high0,
                         uint64_t now)
{
	if (now <= cycle0)
		return b->pwm[fan].level;
	return (double)(pwm_high(&b->pwm[fan], now) - high0) / (double)(now - cycle0);
}

/* ---- fans -------------------------------------------------------------------------------- */

/*
 * The fan model, every millisecond and at each tachometer level change: the speed follows the
 * duty, the phase (in quarter turns of the tachometer: two pulses per revolution, four level
 * changes) advances with it, and the next level change is scheduled at its exact cycle.
 */
static avr_cycle_count_t tach_tick(struct avr_t *avr, avr_cycle_count_t when, void *param)
{
	struct pin_ctx *c = param;
	struct rig_board *b = c->b;
	struct fan *f = &b->fan[c->i];
	double dt_s, rate, left;
	avr_cycle_count_t ms = F_CPU / 1000;

	/* simavr runs a timer at or after its cycle: account from the real one. */
	when = avr->cycle > when ? avr->cycle : when;
	dt_s = (double)(when - f->last) / F_CPU;
	f->phase += f->rpm * 4.0 / 60.0 * dt_s;
	if (f->fixed_rpm >= 0) {
		f->rpm = f->fixed_rpm;
	} else {
		double target =
		    f->max_rpm * duty_since(b, c->i, f->last, f->high_at_last[c->i], when);

		f->rpm += (target - f->rpm) * (1 - exp(-dt_s / FAN_TAU_S));
	}
	f->last = when;
	for (unsigned i = 0; i < SB_RIG_FANS; i++)
		f->high_at_last[i] = pwm_high(&b->pwm[i], when);
	if (f->phase >= 1 - 1e-9) {
		f->level = !f->level;
		avr_raise_irq(b->tach[c->i], (uint32_t)f->level);
		f->phase = f->phase >= 2 ? 0 : fmax(f->phase - 1, 0);
	}
	rate = f->rpm * 4.0 / 60.0 * (1.0 / F_CPU); /* quarter turns per cycle */
	if (rate <= 0)
		return when + ms;
	left = ceil((1 - f->phase) / rate);
	return when + (left < (double)ms ? (avr_cycle_count_t)fmax(left, 1) : ms);
}

void rig_board_fan(struct rig_board *b, unsigned fan, double max_rpm, double fixed_rpm)
{
	b->fan[fan].max_rpm = max_rpm;
	b->fan[fan].fixed_rpm = fixed_rpm;
}

double rig_board_fan_rpm(const struct rig_board *b, unsigned fan)
{
	return b->fan[fan].rpm;
}

/* ---- thermocouples ---------------------------------------------------------------------- */

uint32_t rig_board_max31855_frame(double temp_c, double cj_c, uint8_t fault)
{
	int32_t tc = (int32_t)lround(temp_c * 4), cj = (int32_t)lround(cj_c * 16);
	uint32_t v = ((uint32_t)tc & 0x3FFFu) << 18 | ((uint32_t)cj & 0xFFFu) << 4;

	if (fault & SB_RIG_TC_NO_ANSWER)
		return 0xFFFFFFFFu; /* nobody drives MISO: it floats high */
	if (fault & SB_RIG_TC_OPEN)
		v |= 1u;
	if (fault & SB_RIG_TC_SHORT_GND)
		v |= 2u;
	if (fault & SB_RIG_TC_SHORT_VCC)
		v |= 4u;
	if (fault)
		v |= 1u << 16;
	return v;
}

static void model_update(struct rig_board *b, uint64_t now)
{
	double dt_s = (double)(now - b->model_cycle) / F_CPU, d, target;

	if (!b->model || now <= b->model_cycle)
		return;
	d = MODEL_FAN0_WEIGHT * duty_since(b, 0, b->model_cycle, b->model_high[0], now) +
	    (1 - MODEL_FAN0_WEIGHT) * duty_since(b, 1, b->model_cycle, b->model_high[1], now);
	target = b->rise_full_c + (b->rise_still_c - b->rise_full_c) * (1 - d);
	b->rise_c += (target - b->rise_c) * (1 - exp(-dt_s / b->tau_s));
	b->model_cycle = now;
	for (unsigned i = 0; i < SB_RIG_FANS; i++)
		b->model_high[i] = pwm_high(&b->pwm[i], now);
}

static void cs_changed(struct avr_irq_t *irq, uint32_t value, void *param)
{
	struct pin_ctx *c = param;
	struct rig_board *b = c->b;
	struct sensor *s = &b->tc[c->i - SB_RIG_FANS];
	unsigned i = c->i - SB_RIG_FANS;
	int level = (value & 0xff) != 0;

	(void)irq;
	if (level == s->cs)
		return;
	s->cs = level;
	if (level)
		return;
	/* Selected: the converter latches its last conversion. */
	if (i == SB_RIG_SENSOR_HEATSINK && b->model) {
		model_update(b, now_cycle(b));
		s->temp_c = b->amb_c + b->rise_c;
	}
	s->latched = s->has_raw ? s->raw : rig_board_max31855_frame(s->temp_c, s->cj_c, s->fault);
	s->byte = 0;
	s->reads++;
}

static void spi_out(struct avr_irq_t *irq, uint32_t value, void *param)
{
	struct rig_board *b = param;
	uint8_t v = 0xFF; /* nobody selected: MISO floats high */

	(void)irq;
	(void)value;
	for (unsigned i = 0; i < SB_RIG_SENSORS; i++) {
		struct sensor *s = &b->tc[i];

		if (s->cs)
			continue;
		v &= s->byte < 4 ? (uint8_t)(s->latched >> (24 - 8 * s->byte)) : 0;
		s->byte++;
	}
	avr_raise_irq(b->spi_in, v);
}

void rig_board_set_tc(struct rig_board *b, unsigned sensor, double temp_c, double cj_c,
                      uint8_t fault)
{
	b->tc[sensor].temp_c = temp_c;
	b->tc[sensor].cj_c = cj_c;
	b->tc[sensor].fault = fault;
	b->tc[sensor].has_raw = false;
	if (sensor == SB_RIG_SENSOR_HEATSINK)
		b->model = false;
}

void rig_board_set_tc_raw(struct rig_board *b, unsigned sensor, uint32_t raw)
{
	b->tc[sensor].raw = raw;
	b->tc[sensor].has_raw = true;
}

unsigned rig_board_tc_reads(const struct rig_board *b, unsigned sensor)
{
	return b->tc[sensor].reads;
}

void rig_board_heatsink_model(struct rig_board *b, double ambient_c, double rise_still_c,
                              double rise_full_c, double tau_s)
{
	b->model = true;
	b->amb_c = ambient_c;
	b->rise_still_c = rise_still_c;
	b->rise_full_c = rise_full_c;
	b->tau_s = tau_s > 0 ? tau_s : 1e-3;
	b->rise_c = rise_full_c;
	b->model_cycle = now_cycle(b);
	for (unsigned i = 0; i < SB_RIG_FANS; i++)
		b->model_high[i] = pwm_high(&b->pwm[i], b->model_cycle);
	b->tc[SB_RIG_SENSOR_HEATSINK].temp_c = ambient_c + rise_full_c;
	b->tc[SB_RIG_SENSOR_AMBIENT].temp_c = ambient_c;
	for (unsigned i = 0; i < SB_RIG_SENSORS; i++)
		b->tc[i].cj_c = ambient_c;
}

double rig_board_heatsink_c(const struct rig_board *b)
{
	return b->model ? b->amb_c + b->rise_c : b->tc[SB_RIG_SENSOR_HEATSINK].temp_c;
}

/* ---- UART -------------------------------------------------------------------------------- */

static void uart_push(struct rig_board *b)
{
	while (b->xon && b->in_off < b->in_len)
		avr_raise_irq(b->uart_in, b->in[b->in_off++]);
	if (b->in_off == b->in_len)
		b->in_off = b->in_len = 0;
}

static void uart_xon(struct avr_irq_t *irq, uint32_t value, void *param)
{
	struct rig_board *b = param;

	(void)irq;
	(void)value;
	b->xon = true;
	uart_push(b);
}

static void uart_xoff(struct avr_irq_t *irq, uint32_t value, void *param)
{
	struct rig_board *b = param;

	(void)irq;
	if (value)
		b->xon = false;
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *n;
	size_t c = *cap ? *cap : 256;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	n = realloc(*buf, c);
	if (!n)
		return -1;
	*buf = n;
	*cap = c;
	return 0;
}

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param)
{
	struct rig_board *b = param;

	(void)irq;
	if (grow(&b->out, &b->out_cap, b->out_len + 1) < 0)
		return;
	b->out[b->out_len++] = (uint8_t)value;
}

void rig_board_send(struct rig_board *b, const uint8_t *p, size_t n)
{
	if (!n || grow(&b->in, &b->in_cap, b->in_len + n) < 0)
		return;
	memcpy(b->in + b->in_len, p, n);
	b->in_len += n;
	uart_push(b);
}

size_t rig_board_recv(struct rig_board *b, uint8_t *p, size_t cap)
{
	size_t n = b->out_len - b->out_off;

	if (!n)
		return 0;
	if (n > cap)
		n = cap;
	memcpy(p, b->out + b->out_off, n);
	b->out_off += n;
	if (b->out_off == b->out_len)
		b->out_off = b->out_len = 0;
	return n;
}

size_t rig_board_pending(const struct rig_board *b)
{
	return b->out_len - b->out_off;
}

int rig_board_wait_frame(struct rig_board *b, struct sb_rig_frame *f, uint64_t timeout_us)
{
	uint64_t end = rig_board_now_us(b) + timeout_us;

	for (;;) {
		uint8_t c;

		while (rig_board_recv(b, &c, 1) == 1) {
			enum sb_rig_decode_result r = sb_rig_decode_byte(&b->dec, c, f);

			if (r == SB_RIG_DEC_FRAME)
				return 1;
		}
		if (rig_board_now_us(b) >= end || !rig_board_run_us(b, 50))
			return 0;
	}
}

int rig_board_request(struct rig_board *b, uint8_t cmd, const void *payload, uint8_t len,
                      struct sb_rig_frame *resp, uint64_t timeout_us)
{
	uint8_t buf[SB_RIG_MAX_FRAME];
	uint8_t seq = ++b->seq;
	size_t n = sb_rig_encode(buf, sizeof(buf), seq, cmd, payload, len);

	if (!n)
		return -1;
	rig_board_send(b, buf, n);
	if (!rig_board_wait_frame(b, resp, timeout_us))
		return -1;
	if (resp->seq != seq || resp->cmd != (cmd | SB_RIG_RESPONSE) || resp->len < 1)
		return -1;
	return resp->payload[0];
}

/* ---- EEPROM ------------------------------------------------------------------------------ */

void rig_board_eeprom_read(struct rig_board *b, unsigned addr, uint8_t *p, size_t n)
{
	avr_eeprom_desc_t d = {.ee = p, .offset = (uint16_t)addr, .size = (uint32_t)n};

	avr_ioctl(b->avr, AVR_IOCTL_EEPROM_GET, &d); /* returns -1 even when it worked */
}

void rig_board_eeprom_write(struct rig_board *b, unsigned addr, const uint8_t *p, size_t n)
{
	avr_eeprom_desc_t d = {.ee = (uint8_t *)p, .offset = (uint16_t)addr, .size = (uint32_t)n};

	avr_ioctl(b->avr, AVR_IOCTL_EEPROM_SET, &d);
}

/* ---- the core ---------------------------------------------------------------------------- */

static void no_sleep(avr_t *avr, avr_cycle_count_t how_long)
{
	(void)avr;
	(void)how_long;
}

static void quiet_logger(avr_t *avr, const int level, const char *fmt, va_list ap)
{
	if (level > LOG_ERROR || (avr && level > avr->log))
		return;
	fputs("simavr: ", stderr);
	vfprintf(stderr, fmt, ap);
}

static avr_irq_t *pin_irq(struct rig_board *b, char port, int pin)
{
	return avr_io_getirq(b->avr, AVR_IOCTL_IOPORT_GETIRQ(port), pin);
}

/* The board after any reset of the MCU (power-up, the RESET pin, the watchdog): simavr
 * cancelled every cycle timer; the pins are inputs. */
static void start_board(struct rig_board *b)
{
	/* The fans' PWM lines have pull-ups on the fan side: undriven, they read high. */
	avr_ioport_external_t pb = {.name = 'B', .mask = 1 << 2, .value = 1 << 2};
	avr_ioport_external_t pd = {.name = 'D', .mask = 1 << 3, .value = 1 << 3};

	avr_ioctl(b->avr, AVR_IOCTL_IOPORT_SET_EXTERNAL('B'), &pb);
	avr_ioctl(b->avr, AVR_IOCTL_IOPORT_SET_EXTERNAL('D'), &pd);
	for (unsigned i = 0; i < SB_RIG_FANS; i++) {
		b->fan[i].last = now_cycle(b);
		for (unsigned j = 0; j < SB_RIG_FANS; j++)
			b->fan[i].high_at_last[j] = pwm_high(&b->pwm[j], now_cycle(b));
		avr_raise_irq(b->tach[i], (uint32_t)b->fan[i].level);
		avr_cycle_timer_register(b->avr, F_CPU / 1000, tach_tick, &b->ctx[i]);
	}
	for (unsigned i = 0; i < SB_RIG_SENSORS; i++)
		b->tc[i].cs = 1;
	b->xon = false;
}

static void board_reset_hook(avr_io_t *io)
{
	struct rig_board *b = (struct rig_board *)((char *)io - offsetof(struct rig_board, io));

	for (unsigned i = 0; i < SB_RIG_FANS; i++)
		if (!b->pwm[i].level)
			pwm_pin_changed(NULL, 1, &b->ctx[i]);
	start_board(b);
}

struct rig_board *rig_board_new(const char *elf)
{
	struct rig_board *b = calloc(1, sizeof(*b));
	uint32_t flags = 0;

	if (!b)
		return NULL;
	avr_global_logger_set(quiet_logger);
	if (elf_read_firmware(elf, &b->fw) != 0) {
		fprintf(stderr, "rig_board: cannot read the firmware '%s': %s\n", elf,
		        strerror(errno));
		free(b);
		return NULL;
	}
	b->avr = avr_make_mcu_by_name("atmega328p");
	if (!b->avr) {
		fprintf(stderr, "rig_board: simavr has no atmega328p\n");
		free(b);
		return NULL;
	}
	avr_init(b->avr);
	b->avr->log = LOG_ERROR;
	b->fw.frequency = F_CPU;
	avr_load_firmware(b->avr, &b->fw);
	b->avr->sleep = no_sleep;

	for (unsigned i = 0; i < SB_RIG_FANS + SB_RIG_SENSORS; i++)
		b->ctx[i] = (struct pin_ctx){b, i};
	avr_irq_register_notify(pin_irq(b, 'B', 2), pwm_pin_changed, &b->ctx[0]);
	avr_irq_register_notify(pin_irq(b, 'D', 3), pwm_pin_changed, &b->ctx[1]);
	b->tach[0] = pin_irq(b, 'D', 4);
	b->tach[1] = pin_irq(b, 'D', 5);
	avr_irq_register_notify(pin_irq(b, 'C', 0), cs_changed, &b->ctx[SB_RIG_FANS + 0]);
	avr_irq_register_notify(pin_irq(b, 'C', 1), cs_changed, &b->ctx[SB_RIG_FANS + 1]);

	b->spi_in = avr_io_getirq(b->avr, AVR_IOCTL_SPI_GETIRQ(0), SPI_IRQ_INPUT);
	avr_irq_register_notify(avr_io_getirq(b->avr, AVR_IOCTL_SPI_GETIRQ(0), SPI_IRQ_OUTPUT),
	                        spi_out, b);

	/* INT1 shares PD3 with fan 1's PWM; the firmware leaves it disabled, but in its default
	 * low-level mode simavr would poll the pin every cycle while the PWM is low. */
	for (uint8_t i = 0; i < 2; i++)
		avr_extint_set_strict_lvl_trig(b->avr, i, 0);
	avr_ioctl(b->avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags); /* no stdio echo, no usleep */
	b->uart_in = avr_io_getirq(b->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
	avr_irq_register_notify(avr_io_getirq(b->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
	                        uart_out, b);
	avr_irq_register_notify(avr_io_getirq(b->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
	                        uart_xon, b);
	avr_irq_register_notify(
	    avr_io_getirq(b->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF), uart_xoff, b);

	for (unsigned i = 0; i < SB_RIG_FANS; i++)
		rig_board_fan(b, i, 3000, -1);
	for (unsigned i = 0; i < SB_RIG_SENSORS; i++)
		rig_board_set_tc(b, i, 25.0, 25.0, 0);
	sb_rig_decoder_init(&b->dec);
	b->pwm[0].level = b->pwm[1].level = 1;
	start_board(b);
	b->io.kind = "rig-board";
	b->io.reset = board_reset_hook;
	avr_register_io(b->avr, &b->io);
	return b;
}

void rig_board_free(struct rig_board *b)
{
	if (!b)
		return;
	avr_terminate(b->avr);
	free(b->avr);
	free(b->fw.flash);
	free(b->fw.eeprom);
	free(b->fw.fuse);
	free(b->fw.lockbits);
#if ELF_SYMBOLS
	for (uint32_t i = 0; i < b->fw.symbolcount; i++)
		free(b->fw.symbol[i]);
	free(b->fw.symbol);
#endif
	free(b->in);
	free(b->out);
	free(b);
}

uint64_t rig_board_now_us(const struct rig_board *b)
{
	return now_cycle(b) / CYCLES_PER_US;
}

void rig_board_reset(struct rig_board *b)
{
	avr_reset(b->avr); /* calls board_reset_hook */
	b->in_off = b->in_len = 0;
	sb_rig_decoder_init(&b->dec);
}

void rig_board_track_stack(struct rig_board *b)
{
	b->track_sp = true;
	b->sp_min = UINT16_MAX;
}

unsigned rig_board_stack_peak(const struct rig_board *b)
{
	return b->track_sp && b->sp_min != UINT16_MAX ? b->avr->ramend - b->sp_min : 0;
}

void rig_board_realtime(struct rig_board *b, bool on)
{
	b->realtime = on;
	clock_gettime(CLOCK_MONOTONIC, &b->rt0);
	b->rt_cycle0 = now_cycle(b);
}

/* Keep simulated time at most level with the monotonic clock. A simulation that fell behind
 * (a loaded machine) does not race to catch up — a burst of simulated time with no host frames
 * in it would be a host silence the host never made: the lag beyond 20 ms is forgiven. */
static void pace(struct rig_board *b)
{
	struct timespec now;
	double ahead_s;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ahead_s =
	    (double)(now_cycle(b) - b->rt_cycle0) / F_CPU -
	    ((double)(now.tv_sec - b->rt0.tv_sec) + (double)(now.tv_nsec - b->rt0.tv_nsec) * 1e-9);
	if (ahead_s < -0.02) {
		b->rt_cycle0 = now_cycle(b);
		b->rt0 = now;
		b->rt0.tv_nsec -= 20000000;
		if (b->rt0.tv_nsec < 0) {
			b->rt0.tv_nsec += 1000000000;
			b->rt0.tv_sec--;
		}
	}
	if (ahead_s > 0) {
		struct timespec d = {(time_t)ahead_s, (long)((ahead_s - floor(ahead_s)) * 1e9)};

		nanosleep(&d, NULL);
	}
}

bool rig_board_run_us(struct rig_board *b, uint64_t us)
{
	uint64_t end = now_cycle(b) + us * CYCLES_PER_US;

	while (now_cycle(b) < end) {
		int st = avr_run(b->avr);

		if (st == cpu_Done || st == cpu_Crashed)
			return false;
		if (b->track_sp) {
			uint16_t sp = (uint16_t)(b->avr->data[R_SPL] | b->avr->data[R_SPH] << 8);

			if (sp < b->sp_min)
				b->sp_min = sp;
		}
	}
	if (b->realtime)
		pace(b);
	return true;
}
