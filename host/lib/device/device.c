/* SPDX-License-Identifier: MIT */
/*
 * The device: a transport plus the register blocks found on it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sb_regmap.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/transport.h"
#include "stackbench/util.h"

struct sb_device {
	const struct sb_transport_ops *ops;
	void *priv;
	char *uri;
	uint32_t regspace;
	struct sb_fw_info fw;
	unsigned nblocks;
	struct sb_block_info blocks[SB_DEVICE_MAX_BLOCKS];
	/* sb_device_set_wait_hook */
	sb_device_wait_hook wait_fn;
	void *wait_ctx;
	uint64_t wait_left; /* bench time until the hook is due */
	bool in_hook;
};

static const struct sb_regmap_block *known_block(uint32_t type)
{
	for (unsigned i = 0; i < sb_regmap_nblocks; i++)
		if (sb_regmap_blocks[i].type == type)
			return &sb_regmap_blocks[i];
	return NULL;
}

int sb_device_read32(struct sb_device *dev, uint32_t offset, uint32_t *value)
{
	return dev->ops->read32(dev->priv, offset, value);
}

int sb_device_write32(struct sb_device *dev, uint32_t offset, uint32_t value)
{
	return dev->ops->write32(dev->priv, offset, value);
}

int sb_device_read64(struct sb_device *dev, uint32_t offset, uint64_t *value)
{
	uint32_t lo, hi;
	int err;

	if (dev->ops->read64)
		return dev->ops->read64(dev->priv, offset, value);
	if ((err = dev->ops->read32(dev->priv, offset, &lo)) < 0 ||
	    (err = dev->ops->read32(dev->priv, offset + 4, &hi)) < 0)
		return err;
	*value = (uint64_t)hi << 32 | lo;
	return 0;
}

int sb_device_write64(struct sb_device *dev, uint32_t offset, uint64_t value)
{
	int err = dev->ops->write32(dev->priv, offset, (uint32_t)value);

	if (err < 0)
		return err;
	return dev->ops->write32(dev->priv, offset + 4, (uint32_t)(value >> 32));
}

static int read_fw(struct sb_device *d)
{
	uint32_t type;
	int err;

	if ((err = sb_device_read32(d, SB_BLK_TYPE, &type)) < 0)
		return err;
	if (type != SB_BLK_FW_ID_TYPE)
		return sb_error_set(
		    SB_ERR_BAD_MAGIC,
		    "'%s': no firmware-ID block at offset 0 (type 0x%08x, expected 0x%08x); "
		    "is this a stackbench design?",
		    d->uri, type, SB_BLK_FW_ID_TYPE);
	if ((err = sb_device_read32(d, SB_FW_ID_MAGIC, &d->fw.magic)) < 0)
		return err;
	if (d->fw.magic != SB_REGMAP_MAGIC)
		return sb_error_set(SB_ERR_BAD_MAGIC,
		                    "'%s': firmware magic 0x%08x, expected 0x%08x", d->uri,
		                    d->fw.magic, SB_REGMAP_MAGIC);
	if ((err = sb_device_read32(d, SB_BLK_VERSION, &d->fw.version)) < 0 ||
	    (err = sb_device_read32(d, SB_FW_ID_FW_VERSION, &d->fw.fw_version)) < 0 ||
	    (err = sb_device_read32(d, SB_FW_ID_BUILD_ID, &d->fw.build_id)) < 0 ||
	    (err = sb_device_read32(d, SB_FW_ID_REGMAP_HASH, &d->fw.regmap_hash)) < 0 ||
	    (err = sb_device_read32(d, SB_FW_ID_REGMAP_SIZE, &d->fw.regmap_size)) < 0)
		return err;
	if (d->fw.regmap_hash != SB_REGMAP_HASH)
		sb_warn(
		    "'%s': register-map hash 0x%08x differs from this host's 0x%08x; the design "
		    "and the host were built from different register maps",
		    d->uri, d->fw.regmap_hash, SB_REGMAP_HASH);
	return 0;
}

