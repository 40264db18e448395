/* SPDX-License-Identifier: MIT */
/*
 * A campaign point described in a line (stackbench run's progress and --dry-run, follow, the
 * daemon's point events and so the dashboard): a GUPS point by its request type, size, pattern,
 * generator, mask and ports; an HBM2 card's by its engine settings.
 */
#include <stdio.h>
#include <string.h>

#include "stackbench/campaign.h"
#include "stackbench/gups.h"
#include "stackbench/hbm.h"

/* An HBM2 card's point: what the engine does, where, and the controller and temperature when
 * the point sets them. */
static void hbm_point_text(char *buf, size_t size, const struct sb_campaign_point *p)
{
	const struct sb_hbm_spec *s = &p->hbm;
	char target[24], op[24], stride[32] = "", ws[32] = "", mc[64] = "", temp[16] = "";
	size_t n = 0;

	/* a mix's share of writes and the working set when they are not the defaults */
	if (s->rw == SB_HBM_RW_MIX && s->mix_writes != 128)
		snprintf(op, sizeof(op), "mix %u/256", s->mix_writes);
	else
		snprintf(op, sizeof(op), "%s", sb_hbm_rw_name(s->rw));
	if (!s->random && s->stride && s->stride != s->burst)
		snprintf(stride, sizeof(stride), " stride %u", s->stride);
	if (s->ws)
		snprintf(ws, sizeof(ws), " ws %llu", (unsigned long long)s->ws);
	if (s->addr_map >= 0)
		n += (size_t)snprintf(mc + n, sizeof(mc) - n, " %s",
		                      sb_hbm_map_text((unsigned)s->addr_map));
	if (s->closed_page >= 0 && n < sizeof(mc))
		n += (size_t)snprintf(mc + n, sizeof(mc) - n, " %s page",
		                      s->closed_page ? "closed" : "open");
	if (s->refresh >= 0 && n < sizeof(mc))
		snprintf(mc + n, sizeof(mc) - n, " %s refresh",
		         s->refresh ? "single-bank" : "all-bank");
	if (s->temp_c > 0)
		snprintf(temp, sizeof(temp), " %g C", s->temp_c);
	snprintf(buf, size, "%s %u B %s%s%s %s ports %s, %u out%s%s", op, s->burst,
	         s->random ? "random" : "linear", stride, ws,
	         sb_hbm_target_text(&s->target, target, sizeof(target)), p->port_set,
	         s->outstanding, mc, temp);
}

void sb_campaign_point_text(char *buf, size_t size, const struct sb_campaign_point *p)
{
	char mask[24] = "", ports[16] = "all ports", stream[24] = "", cooling[32] = "";

	if (p->port_set[0]) {
		hbm_point_text(buf, size, p);
		return;
	}
	if (strcmp(p->cooling, "none"))
		snprintf(cooling, sizeof(cooling), "%s ", p->cooling);
	if (p->idle) {
		snprintf(buf, size, "%sidle (no traffic)", cooling);
		return;
	}
	if (p->mask_lo >= 0)
		snprintf(mask, sizeof(mask), " mask %d-%u", p->mask_lo,
		         p->mask_lo + p->mask_width - 1);
	if (p->ports)
		snprintf(ports, sizeof(ports), "%u port%s", p->ports, p->ports == 1 ? "" : "s");
	if (p->stream)
		snprintf(stream, sizeof(stream), " stream %u", p->stream);
	snprintf(buf, size, "%s%s %u B %s %s%s %s%s", cooling, sb_req_type_name(p->type), p->size,
	         p->pattern, p->mode == SB_GEN_LINEAR ? "linear" : "random", mask, ports, stream);
}
