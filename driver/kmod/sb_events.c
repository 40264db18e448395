// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * stackbench PCIe driver: board events (thermal failure, trace buffer ready, ...).
 *
 * The board latches events in irq.status and raises an interrupt while irq.pending
 * (status & mask) is non-zero. With MSI or MSI-X (the AC-510; in test mode QEMU's
 * ivshmem-doorbell, whose vector the bridge raises) a threaded handler reads pending,
 * acknowledges it (write 1 to clear) and wakes the readers of /dev/stackbench<N>; threaded,
 * because in test mode a register access is a bridge mailbox transaction, which sleeps.
 * Without a vector (ivshmem-plain has none, the platform refused MSI, or msi=0) a delayed
 * work item does the same every poll_ms milliseconds while the device is open.
 *
 * Each delivery bumps ev_seq and stamps the bits it carried; each open file remembers the
 * ev_seq it last read, so every reader sees every event once, and the interrupt handler never
 * walks the list of files.
 */
#include <linux/interrupt.h>
#include <linux/timekeeping.h>

#include "sb_drv.h"
#include "sb_regmap.h"

static unsigned int sb_events_mask = SB_IRQ_MASK_THERMAL_MASK | SB_IRQ_MASK_TRACE_READY_MASK;
module_param_named(events, sb_events_mask, uint, 0444);
MODULE_PARM_DESC(events, "irq.mask the driver programs at probe (default: thermal | trace_ready)");

static bool sb_msi = true;
module_param_named(msi, sb_msi, bool, 0444);
MODULE_PARM_DESC(msi, "Use an MSI-X or MSI vector when the board has one (default 1; 0: poll)");

static void sb_events_deliver(struct sb_board *b, u32 bits)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&b->ev_lock, flags);
	b->ev_seq++;
	for (i = 0; i < 32; i++)
		if (bits & BIT(i))
			b->ev_bit_seq[i] = b->ev_seq;
	b->ev_time_ns = ktime_get_ns();
	spin_unlock_irqrestore(&b->ev_lock, flags);
	wake_up_interruptible(&b->ev_wait);
}

/* Read irq.pending, acknowledge and deliver it. Returns whether there was something. */
static bool sb_events_check(struct sb_board *b)
{
	u32 pending = 0;

	if (sb_reg_read(b, b->irq_block + SB_IRQ_PENDING, &pending) || !pending ||
	    pending == U32_MAX) /* nothing, or the board is gone */
		return false;
	sb_reg_write(b, b->irq_block + SB_IRQ_STATUS, pending);
	sb_events_deliver(b, pending);
	return true;
}

static irqreturn_t sb_irq_thread(int irq, void *data)
{
	return sb_events_check(data) ? IRQ_HANDLED : IRQ_NONE;
}

static void sb_poll_work(struct work_struct *work)
{
	struct sb_board *b = container_of(to_delayed_work(work), struct sb_board, poll_work);

	down_read(&b->state_lock);
	if (b->removed) {
		up_read(&b->state_lock);
		return;
	}
	sb_events_check(b);
	up_read(&b->state_lock);
	/* The last close stops polling; a stray extra poll after it is harmless. */
	if (READ_ONCE(b->pollers))
		schedule_delayed_work(&b->poll_work, msecs_to_jiffies(READ_ONCE(sb_poll_ms)));
}

/* Program the mask, clear stale events, and request a vector if the board has one. */
int sb_events_init(struct sb_board *b)
{
	struct pci_dev *pdev = b->pdev;
	int ret;

	spin_lock_init(&b->ev_lock);
	init_waitqueue_head(&b->ev_wait);
	INIT_DELAYED_WORK(&b->poll_work, sb_poll_work);
	b->irq_vectors = 0;
	if (b->irq_block == U32_MAX) {
		dev_info(&pdev->dev, "no irq block: no events\n");
		return 0;
	}
	ret = sb_reg_write(b, b->irq_block + SB_IRQ_MASK, 0);
	if (!ret)
		ret = sb_reg_write(b, b->irq_block + SB_IRQ_STATUS, U32_MAX);
	if (ret)
		return ret;
	if (sb_msi) {
		ret = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSIX | PCI_IRQ_MSI);
		if (ret < 0) {
			/* ivshmem-plain has no vector: expected there. */
			if (b->kind == SB_KIND_AC510)
				dev_warn(&pdev->dev,
				         "no MSI/MSI-X vector (%d); polling events every %u ms\n",
				         ret, sb_poll_ms);
		} else {
			ret = request_threaded_irq(pci_irq_vector(pdev, 0), NULL, sb_irq_thread,
			                           IRQF_ONESHOT, dev_name(&b->dev), b);
			if (ret) {
				pci_free_irq_vectors(pdev);
				return ret;
			}
			b->irq_vectors = 1;
		}
	}
	ret = sb_reg_write(b, b->irq_block + SB_IRQ_MASK, sb_events_mask);
	if (ret && b->irq_vectors) {
		free_irq(pci_irq_vector(pdev, 0), b);
		pci_free_irq_vectors(pdev);
		b->irq_vectors = 0;
	}
	return ret;
}

/* Quiesce the board's interrupt and release the vector. Called once 'removed' is set. */
void sb_events_teardown(struct sb_board *b)
{
	cancel_delayed_work_sync(&b->poll_work);
	if (b->irq_block != U32_MAX)
		sb_reg_write(b, b->irq_block + SB_IRQ_MASK, 0);
	if (b->irq_vectors) {
		free_irq(pci_irq_vector(b->pdev, 0), b);
		pci_free_irq_vectors(b->pdev);
		b->irq_vectors = 0;
	}
	wake_up_interruptible_all(&b->ev_wait);
}

/*
 * The first open file starts polling, the last one stops it (files_lock held). Returns whether
 * this file was counted: only those are uncounted at close (with MSI no file is, and removal
 * releasing the vector in between must not make a close count down).
 */
bool sb_events_start_polling(struct sb_board *b)
{
	lockdep_assert_held(&b->files_lock);
	if (b->irq_vectors || b->irq_block == U32_MAX)
		return false;
	if (b->pollers++ == 0)
		schedule_delayed_work(&b->poll_work, msecs_to_jiffies(READ_ONCE(sb_poll_ms)));
	return true;
}

/* A counted file closes (files_lock held). */
void sb_events_stop_polling(struct sb_board *b)
{
	lockdep_assert_held(&b->files_lock);
	if (WARN_ON_ONCE(!b->pollers))
		return;
	if (--b->pollers == 0)
		cancel_delayed_work(&b->poll_work);
}

bool sb_events_pending(struct sb_board *b, struct sb_file *f)
{
	unsigned long flags;
	bool pending;

	spin_lock_irqsave(&b->ev_lock, flags);
	pending = b->ev_seq != f->ev_seen;
	spin_unlock_irqrestore(&b->ev_lock, flags);
	return pending;
}

/* Collect what this file has not seen yet and mark it seen. */
void sb_events_collect(struct sb_board *b, struct sb_file *f, u32 *events, u32 *count, u64 *time_ns)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&b->ev_lock, flags);
	*events = 0;
	for (i = 0; i < 32; i++)
		if (b->ev_bit_seq[i] > f->ev_seen)
			*events |= BIT(i);
	*count = (u32)min_t(u64, b->ev_seq - f->ev_seen, U32_MAX);
	*time_ns = b->ev_time_ns;
	f->ev_seen = b->ev_seq;
	spin_unlock_irqrestore(&b->ev_lock, flags);
}
