/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/uri.h"

Test(uri, sim_default)
{
	struct sb_uri u;

	cr_assert_eq(sb_uri_parse("sim:", &u), 0);
	cr_assert_eq(u.scheme, SB_URI_SIM);
	cr_assert_str_eq(u.path, "");
	cr_assert_eq(u.nopts, 0);
}

Test(uri, sim_profile_and_options)
{
	struct sb_uri u;

	cr_assert_eq(sb_uri_parse("sim:hmc-gen1?seed=7&ports=4", &u), 0, "%s", sb_error_detail());
	cr_assert_str_eq(u.path, "hmc-gen1");
	cr_assert_eq(u.nopts, 2);
	cr_assert_str_eq(sb_uri_opt(&u, "seed"), "7");
	cr_assert_str_eq(sb_uri_opt(&u, "ports"), "4");
	cr_assert_null(sb_uri_opt(&u, "links"));
}

Test(uri, sim_options_without_profile)
{
	struct sb_uri u;

	cr_assert_eq(sb_uri_parse("sim:?links=4", &u), 0);
	cr_assert_str_eq(u.path, "");
	cr_assert_str_eq(sb_uri_opt(&u, "links"), "4");
}

Test(uri, pci_with_and_without_domain)
{
	struct sb_uri u;

	cr_assert_eq(sb_uri_parse("pci:0000:3b:00.1", &u), 0, "%s", sb_error_detail());
	cr_assert_eq(u.scheme, SB_URI_PCI);
	cr_assert_eq(u.pci_bus, 0x3b);
	cr_assert_eq(u.pci_dev, 0);
	cr_assert_eq(u.pci_fn, 1);
	cr_assert_str_eq(u.path, "0000:3b:00.1");
	cr_assert_eq(sb_uri_parse("pci:5E:1f.7?bar=2", &u), 0);
	cr_assert_str_eq(u.path, "0000:5e:1f.7");
	cr_assert_str_eq(sb_uri_opt(&u, "bar"), "2");
	cr_assert_eq(sb_uri_parse("pci:0001:00:02.0", &u), 0);
	cr_assert_eq(u.pci_domain, 1);
}

Test(uri, dev_path)
{
	struct sb_uri u;

	cr_assert_eq(sb_uri_parse("dev:/dev/stackbench0", &u), 0);
	cr_assert_eq(u.scheme, SB_URI_DEV);
	cr_assert_str_eq(u.path, "/dev/stackbench0");
}

static void bad(const char *text, const char *needle)
{
	struct sb_uri u;

	cr_assert_eq(sb_uri_parse(text, &u), SB_ERR_URI, "'%s' accepted", text);
	cr_assert(strstr(sb_error_detail(), needle), "'%s': detail '%s' lacks '%s'", text,
	          sb_error_detail(), needle);
}

Test(uri, bad_uris_are_rejected_with_a_reason)
{
	bad("", "empty");
	bad("sim", "no scheme");
	bad("usb:09cb:1996", "unknown scheme 'usb'");
	bad("pci:0:1", "expected pci:[DDDD:]BB:DD.F");
	bad("pci:00:01.0x", "expected pci:");
	bad("pci:zz:00.0", "expected pci:");
	bad("pci:00:20.0", "out of range");
	bad("pci:00:01.8", "function 8 out of range");
	bad("dev:stackbench0", "absolute path");
	bad("dev:", "absolute path");
	bad("sim:?", "empty option list");
	bad("sim:?seed", "not KEY=VALUE");
	bad("sim:?seed=", "has no value");
	bad("sim:?seed=1&seed=2", "given twice");
	bad("sim:?seed=1&", "empty option");
	bad("sim:?=3", "bad option name");
	bad("sim:a b", "blanks");
}
