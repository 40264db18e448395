/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/uri.h"
#include "stackbench/util.h"

static const char *const scheme_names[] = {"sim", "pci", "dev"};

const char *sb_uri_scheme_name(enum sb_uri_scheme s)
{
	if ((unsigned)s >= SB_ARRAY_SIZE(scheme_names))
		return "?";
	return scheme_names[s];
}

const char *sb_uri_opt(const struct sb_uri *uri, const char *key)
{
	for (unsigned i = 0; i < uri->nopts; i++)
		if (!strcmp(uri->opts[i].key, key))
			return uri->opts[i].value;
	return NULL;
}

/* Exactly n hex digits at s into *v; returns false otherwise. */
static bool hexn(const char *s, size_t n, unsigned *v)
{
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return false;
		*v = *v * 16 + (unsigned)(isdigit((unsigned char)s[i])
		                              ? s[i] - '0'
		                              : tolower((unsigned char)s[i]) - 'a' + 10);
	}
	return true;
}

static int parse_bdf(const char *text, const char *s, size_t len, struct sb_uri *u)
{
	unsigned dom = 0, bus, dev, fn;
	const char *p = s;

	/* [DDDD:]BB:DD.F */
	if (len == 12) {
		if (!hexn(p, 4, &dom) || p[4] != ':')
			goto bad;
		p += 5;
		len -= 5;
	}
	if (len != 7 || !hexn(p, 2, &bus) || p[2] != ':' || !hexn(p + 3, 2, &dev) || p[5] != '.' ||
	    !hexn(p + 6, 1, &fn))
		goto bad;
	if (dev > 0x1f || fn > 7)
		return sb_error_set(SB_ERR_URI,
		                    "bad device URI '%s': device %02x or function %x out of range "
		                    "(device 00..1f, function 0..7)",
		                    text, dev, fn);
	u->pci_domain = (uint16_t)dom;
	u->pci_bus = (uint8_t)bus;
	u->pci_dev = (uint8_t)dev;
	u->pci_fn = (uint8_t)fn;
	snprintf(u->path, sizeof(u->path), "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
bad:
	return sb_error_set(SB_ERR_URI, "bad device URI '%s': expected pci:[DDDD:]BB:DD.F", text);
}

static bool valid_key(const char *k)
{
	if (!*k)
		return false;
	for (; *k; k++)
		if (!isalnum((unsigned char)*k) && *k != '_' && *k != '-' && *k != '.')
			return false;
	return true;
}

static int parse_opts(const char *text, const char *q, struct sb_uri *u)
{
	while (*q) {
		const char *amp = strchr(q, '&');
		size_t len = amp ? (size_t)(amp - q) : strlen(q);
		const char *eq = memchr(q, '=', len);
		struct sb_uri_opt *o;
		size_t klen;

		if (!eq)
			return sb_error_set(SB_ERR_URI,
			                    "bad device URI '%s': option '%.*s' is not KEY=VALUE",
			                    text, (int)len, q);
		if (u->nopts == SB_URI_MAX_OPTS)
			return sb_error_set(SB_ERR_URI, "bad device URI '%s': more than %d options",
			                    text, SB_URI_MAX_OPTS);
		o = &u->opts[u->nopts];
		klen = (size_t)(eq - q);
		if (klen >= sizeof(o->key) || len - klen - 1 >= sizeof(o->value))
			return sb_error_set(SB_ERR_URI,
			                    "bad device URI '%s': option '%.*s' too long", text,
			                    (int)len, q);
		memcpy(o->key, q, klen);
		o->key[klen] = '\0';
		memcpy(o->value, eq + 1, len - klen - 1);
		o->value[len - klen - 1] = '\0';
		if (!valid_key(o->key))
			return sb_error_set(SB_ERR_URI, "bad device URI '%s': bad option name '%s'",
			                    text, o->key);
		if (!o->value[0])
			return sb_error_set(SB_ERR_URI,
			                    "bad device URI '%s': option '%s' has no value", text,
			                    o->key);
		if (sb_uri_opt(u, o->key))
			return sb_error_set(SB_ERR_URI,
			                    "bad device URI '%s': option '%s' given twice", text,
			                    o->key);
		u->nopts++;
		if (!amp)
			break;
		q = amp + 1;
		if (!*q)
			return sb_error_set(SB_ERR_URI,
			                    "bad device URI '%s': empty option after '&'", text);
	}
	return 0;
}

int sb_uri_parse(const char *text, struct sb_uri *u)
{
	const char *colon, *body, *q;
	size_t blen;
	int err;

	memset(u, 0, sizeof(*u));
	if (!text || !*text)
		return sb_error_set(SB_ERR_URI, "empty device URI (expected sim:, pci: or dev:)");
	colon = strchr(text, ':');
	if (!colon)
		return sb_error_set(SB_ERR_URI,
		                    "bad device URI '%s': no scheme (expected sim:, pci: or dev:)",
		                    text);
	body = colon + 1;
	q = strchr(body, '?');
	blen = q ? (size_t)(q - body) : strlen(body);
	if ((size_t)(colon - text) == 3 && !strncmp(text, "sim", 3)) {
		u->scheme = SB_URI_SIM;
		for (size_t i = 0; i < blen; i++)
			if (isspace((unsigned char)body[i]) || iscntrl((unsigned char)body[i]))
				return sb_error_set(SB_ERR_URI,
				                    "bad device URI '%s': profile name has blanks",
				                    text);
	} else if ((size_t)(colon - text) == 3 && !strncmp(text, "pci", 3)) {
		u->scheme = SB_URI_PCI;
		if ((err = parse_bdf(text, body, blen, u)) < 0)
			return err;
	} else if ((size_t)(colon - text) == 3 && !strncmp(text, "dev", 3)) {
		u->scheme = SB_URI_DEV;
		if (blen < 2 || body[0] != '/')
			return sb_error_set(
			    SB_ERR_URI,
			    "bad device URI '%s': expected dev:/dev/NAME (an absolute path)", text);
	} else {
		return sb_error_set(
		    SB_ERR_URI,
		    "bad device URI '%s': unknown scheme '%.*s' (expected sim, pci or dev)", text,
		    (int)(colon - text), text);
	}
	if (u->scheme != SB_URI_PCI) {
		if (blen >= sizeof(u->path))
			return sb_error_set(SB_ERR_URI, "bad device URI '%s': path too long", text);
		memcpy(u->path, body, blen);
		u->path[blen] = '\0';
	}
	if (q) {
		if (!q[1])
			return sb_error_set(
			    SB_ERR_URI, "bad device URI '%s': empty option list after '?'", text);
		if ((err = parse_opts(text, q + 1, u)) < 0)
			return err;
	}
	return 0;
}
