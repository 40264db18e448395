/* SPDX-License-Identifier: MIT */
/*
 * Machine topology with hwloc: which CPUs and NUMA nodes are near a board's PCIe root, so the
 * engine can pin its threads and allocate its buffers there. Tests load a recorded topology
 * (`lstopo --of xml`) instead of this machine's.
 */
#ifndef STACKBENCH_TOPOLOGY_H
#define STACKBENCH_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sb_topology;

/* Where something sits: the CPUs and NUMA nodes of its nearest non-I/O ancestor. */
struct sb_locality {
	int numa_node;  /* first NUMA node (OS index), -1 when the machine reports none */
	unsigned ncpus; /* logical CPUs in cpus */
	char cpus[256]; /* OS indexes in list form, e.g. "8-15,24-31" */
	char nodes[64]; /* NUMA nodes in list form, e.g. "1" ("" when none) */
};

/*
 * Load this machine's topology (xml_path NULL) or a recorded one (an hwloc XML file), with
 * PCI devices. Returns 0, SB_ERR_NOT_FOUND / SB_ERR_PARSE (the XML file; the detail names it),
 * SB_ERR_IO (hwloc failed) or SB_ERR_NOMEM.
 */
int sb_topology_new(struct sb_topology **out, const char *xml_path);

/* Free; NULL is ignored. */
void sb_topology_free(struct sb_topology *t);

/* True when the topology is this machine's (binding is possible). */
bool sb_topology_is_this_system(const struct sb_topology *t);

/*
 * The locality of a PCI function ("DDDD:BB:DD.F" or "BB:DD.F"). Returns 0 or SB_ERR_NOT_FOUND
 * (the function is not in the topology).
 */
int sb_topology_pci_locality(struct sb_topology *t, const char *bdf, struct sb_locality *loc);

/* The locality of the whole machine (every CPU and node). */
int sb_topology_machine_locality(struct sb_topology *t, struct sb_locality *loc);

/*
 * Pin the calling thread to the CPUs of loc. Returns 0, SB_ERR_NOT_SUPPORTED (a recorded
 * topology is not this machine), SB_ERR_PARSE (bad loc->cpus) or SB_ERR_IO (the OS refused).
 */
int sb_topology_bind_thread(struct sb_topology *t, const struct sb_locality *loc);

/*
 * Allocate len bytes of memory bound to the NUMA nodes of loc (page aligned, zeroed on first
 * touch); free with sb_topology_free_mem(). On a machine without NUMA nodes the memory is
 * simply allocated. Returns 0, SB_ERR_NOT_SUPPORTED (recorded topology), SB_ERR_PARSE or
 * SB_ERR_NOMEM.
 */
int sb_topology_alloc_near(struct sb_topology *t, const struct sb_locality *loc, size_t len,
                           void **mem);
void sb_topology_free_mem(struct sb_topology *t, void *mem, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_TOPOLOGY_H */
