/* SPDX-License-Identifier: MIT */
/* The cooling rig's peripherals: tick, fan PWM, tachometers, SPI thermocouples, UART (hw.h). */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <util/atomic.h>
#include <util/delay.h>

#include "hw.h"

#define FAN0_TOP 639u /* 16 MHz / 640 = 25 kHz */
#define FAN1_TOP 79u  /* 16 MHz / 8 / 80 = 25 kHz */
#define TACH_MASK (_BV(PD4) | _BV(PD5))
#define CS_MASK (_BV(PC0) | _BV(PC1))

#define RX_SIZE 64 /* powers of two */
#define TX_SIZE 128

static volatile uint32_t ms;
static volatile uint16_t tach_edges[SB_RIG_FANS];
static volatile uint32_t tach_last[SB_RIG_FANS];
static volatile uint8_t tach_prev;

static volatile uint8_t rx_buf[RX_SIZE], tx_buf[TX_SIZE];
static volatile uint8_t rx_head, rx_tail, tx_head, tx_tail;
static volatile uint32_t rx_last_ms;

/* MCUSR, saved and cleared before anything else runs, with the watchdog stopped: after a
 * watchdog reset it would otherwise fire again at its shortest period during start-up. */
static uint8_t reset_cause __attribute__((section(".noinit")));

void save_reset_cause(void) __attribute__((naked, used, section(".init3")));
void save_reset_cause(void)
{
	reset_cause = MCUSR;
	MCUSR = 0;
	wdt_disable();
}

uint8_t hw_reset_cause(void)
{
	return reset_cause;
}

ISR(TIMER0_COMPA_vect)
{
	ms++;
}

ISR(PCINT2_vect)
{
	uint8_t pins = PIND, falling = (uint8_t)(tach_prev & ~pins) & TACH_MASK;

	tach_prev = pins;
	if (falling & _BV(PD4)) {
		tach_edges[0]++;
		tach_last[0] = ms;
	}
	if (falling & _BV(PD5)) {
		tach_edges[1]++;
		tach_last[1] = ms;
	}
}

ISR(USART_RX_vect)
{
	uint8_t c = UDR0, next = (uint8_t)((rx_head + 1) & (RX_SIZE - 1));

	rx_last_ms = ms;
	if (next != rx_tail) { /* full: the byte is lost; the frame's CRC will say so */
		rx_buf[rx_head] = c;
		rx_head = next;
	}
}

ISR(USART_UDRE_vect)
{
	if (tx_head == tx_tail) {
		UCSR0B &= (uint8_t)~_BV(UDRIE0);
		return;
	}
	UDR0 = tx_buf[tx_tail];
	tx_tail = (uint8_t)((tx_tail + 1) & (TX_SIZE - 1));
}

void hw_init(void)
{
	/* Fans first, at 100 %: both outputs driven high before anything else. */
	PORTB |= _BV(PB2);
	DDRB |= _BV(PB2) | _BV(PB3) | _BV(PB5);
	PORTD |= _BV(PD3) | TACH_MASK; /* PWM high; pull-ups on the tachometer inputs */
	DDRD |= _BV(PD3) | _BV(PD1);
	PORTC |= CS_MASK;
	DDRC |= CS_MASK;

	/* Timer1, mode 15: fast PWM with TOP in OCR1A; OC1B starts disconnected (forced high). */
	OCR1A = FAN0_TOP;
	OCR1B = FAN0_TOP;
	TCCR1A = _BV(WGM11) | _BV(WGM10);
	TCCR1B = _BV(WGM13) | _BV(WGM12) | _BV(CS10);
	/* Timer2, mode 7: fast PWM with TOP in OCR2A, clk/8. */
	OCR2A = FAN1_TOP;
	OCR2B = FAN1_TOP;
	TCCR2A = _BV(WGM21) | _BV(WGM20);
	TCCR2B = _BV(WGM22) | _BV(CS21);
	/* Timer0: 1 kHz tick. */
	OCR0A = 249;
	TCCR0A = _BV(WGM01);
	TCCR0B = _BV(CS01) | _BV(CS00);
	TIMSK0 = _BV(OCIE0A);

	/* Tachometers: pin change on PD4, PD5. */
	tach_prev = PIND;
	PCMSK2 = TACH_MASK;
	PCICR = _BV(PCIE2);

	/* SPI master, mode 0, clk/16. */
	SPCR = _BV(SPE) | _BV(MSTR) | _BV(SPR0);

	/* USART0: 500000 baud with U2X (UBRR = 16e6 / (8 * 500000) - 1 = 3), 8N1. */
	UBRR0H = 0;
	UBRR0L = 3;
	UCSR0A = _BV(U2X0);
	UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
	UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
}