static int walk(struct sb_device *d)
{
	uint32_t off = 0;
	int err;

	if ((err = read_fw(d)) < 0)
		return err;
	d->nblocks = 0;
	for (;;) {
		struct sb_block_info *b;
		const struct sb_regmap_block *k;

		if (d->nblocks == SB_DEVICE_MAX_BLOCKS)
			return sb_error_set(SB_ERR_LOOP,
			                    "'%s': more than %d register blocks; the list "
			                    "probably loops",
			                    d->uri, SB_DEVICE_MAX_BLOCKS);
		b = &d->blocks[d->nblocks];
		b->offset = off;
		if ((err = sb_device_read32(d, off + SB_BLK_TYPE, &b->type)) < 0 ||
		    (err = sb_device_read32(d, off + SB_BLK_VERSION, &b->version)) < 0 ||
		    (err = sb_device_read32(d, off + SB_BLK_NEXT, &b->next)) < 0)
			return sb_error_wrap(err, "'%s': reading the block at 0x%x", d->uri, off);
		k = known_block(b->type);
		b->name = k ? k->name : NULL;
		if (k && SB_BLK_VERSION_MAJOR(b->version) != SB_BLK_VERSION_MAJOR(k->version))
			return sb_error_set(
			    SB_ERR_VERSION,
			    "'%s': block '%s' at 0x%x has version %u.%u; this host supports %u.x",
			    d->uri, k->name, off, SB_BLK_VERSION_MAJOR(b->version),
			    SB_BLK_VERSION_MINOR(b->version), SB_BLK_VERSION_MAJOR(k->version));
		if (!k)
			sb_info("'%s': unknown block type 0x%08x at 0x%x (skipped)", d->uri,
			        b->type, off);
		d->nblocks++;
		if (!b->next)
			break;
		if (b->next % SB_REGMAP_ALIGN)
			return sb_error_set(
			    SB_ERR_ALIGN,
			    "'%s': block at 0x%x points to 0x%x, not a multiple of 0x%x", d->uri,
			    off, b->next, SB_REGMAP_ALIGN);
		if (b->next >= d->regspace || d->regspace - b->next < 12)
			return sb_error_set(
			    SB_ERR_RANGE,
			    "'%s': block at 0x%x points to 0x%x, outside the 0x%x bytes of "
			    "register space",
			    d->uri, off, b->next, d->regspace);
		for (unsigned i = 0; i < d->nblocks; i++)
			if (d->blocks[i].offset == b->next)
				return sb_error_set(
				    SB_ERR_LOOP,
				    "'%s': block at 0x%x points back to the block at 0x%x; "
				    "the block list loops",
				    d->uri, off, b->next);
		off = b->next;
	}
	return 0;
}

static void check_ports(struct sb_device *d)
{
	uint32_t board, count;
	unsigned found = sb_device_count_blocks(d, SB_BLK_GUPS_PORT_TYPE);

	if (sb_device_find_block(d, SB_BLK_BOARD_TYPE, 0, &board) < 0)
		return;
	if (sb_device_read32(d, board + SB_BOARD_PORT_COUNT, &count) < 0)
		return;
	if (count != found)
		sb_warn("'%s': board reports %u ports but %u port blocks were found", d->uri, count,
		        found);
}

int sb_device_open_transport(struct sb_device **out, const struct sb_transport_ops *ops, void *priv,
                             const char *label)
{
	struct sb_device *d;
	int err;

	d = calloc(1, sizeof(*d));
	if (!d) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory opening '%s'", label);
		goto fail_alloc;
	}
	d->ops = ops;
	d->priv = priv;
	d->uri = strdup(label);
	if (!d->uri) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory opening '%s'", label);
		goto fail_uri;
	}
	d->regspace = ops->regspace_size(priv);
	if ((err = walk(d)) < 0)
		goto fail_walk;
	check_ports(d);
	*out = d;
	sb_dbg("opened '%s' over %s: %u blocks, %u ports", label, ops->name, d->nblocks,
	       sb_device_port_count(d));
	return 0;

fail_walk:
	free(d->uri);
fail_uri:
	free(d);
fail_alloc:
	ops->close(priv);
	return err;
}

/* ---- handed board handles ---------------------------------------------------------------- */

#define MAX_GIVEN 16

static struct given {
	enum sb_uri_scheme scheme;
	char path[SB_URI_PATH_MAX];
	int fd;
} given[MAX_GIVEN];
static unsigned ngiven;
static pthread_mutex_t given_mu = PTHREAD_MUTEX_INITIALIZER;

static const struct sb_transport_ops *transport_of(enum sb_uri_scheme s)
{
	return s == SB_URI_SIM   ? &sb_transport_sim
	       : s == SB_URI_PCI ? &sb_transport_pci
	                         : &sb_transport_dev;
}

