/* SPDX-License-Identifier: MIT */
/*
 * Shared fixture of the campaign tests: a temporary folder holding a results database, a
 * campaign, and their cleanup. Include once per test file (the state is per file).
 */
#ifndef SB_TEST_CAMPAIGN_FIXTURE_H
#define SB_TEST_CAMPAIGN_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "stackbench/campaign.h"
#include "stackbench/error.h"
#include "stackbench/store.h"

static char dir[64], db[128];
static struct sb_campaign c;
static struct sb_store *st;

/* Make the folder (prefix names it in /tmp) and open the database in it. */
static inline void campaign_fixture_setup(const char *prefix)
{
	snprintf(dir, sizeof(dir), "/tmp/%s-XXXXXX", prefix);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/r.db", dir);
	cr_assert_eq(sb_store_open(&st, db), 0, "%s", sb_error_detail());
}

static inline void campaign_fixture_teardown(void)
{
	char cmd[160];

	sb_campaign_release(&c);
	sb_store_close(st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

#endif /* SB_TEST_CAMPAIGN_FIXTURE_H */
