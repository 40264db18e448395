/* SPDX-License-Identifier: MIT */
/*
 * The cooling rig's hardware on an ATmega328P at 16 MHz (firmware/README.md has the wiring):
 *
 *   fan 0 PWM   PB2 / OC1B   Timer1 mode 15 (fast PWM, TOP = OCR1A = 639): 25 kHz, 640 steps
 *   fan 1 PWM   PD3 / OC2B   Timer2 mode 7 (fast PWM, TOP = OCR2A = 79, clk/8): 25 kHz, 80 steps
 *   fan 0 tach  PD4 / PCINT20   open collector, internal pull-up, 2 pulses per revolution
 *   fan 1 tach  PD5 / PCINT21
 *   MAX31855    SPI master (SCK PB5, MISO PB4, MOSI PB3 unused), clk/16 = 1 MHz, mode 0;
 *               chip selects PC0 (heatsink) and PC1 (ambient), active low
 *   host        USART0 (RXD PD0, TXD PD1) 500000 baud 8N1 to the FT232R
 *   tick        Timer0 CTC, clk/64, OCR0A = 249: 1 kHz
 *
 * A PWM output drives the fan's PWM line through a non-inverting open-drain buffer: high (or
 * undriven, during a reset) lets the fan's pull-up through, which 4-pin fans read as 100 %.
 */
#ifndef RIG_HW_H
#define RIG_HW_H

#include <stdint.h>

#include "sb_rig_proto.h"

void hw_init(void);

/* Milliseconds since reset (Timer0). */
uint32_t hw_millis(void);

/* Drive a fan; returns the duty really driven, per mille (quantized to the timer's steps). */
uint16_t hw_fan_set(uint8_t fan, uint16_t duty_pm);

/* Tachometer: falling edges counted so far and the time of the last one (ms). */
void hw_tach(uint8_t fan, uint16_t *edges, uint32_t *last_ms);

/* One MAX31855 frame (32 bits, MSB first) from sensor i. */
uint32_t hw_tc_read(uint8_t sensor);

/* UART: next received byte (0..255), or -1 when none; queue bytes to send. */
int16_t hw_uart_getc(void);
void hw_uart_write(const uint8_t *p, uint8_t n);
/* Wait until everything queued has left the shift register. */
void hw_uart_drain(void);
/* Milliseconds since the last received byte; 0 while received bytes wait to be read. */
uint32_t hw_uart_quiet_ms(void);

/* The reset cause saved before main() (MCUSR). */
uint8_t hw_reset_cause(void);

/* Sleep (idle) until the next interrupt unless a byte is waiting. */
void hw_idle(void);

#endif /* RIG_HW_H */
