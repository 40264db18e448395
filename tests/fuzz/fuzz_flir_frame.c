/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: FLIR One bulk transfers. The input is cut into transfers (a little-endian
 * u16 length minus one, then that many bytes, repeated) and fed to the stream assembler; every frame it delivers is
 * split, its thermal block decoded and converted, its status parsed.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "stackbench/flir.h"
#include "stackbench/radiometry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sb_raw_image raw;
	static struct sb_thermal_image img;
	static struct sb_flir_stream s;
	static int ready;
	struct sb_planck p;
	size_t off = 0;

	if (!ready) {
		if (sb_flir_stream_init(&s) < 0)
			return 0;
		ready = 1;
	}
	sb_planck_default(&p);
	s.len = s.need = 0;
	s.in_frame = s.delivered = false;
	s.skip = 0;
	while (off < size) {
		size_t n;

		if (size - off < 2)
			break;
		n = (size_t)(data[off] | data[off + 1] << 8) + 1;
		off += 2;
		struct sb_flir_frame f;
		struct sb_flir_status st;
		struct sb_hotspot hs;
		struct sb_roi all = {0, 0, 0, 0};

		if (n > size - off)
			n = size - off;
		if (sb_flir_stream_push(&s, data + off, n, &f) == 1) {
			if (sb_flir_decode_thermal(f.thermal, f.thermal_len, &raw) == 0) {
				sb_thermal_from_raw(&raw, &p, &img);
				sb_hotspot_find(&img, &all, &hs);
			}
			sb_flir_parse_status(f.status, f.status_len, &st);
		}
		off += n;
	}
	return 0;
}
