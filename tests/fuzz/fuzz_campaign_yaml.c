/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: campaign files (YAML) through the whole campaign parser and expansion. */
#include <stddef.h>
#include <stdint.h>

#include "stackbench/campaign.h"
#include "stackbench/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_campaign c;

	sb_log_set_level(SB_LOG_NONE); /* errors are the normal outcome here */
	if (sb_campaign_load_string(&c, "fuzz.yaml", (const char *)data, size) == 0)
		sb_campaign_release(&c);
	return 0;
}
