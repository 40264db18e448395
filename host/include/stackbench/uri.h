/* SPDX-License-Identifier: MIT */
/*
 * Device URIs: which board, through which transport.
 *
 *   sim:[PROFILE][?KEY=VALUE[&KEY=VALUE...]]   the simulated board, in process
 *   pci:[DDDD:]BB:DD.F[?...]                    a PCI function's BAR through sysfs
 *   dev:/dev/NAME[?...]                         the kernel module's character device
 */
#ifndef STACKBENCH_URI_H
#define STACKBENCH_URI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum sb_uri_scheme {
	SB_URI_SIM = 0,
	SB_URI_PCI = 1,
	SB_URI_DEV = 2,
};

#define SB_URI_MAX_OPTS 16
#define SB_URI_KEY_MAX 32
#define SB_URI_VALUE_MAX 256
#define SB_URI_PATH_MAX 256

struct sb_uri_opt {
	char key[SB_URI_KEY_MAX];
	char value[SB_URI_VALUE_MAX];
};

struct sb_uri {
	enum sb_uri_scheme scheme;
	/* sim: profile name or path ("" = default); pci: canonical "DDDD:BB:DD.F"; dev: path */
	char path[SB_URI_PATH_MAX];
	uint16_t pci_domain;
	uint8_t pci_bus, pci_dev, pci_fn;
	unsigned nopts;
	struct sb_uri_opt opts[SB_URI_MAX_OPTS];
};

/*
 * Parse a URI. Returns 0 or SB_ERR_URI with a detail that quotes the URI and says what is wrong
 * ("bad device URI 'pci:0:1'": expected [DDDD:]BB:DD.F").
 */
int sb_uri_parse(const char *text, struct sb_uri *uri);

/* Scheme name ("sim", "pci", "dev"). */
const char *sb_uri_scheme_name(enum sb_uri_scheme s);

/* Value of an option, or NULL. */
const char *sb_uri_opt(const struct sb_uri *uri, const char *key);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_URI_H */