int sb_device_handle_open(const char *text)
{
	const struct sb_transport_ops *ops;
	struct sb_uri uri;
	int e;

	if ((e = sb_uri_parse(text, &uri)) < 0)
		return e;
	ops = transport_of(uri.scheme);
	if (!ops->handle_open)
		return sb_error_set(SB_ERR_URI, "'%s': a %s: board has no handle to hand over",
		                    text, ops->name);
	if ((e = ops->handle_open(&uri)) < 0)
		return sb_error_wrap(e, "board '%s'", text);
	return e;
}

int sb_device_handle_give(const char *text, int fd)
{
	struct sb_uri uri;
	int e = 0;

	if ((e = sb_uri_parse(text, &uri)) < 0 || !transport_of(uri.scheme)->handle_open) {
		close(fd);
		return e < 0 ? e : sb_error_set(SB_ERR_URI, "'%s': no handle to take", text);
	}
	pthread_mutex_lock(&given_mu);
	for (unsigned i = 0; i < ngiven && !e; i++)
		if (given[i].scheme == uri.scheme && !strcmp(given[i].path, uri.path))
			e = sb_error_set(SB_ERR_EXISTS, "a handle of '%s' was given already", text);
	if (!e && ngiven == MAX_GIVEN)
		e = sb_error_set(SB_ERR_RANGE, "more than %d board handles", MAX_GIVEN);
	if (!e) {
		given[ngiven].scheme = uri.scheme;
		memcpy(given[ngiven].path, uri.path, sizeof(uri.path));
		given[ngiven++].fd = fd;
	}
	pthread_mutex_unlock(&given_mu);
	if (e)
		close(fd);
	return e;
}

int sb_transport_given_fd(const struct sb_uri *uri)
{
	int fd = -1;

	pthread_mutex_lock(&given_mu);
	for (unsigned i = 0; i < ngiven && fd == -1; i++)
		if (given[i].scheme == uri->scheme && !strcmp(given[i].path, uri->path) &&
		    (fd = fcntl(given[i].fd, F_DUPFD_CLOEXEC, 3)) < 0)
			fd = sb_error_set(SB_ERR_IO, "cannot duplicate the handle of '%s': %s",
			                  uri->path, strerror(errno));
	pthread_mutex_unlock(&given_mu);
	return fd;
}

int sb_device_open(struct sb_device **dev, const char *text)
{
	const struct sb_transport_ops *ops;
	struct sb_uri uri;
	void *priv = NULL;
	int err;

	*dev = NULL;
	if ((err = sb_uri_parse(text, &uri)) < 0)
		return err;
	ops = transport_of(uri.scheme);
	if ((err = ops->open(&uri, &priv)) < 0)
		return sb_error_wrap(err, "cannot open '%s'", text);
	return sb_device_open_transport(dev, ops, priv, text);
}

void sb_device_close(struct sb_device *dev)
{
	if (!dev)
		return;
	dev->ops->close(dev->priv);
	free(dev->uri);
	free(dev);
}

const char *sb_device_uri(const struct sb_device *dev)
{
	return dev->uri;
}

const char *sb_device_transport(const struct sb_device *dev)
{
	return dev->ops->name;
}

uint32_t sb_device_regspace_size(const struct sb_device *dev)
{
	return dev->regspace;
}

unsigned sb_device_block_count(const struct sb_device *dev)
{
	return dev->nblocks;
}

const struct sb_block_info *sb_device_block(const struct sb_device *dev, unsigned i)
{
	return i < dev->nblocks ? &dev->blocks[i] : NULL;
}

int sb_device_find_block(const struct sb_device *dev, uint32_t type, unsigned index,
                         uint32_t *offset)
{
	for (unsigned i = 0; i < dev->nblocks; i++) {
		if (dev->blocks[i].type != type)
			continue;
		if (index-- == 0) {
			*offset = dev->blocks[i].offset;
			return 0;
		}
	}
	return SB_ERR_NOT_FOUND;
}

unsigned sb_device_count_blocks(const struct sb_device *dev, uint32_t type)
{
	unsigned n = 0;

	for (unsigned i = 0; i < dev->nblocks; i++)
		n += dev->blocks[i].type == type;
	return n;
}

unsigned sb_device_port_count(const struct sb_device *dev)
{
	return sb_device_count_blocks(dev, SB_BLK_GUPS_PORT_TYPE);
}

const struct sb_fw_info *sb_device_fw(const struct sb_device *dev)
{
	return &dev->fw;
}

