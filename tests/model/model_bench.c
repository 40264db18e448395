/* SPDX-License-Identifier: MIT */
#include "model_bench.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"
#include "sb_regmap.h"
#include "stackbench/error.h"
#include "stackbench/pattern.h"
#include "stackbench/transport.h"

static int t_read(void *p, uint32_t o, uint32_t *v)
{
	return sb_model_read32(p, o, v);
}

static int t_write(void *p, uint32_t o, uint32_t v)
{
	return sb_model_write32(p, o, v);
}

static uint32_t t_size(void *p)
{
	return sb_model_regspace_size(p);
}

static uint64_t t_now(void *p)
{
	return sb_model_now_ps(p) / 1000;
}

static int t_wait(void *p, uint64_t ns)
{
	return sb_model_advance(p, ns * 1000);
}

static void t_close(void *p)
{
	(void)p; /* the test frees the model */
}

static const struct sb_transport_ops model_ops = {
    .name = "test-sim",
    .close = t_close,
    .read32 = t_read,
    .write32 = t_write,
    .regspace_size = t_size,
    .now_ns = t_now,
    .wait_ns = t_wait,
};

void bench_open(struct bench *b, const char *profile, const struct sb_model_opt *opts, size_t nopts)
{
	cr_assert_eq(sb_model_new(&b->m, profile, opts, nopts), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_device_open_transport(&b->dev, &model_ops, b->m, "test-sim:"), 0, "%s",
	             sb_error_detail());
}

void bench_close(struct bench *b)
{
	sb_device_close(b->dev);
	sb_model_free(b->m);
}

static struct sb_point_result run(struct sb_device *dev, enum sb_req_type type, unsigned size,
                                  const char *pattern, unsigned ports, uint64_t us, bool linear,
                                  bool ff, enum sb_port_order o)
{
	struct sb_point_spec s;
	struct sb_point_result r;
	struct sb_geometry g = {16, 16, 128};

	sb_point_spec_init(&s, ports);
	s.port_order = o;
	s.type = type;
	s.size = size;
	s.duration_ns = us * 1000;
	s.gen = linear ? SB_GEN_LINEAR : SB_GEN_RANDOM;
	s.fast_forward = ff;
	cr_assert_eq(sb_pattern_masks(pattern, &g, &s.mask, &s.antimask), 0, "pattern %s", pattern);
	cr_assert_eq(sb_point_run(dev, &s, &r), 0, "%s", sb_error_detail());
	return r;
}

struct sb_point_result bench_run(struct sb_device *dev, enum sb_req_type type, unsigned size,
                                 const char *pattern, unsigned ports, uint64_t us, bool linear,
                                 bool ff)
{
	return run(dev, type, size, pattern, ports, us, linear, ff, SB_PORT_ORDER_FIRST);
}

struct sb_point_result bench_run_order(struct sb_device *dev, enum sb_req_type type, unsigned size,
                                       const char *pattern, unsigned ports, uint64_t us,
                                       enum sb_port_order o)
{
	return run(dev, type, size, pattern, ports, us, false, false, o);
}

double bench_bw(struct sb_device *dev, enum sb_req_type type, unsigned size, const char *pattern)
{
	return bench_run(dev, type, size, pattern, 9, 1000, false, false).metrics.bandwidth_gbps;
}

struct sb_point_result bench_stream(struct sb_device *dev, unsigned n, unsigned size, uint64_t mask,
                                    uint64_t antimask)
{
	struct sb_point_spec s;
	struct sb_point_result r;

	sb_point_spec_init(&s, 1);
	s.stream = n;
	s.size = size;
	s.iterations = 20;
	s.duration_ns = 0;
	s.mask = mask;
	s.antimask = antimask;
	cr_assert_eq(sb_point_run(dev, &s, &r), 0, "%s", sb_error_detail());
	return r;
}

void bench_sim_write(struct sb_device *dev, uint32_t reg, uint32_t v)
{
	uint32_t s;

	cr_assert_eq(sb_device_find_block(dev, SB_BLK_SIM_CTRL_TYPE, 0, &s), 0);
	cr_assert_eq(sb_device_write32(dev, s + reg, v), 0);
}

void bench_profile_variant(const char *path, ...)
{
	char src[512], line[512];
	FILE *in, *out;

	cr_assert_eq(sb_profile_find("hmc-gen2-ac510", src, sizeof(src)), 0, "%s",
	             sb_error_detail());
	in = fopen(src, "r");
	out = fopen(path, "w");
	cr_assert(in && out, "cannot copy '%s' to '%s'", src, path);
	while (fgets(line, sizeof(line), in)) {
		va_list ap;
		const char *k;
		bool done = false;

		va_start(ap, path);
		while (!done && (k = va_arg(ap, const char *))) {
			const char *v = va_arg(ap, const char *);
			const char *p = line + strspn(line, " ");
			size_t kl = strlen(k);

			if (!strncmp(p, k, kl) && p[kl] == ':') {
				fprintf(out, "%.*s%s: %s\n", (int)(p - line), line, k, v);
				done = true;
			}
		}
		va_end(ap);
		if (!done)
			fputs(line, out);
	}
	fclose(in);
	fclose(out);
}
