/* SPDX-License-Identifier: MIT */
/*
 * Reproductions of issue 21's defects that need no daemon, each written to fail on the code
 * before its fix (ctest label security; also unit, so the sanitizer pass runs them):
 * - 10: an xz trace declaring a 4 GiB dictionary was decoded with no memory limit (1 GB of RSS
 *   for a 78 KB file); now refused before anything is allocated, naming the file;
 * - 11: an on-chip capture whose first drain finds no record merged an empty batch with
 *   memcpy(NULL, NULL, 0) (UBSan aborted the daemon at every start after one capture).
 * And the device layer's part of the daemon's privilege separation: handed board handles.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stackbench/capture.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/trace.h"
#include "stackbench/transport.h"
#include "stackbench/uri.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/sb-security-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	sb_log_set_level(SB_LOG_NONE);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(security, .init = setup, .fini = teardown);

/* An xz VLI at p: its length in bytes. */
static size_t vli_len(const uint8_t *p)
{
	size_t n = 1;

	while (p[n - 1] & 0x80)
		n++;
	return n;
}

/*
 * A valid .xz of text whose LZMA2 filter declares a 4 GiB dictionary (property byte 40): the
 * data is compressed with a small one, then the block header's property byte is raised and the
 * header's CRC32 recomputed, as a hostile file would be made.
 */
static size_t huge_dict_xz(const char *text, uint8_t *out, size_t cap)
{
	size_t n = 0, hdr = 12, size, p;
	uint32_t crc;

	cr_assert_eq(lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, NULL, (const uint8_t *)text,
	                                     strlen(text), out, &n, cap),
	             LZMA_OK);
	size = ((size_t)out[hdr] + 1) * 4;
	p = hdr + 2;
	if (out[hdr + 1] & 0x40)
		p += vli_len(out + p); /* compressed size */
	if (out[hdr + 1] & 0x80)
		p += vli_len(out + p); /* uncompressed size */
	cr_assert_eq(out[p], 0x21, "the filter is LZMA2");
	cr_assert_eq(out[p + 1], 1, "one property byte");
	out[p + 2] = 40; /* dictionary: 4 GiB - 1 */
	crc = lzma_crc32(out + hdr, size - 4, 0);
	for (int i = 0; i < 4; i++)
		out[hdr + size - 4 + (size_t)i] = (uint8_t)(crc >> (8 * i));
	return n;
}

Test(security, xz_with_a_huge_dictionary_is_refused_by_the_memory_limit)
{
	static const char csv[] = "time,subpartition,addr,kind\n"
	                          "0,0,0,read\n"
	                          "1,0,64,write\n";
	struct sb_trace_reader *r;
	struct sb_trace_record rec[8];
	uint8_t buf[4096];
	char path[128];
	size_t n = huge_dict_xz(csv, buf, sizeof(buf));
	FILE *f;
	int e;

	snprintf(path, sizeof(path), "%s/huge.csv.xz", dir);
	cr_assert_not_null(f = fopen(path, "wb"));
	cr_assert_eq(fwrite(buf, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
	e = sb_trace_open(&r, SB_TRACE_CSV, path, NULL);
	if (e == 0) {
		e = sb_trace_read(r, rec, 8);
		sb_trace_reader_free(r);
	}
	cr_assert_eq(e, SB_ERR_PARSE, "a 4 GiB dictionary was decoded (%d): %s", e,
	             sb_error_detail());
	cr_assert(strstr(sb_error_detail(), "huge.csv.xz") &&
	              strstr(sb_error_detail(), "memory limit"),
	          "%s", sb_error_detail());
}

Test(security, an_onchip_capture_whose_drain_finds_nothing)
{
	struct sb_capture_config cfg;
	struct sb_capture *cap;
	struct sb_device *dev;
	char path[128];

	snprintf(path, sizeof(path), "%s/empty.sbt", dir);
	cr_assert_eq(sb_device_open(&dev, "sim:"), 0, "%s", sb_error_detail());
	sb_capture_config_init(&cfg);
	cfg.path = SB_CAPTURE_ONCHIP;
	cr_assert_eq(sb_capture_open(&cap, dev, &cfg, path), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_capture_start(cap), 0, "%s", sb_error_detail());
	/* No port runs: the on-chip buffer is empty at every drain. */
	cr_assert_eq(sb_capture_poll(cap), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_capture_poll(cap), 0, "%s", sb_error_detail());
	sb_capture_abort(cap);
	sb_device_close(dev);
}

/* Board handles handed from the process that may open a board to the one that drives it
 * (stackbenchd's job processes): found by scheme and path whatever the options, duplicated at
 * each open, one per board; sim: boards have none. */
Test(security, board_handles_are_found_by_scheme_and_path)
{
	struct stat a, b;
	struct sb_uri u;
	char path[128];
	int fd, got;

	snprintf(path, sizeof(path), "%s/node", dir);
	cr_assert_geq(fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600), 0);
	cr_assert_eq(fstat(fd, &a), 0);
	cr_assert_eq(sb_device_handle_give("sim:", dup(fd)), SB_ERR_URI);
	snprintf(path, sizeof(path), "dev:%s/node?access=ioctl", dir);
	cr_assert_eq(sb_device_handle_give(path, fd), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_device_handle_give(path, dup(0)), SB_ERR_EXISTS);
	snprintf(path, sizeof(path), "dev:%s/node", dir);
	cr_assert_eq(sb_uri_parse(path, &u), 0);
	cr_assert_geq(got = sb_transport_given_fd(&u), 3);
	cr_assert_neq(got, fd, "a duplicate, not the registry's own");
	cr_assert_eq(fstat(got, &b), 0);
	cr_assert(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	cr_assert(fcntl(got, F_GETFD) & FD_CLOEXEC);
	close(got);
	cr_assert_eq(sb_uri_parse("dev:/dev/other", &u), 0);
	cr_assert_eq(sb_transport_given_fd(&u), -1);
	cr_assert_eq(sb_uri_parse("pci:00:01.0", &u), 0);
	cr_assert_eq(sb_transport_given_fd(&u), -1);
	cr_assert_eq(sb_device_handle_open("sim:"), SB_ERR_URI);
}