int sb_device_identity(struct sb_device *dev, struct sb_device_identity *id)
{
	memset(id, 0, sizeof(*id));
	sb_strlcpy(id->uri, dev->uri, sizeof(id->uri));
	sb_strlcpy(id->transport, dev->ops->name, sizeof(id->transport));
	id->fw_version = dev->fw.fw_version;
	id->build_id = dev->fw.build_id;
	id->regmap_hash = dev->fw.regmap_hash;
	id->regmap_matches = dev->fw.regmap_hash == SB_REGMAP_HASH;
	if (sb_device_pci_address(dev, id->pci, sizeof(id->pci)) < 0)
		id->pci[0] = '\0';
	if (dev->ops->describe && dev->ops->describe(dev->priv, id->detail, sizeof(id->detail)) < 0)
		id->detail[0] = '\0';
	id->have_profile = dev->ops->profile && dev->ops->profile(dev->priv, &id->profile) == 0;
	sb_error_clear();
	return 0;
}

uint64_t sb_device_now_ns(struct sb_device *dev)
{
	return dev->ops->now_ns(dev->priv);
}

int sb_device_wait_ns(struct sb_device *dev, uint64_t ns)
{
	int err;

	if (!dev->wait_fn || dev->in_hook)
		return dev->ops->wait_ns(dev->priv, ns);
	while (ns) {
		uint64_t step = ns < dev->wait_left ? ns : dev->wait_left, next = 0;

		if ((err = dev->ops->wait_ns(dev->priv, step)) < 0)
			return err;
		ns -= step;
		dev->wait_left -= step;
		if (dev->wait_left)
			continue;
		dev->in_hook = true;
		err = dev->wait_fn(dev->wait_ctx, &next);
		dev->in_hook = false;
		dev->wait_left = next ? next : 1;
		if (err < 0)
			return err;
	}
	return 0;
}

void sb_device_set_wait_hook(struct sb_device *dev, sb_device_wait_hook fn, void *ctx,
                             uint64_t first_ns)
{
	dev->wait_fn = fn;
	dev->wait_ctx = ctx;
	dev->wait_left = first_ns ? first_ns : 1;
	dev->in_hook = false;
}

int sb_device_pci_address(struct sb_device *dev, char *bdf, size_t size)
{
	if (!dev->ops->pci_address)
		return sb_error_set(SB_ERR_NOT_SUPPORTED, "'%s' is not a PCI board", dev->uri);
	return dev->ops->pci_address(dev->priv, bdf, size);
}

int sb_device_dma_alloc(struct sb_device *dev, size_t len, struct sb_dma_buf *buf)
{
	memset(buf, 0, sizeof(*buf));
	if (!dev->ops->dma_alloc)
		return sb_error_set(SB_ERR_NOT_SUPPORTED,
		                    "'%s': the %s transport has no DMA buffers", dev->uri,
		                    dev->ops->name);
	return dev->ops->dma_alloc(dev->priv, len, buf);
}

void sb_device_dma_free(struct sb_device *dev, struct sb_dma_buf *buf)
{
	if (buf->host && dev->ops->dma_free)
		dev->ops->dma_free(dev->priv, buf);
	memset(buf, 0, sizeof(*buf));
}

int sb_device_trace_dma_setup(struct sb_device *dev, const struct sb_dma_buf *buf)
{
	uint32_t t;
	int err;

	if (dev->ops->trace_dma_setup)
		return dev->ops->trace_dma_setup(dev->priv, buf);
	if ((err = sb_device_find_block(dev, SB_BLK_TRACE_TYPE, 0, &t)) < 0)
		return sb_error_set(err, "'%s' has no trace block", dev->uri);
	if (buf->len / SB_TRACE_RECORD_BYTES * SB_TRACE_RECORD_BYTES > UINT32_MAX)
		return sb_error_set(SB_ERR_RANGE, "'%s': a trace ring of %zu bytes", dev->uri,
		                    buf->len);
	if ((err = sb_device_write32(dev, t + SB_TRACE_CONTROL, 0)) < 0 ||
	    (err = sb_device_write64(dev, t + SB_TRACE_BUF_ADDR, buf->bus)) < 0 ||
	    (err = sb_device_write32(
	         dev, t + SB_TRACE_BUF_SIZE,
	         (uint32_t)(buf->len / SB_TRACE_RECORD_BYTES * SB_TRACE_RECORD_BYTES))) < 0)
		return err;
	return sb_device_write32(dev, t + SB_TRACE_CONTROL, SB_TRACE_CONTROL_RESET_MASK);
}