uint32_t hw_millis(void)
{
	uint32_t v;

	ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
	{
		v = ms;
	}
	return v;
}

uint16_t hw_fan_set(uint8_t fan, uint16_t duty_pm)
{
	uint16_t top = fan ? FAN1_TOP : FAN0_TOP;
	uint16_t steps = top + 1;
	uint16_t ticks =
	    (uint16_t)(((uint32_t)duty_pm * steps + SB_RIG_DUTY_MAX / 2) / SB_RIG_DUTY_MAX);

	if (ticks > steps)
		ticks = steps;
	/* 0 and 100 %: the compare output is disconnected and the pin driven (no glitch); in
	 * between, non-inverting PWM: high for OCR + 1 timer clocks of TOP + 1. COMnB1:0 are bits
	 * 5:4 of TCCR1A and of TCCR2A alike. */
	volatile uint8_t *tccra = fan ? &TCCR2A : &TCCR1A;
	volatile uint8_t *port = fan ? &PORTD : &PORTB;
	uint8_t pin = fan ? _BV(PD3) : _BV(PB2);

	if (ticks == 0 || ticks == steps) {
		*tccra &= (uint8_t) ~(_BV(COM1B1) | _BV(COM1B0));
		if (ticks)
			*port |= pin;
		else
			*port &= (uint8_t)~pin;
	} else {
		if (fan)
			OCR2B = (uint8_t)(ticks - 1);
		else
			OCR1B = ticks - 1;
		*tccra |= _BV(COM1B1);
	}
	return (uint16_t)(((uint32_t)ticks * SB_RIG_DUTY_MAX + steps / 2) / steps);
}

void hw_tach(uint8_t fan, uint16_t *edges, uint32_t *last_ms)
{
	ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
	{
		*edges = tach_edges[fan];
		*last_ms = tach_last[fan];
	}
}

static uint8_t spi_byte(void)
{
	SPDR = 0;
	while (!(SPSR & _BV(SPIF)))
		;
	return SPDR;
}

uint32_t hw_tc_read(uint8_t sensor)
{
	uint8_t cs = sensor ? _BV(PC1) : _BV(PC0);
	uint32_t v = 0;

	PORTC &= (uint8_t)~cs;
	for (uint8_t i = 0; i < 4; i++)
		v = v << 8 | spi_byte();
	PORTC |= cs;
	return v;
}

int16_t hw_uart_getc(void)
{
	uint8_t c;

	if (rx_head == rx_tail)
		return -1;
	c = rx_buf[rx_tail];
	rx_tail = (uint8_t)((rx_tail + 1) & (RX_SIZE - 1));
	return c;
}

void hw_uart_write(const uint8_t *p, uint8_t n)
{
	while (n--) {
		uint8_t next = (uint8_t)((tx_head + 1) & (TX_SIZE - 1));

		while (next == tx_tail) /* full: wait for the interrupt to make room */
			wdt_reset();
		tx_buf[tx_head] = *p++;
		tx_head = next;
		UCSR0B |= _BV(UDRIE0);
	}
}

void hw_uart_drain(void)
{
	while (tx_head != tx_tail)
		;
	_delay_us(50); /* the last byte in UDR0 and the shift register: 2 x 20 us */
}

uint32_t hw_uart_quiet_ms(void)
{
	uint32_t v = 0;

	ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
	{
		if (rx_head == rx_tail)
			v = ms - rx_last_ms;
	}
	return v;
}

void hw_idle(void)
{
	cli();
	if (rx_head == rx_tail) {
		set_sleep_mode(SLEEP_MODE_IDLE);
		sleep_enable();
		sei();
		sleep_cpu();
		sleep_disable();
	}
	sei();
}
