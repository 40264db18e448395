/* SPDX-License-Identifier: MIT */
/* What the tests against the described hwmon tree under umockdev share: a checking macro that
 * counts failures, a sleep, and the tree's text. */
#ifndef SB_TEST_HWMON_TESTBED_H
#define SB_TEST_HWMON_TESTBED_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <umockdev.h>

/* the tree's hwmon device (tests/data/hwmon/alveo-u280.umockdev) */
#define HWMON "/sys/devices/pci0000:00/0000:00:03.0/0000:3b:00.1/hwmon/hwmon3"

static int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                       \
			fprintf(stderr, __VA_ARGS__);                                              \
			fprintf(stderr, "\n");                                                     \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static inline void sleep_ms(unsigned ms)
{
	nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000}, NULL);
}

/* The tree's text (read whole; exits 2 when it cannot be read). */
static inline char *load(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = calloc(1, 1 << 16);
	size_t n;

	if (!f || !text) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(2);
	}
	n = fread(text, 1, (1 << 16) - 1, f);
	fclose(f);
	text[n] = '\0';
	return text;
}

/* A testbed with the tree of argv[1] (*tree: its text); exits 2 on a usage or umockdev error. */
static inline UMockdevTestbed *hwmon_testbed(int argc, char **argv, char **tree)
{
	UMockdevTestbed *tb;
	GError *gerr = NULL;

	if (argc != 2) {
		fprintf(stderr, "usage: %s TREE.umockdev\n", argv[0]);
		exit(2);
	}
	*tree = load(argv[1]);
	tb = umockdev_testbed_new();
	if (!umockdev_testbed_add_from_string(tb, *tree, &gerr)) {
		fprintf(stderr, "umockdev: %s\n", gerr ? gerr->message : "?");
		exit(2);
	}
	return tb;
}

#endif /* SB_TEST_HWMON_TESTBED_H */
