/* SPDX-License-Identifier: MIT */
/* The campaign file's parts shared by campaign_parse.c and campaign_hbm.c; not installed. */
#ifndef SB_CAMPAIGN_INT_H
#define SB_CAMPAIGN_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "stackbench/campaign.h"
#include "stackbench/yaml.h"

/* The HBM2 card's axes (temp .. outstanding). */
/* Whether every device of the campaign is a sim: URI (the simulated board or card). */
bool sb_campaign_all_sim(const struct sb_campaign *c);

bool sb_axis_is_hbm(enum sb_axis a);
/* The axes only the GUPS engine has (type, size, pattern, addr_mode, stream, mask). */
bool sb_axis_is_gups_only(enum sb_axis a);
/* Whether a campaign for engine e may name axis a. */
bool sb_axis_for_engine(enum sb_axis a, enum sb_campaign_engine e);

/* The engine of a device URI without opening it (sim: profiles; profile: the campaign's
 * bench.profile for a sim: URI that names none), or -1 when the URI does not say. */
int sb_campaign_uri_engine(const char *uri, const char *profile);

/* An HBM2 axis' value (and 'ports' of an HBM2 campaign): checked, canonical text out. */
int sb_hbm_axis_value(const struct sb_yaml *y, enum sb_axis a, struct fy_node *n,
                      char out[SB_AXIS_NAME_MAX]);
int sb_hbm_axis_number(const struct sb_yaml *y, enum sb_axis a, uint64_t v, struct fy_node *at,
                       char out[SB_AXIS_NAME_MAX]);

/* The point's engine settings (pt->hbm, pt->port_set) from its axes' text. */
void sb_hbm_point_fill(char text[][SB_AXIS_NAME_MAX], struct sb_campaign_point *pt);

/* An HBM2 point's result in the GUPS point's terms (points, point_ports, progress). */
void sb_hbm_point_result(const struct sb_hbm_spec *s, const struct sb_hbm_result *h,
                         struct sb_point_result *r);

/* Whether point p can run on the card at uri (SB_ERR_INVAL / SB_ERR_MISMATCH naming it). */
int sb_hbm_point_check(const struct sb_campaign_point *p, const struct sb_hbm_card *card,
                       const char *uri);

#endif /* SB_CAMPAIGN_INT_H */