int sb_device_dma_sync(struct sb_device *dev, struct sb_dma_buf *buf)
{
	return dev->ops->dma_sync ? dev->ops->dma_sync(dev->priv, buf) : 0;
}

int sb_device_replay_dma_alloc(struct sb_device *dev, size_t len, struct sb_dma_buf *buf)
{
	if (!dev->ops->replay_dma_alloc)
		return sb_device_dma_alloc(dev, len, buf);
	memset(buf, 0, sizeof(*buf));
	return dev->ops->replay_dma_alloc(dev->priv, len, buf);
}

static int replay_block(struct sb_device *dev, uint32_t *blk)
{
	int err = sb_device_find_block(dev, SB_BLK_REPLAY_TYPE, 0, blk);

	return err < 0 ? sb_error_set(err, "'%s' has no replay block", dev->uri) : 0;
}

int sb_device_replay_dma_setup(struct sb_device *dev, const struct sb_dma_buf *buf,
                               unsigned ring_log2)
{
	uint32_t r;
	int err;

	if ((err = replay_block(dev, &r)) < 0)
		return err;
	if (ring_log2 >= 32 || ((uint64_t)SB_REPLAY_DESC_BYTES << ring_log2) > buf->len)
		return sb_error_set(SB_ERR_RANGE,
		                    "'%s': a replay ring of 2^%u descriptors in a %zu-byte buffer",
		                    dev->uri, ring_log2, buf->len);
	if (dev->ops->replay_dma_setup)
		return dev->ops->replay_dma_setup(dev->priv, buf, ring_log2);
	if ((err = sb_device_write32(dev, r + SB_REPLAY_CONTROL, 0)) < 0 ||
	    (err = sb_device_write64(dev, r + SB_REPLAY_RING_ADDR, buf->bus)) < 0 ||
	    (err = sb_device_write32(dev, r + SB_REPLAY_RING_LOG2, ring_log2)) < 0)
		return err;
	return sb_device_write32(dev, r + SB_REPLAY_CONTROL, SB_REPLAY_CONTROL_RESET_MASK);
}

int sb_device_replay_dma_submit(struct sb_device *dev, struct sb_dma_buf *buf, uint32_t tail)
{
	uint32_t r;
	int err;

	if (dev->ops->replay_dma_submit)
		return dev->ops->replay_dma_submit(dev->priv, buf, tail);
	if ((err = replay_block(dev, &r)) < 0)
		return err;
	return sb_device_write32(dev, r + SB_REPLAY_TAIL, tail);
}

/* Poll the irq block on the bench clock (transports without event delivery). */
static int poll_events(struct sb_device *dev, uint32_t mask, uint64_t timeout_ns, uint32_t *events)
{
	uint64_t step = 1000, waited = 0;
	uint32_t irq;
	int err;

	if ((err = sb_device_find_block(dev, SB_BLK_IRQ_TYPE, 0, &irq)) < 0)
		return sb_error_set(err, "'%s': no interrupt block", dev->uri);
	for (;;) {
		uint32_t st;

		if ((err = sb_device_read32(dev, irq + SB_IRQ_STATUS, &st)) < 0)
			return err;
		if (st & mask) {
			*events = st & mask;
			return 0;
		}
		if (waited >= timeout_ns)
			return SB_ERR_TIMEOUT;
		if (step > timeout_ns - waited)
			step = timeout_ns - waited;
		if ((err = sb_device_wait_ns(dev, step)) < 0)
			return err;
		waited += step;
		if (step < 1000000)
			step *= 2;
	}
}

int sb_device_wait_event(struct sb_device *dev, uint32_t mask, uint64_t timeout_ns,
                         uint32_t *events)
{
	*events = 0;
	if (dev->ops->wait_event)
		return dev->ops->wait_event(dev->priv, mask, timeout_ns, events);
	return poll_events(dev, mask, timeout_ns, events);
}

int sb_device_bench(struct sb_device *dev, struct sb_bench_model **bench)
{
	*bench = NULL;
	if (!dev->ops->bench)
		return sb_error_set(
		    SB_ERR_NOT_SUPPORTED,
		    "'%s': the %s transport has no simulated bench (sim: instruments "
		    "need a sim: device)",
		    dev->uri, dev->ops->name);
	return dev->ops->bench(dev->priv, bench);
}
