/* SPDX-License-Identifier: MIT */
/* Machine topology with hwloc (see stackbench/topology.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>

#include "stackbench/error.h"
#include "stackbench/topology.h"
#include "stackbench/util.h"

struct sb_topology {
	hwloc_topology_t topo;
	char *xml_path; /* NULL for this machine */
};

int sb_topology_new(struct sb_topology **out, const char *xml_path)
{
	struct sb_topology *t;
	int err;

	*out = NULL;
	if (xml_path && access(xml_path, R_OK) < 0)
		return sb_error_set(SB_ERR_NOT_FOUND, "cannot read topology '%s': %s", xml_path,
		                    strerror(errno));
	t = calloc(1, sizeof(*t));
	if (!t)
		return sb_error_set(SB_ERR_NOMEM, "out of memory loading the topology");
	if (xml_path && !(t->xml_path = strdup(xml_path))) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory loading the topology");
		goto fail_alloc;
	}
	if (hwloc_topology_init(&t->topo) < 0) {
		err = sb_error_set(SB_ERR_IO, "hwloc: cannot initialize a topology: %s",
		                   strerror(errno));
		goto fail_alloc;
	}
	hwloc_topology_set_io_types_filter(t->topo, HWLOC_TYPE_FILTER_KEEP_ALL);
	if (xml_path && hwloc_topology_set_xml(t->topo, xml_path) < 0) {
		err = sb_error_set(SB_ERR_PARSE, "topology '%s' is not a usable hwloc XML file",
		                   xml_path);
		goto fail_init;
	}
	if (hwloc_topology_load(t->topo) < 0) {
		err = xml_path ? sb_error_set(SB_ERR_PARSE, "cannot load topology '%s': %s",
		                              xml_path, strerror(errno))
		               : sb_error_set(SB_ERR_IO,
		                              "hwloc: cannot load this machine's topology: %s",
		                              strerror(errno));
		goto fail_init;
	}
	*out = t;
	return 0;

fail_init:
	hwloc_topology_destroy(t->topo);
fail_alloc:
	free(t->xml_path);
	free(t);
	return err;
}

void sb_topology_free(struct sb_topology *t)
{
	if (!t)
		return;
	hwloc_topology_destroy(t->topo);
	free(t->xml_path);
	free(t);
}

bool sb_topology_is_this_system(const struct sb_topology *t)
{
	return hwloc_topology_is_thissystem(t->topo);
}

static void locality_of(hwloc_topology_t topo, hwloc_obj_t obj, struct sb_locality *loc)
{
	memset(loc, 0, sizeof(*loc));
	loc->numa_node = -1;
	if (obj->cpuset) {
		hwloc_bitmap_list_snprintf(loc->cpus, sizeof(loc->cpus), obj->cpuset);
		loc->ncpus = (unsigned)hwloc_bitmap_weight(obj->cpuset);
	}
	if (obj->nodeset && !hwloc_bitmap_iszero(obj->nodeset) &&
	    hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) > 0) {
		hwloc_bitmap_list_snprintf(loc->nodes, sizeof(loc->nodes), obj->nodeset);
		loc->numa_node = hwloc_bitmap_first(obj->nodeset);
	}
}

int sb_topology_pci_locality(struct sb_topology *t, const char *bdf, struct sb_locality *loc)
{
	hwloc_obj_t dev = hwloc_get_pcidev_by_busidstring(t->topo, bdf), anc;

	if (!dev)
		return sb_error_set(SB_ERR_NOT_FOUND, "PCI function %s is not in the topology%s%s",
		                    bdf, t->xml_path ? " " : " of this machine",
		                    t->xml_path ? t->xml_path : "");
	anc = hwloc_get_non_io_ancestor_obj(t->topo, dev);
	if (!anc)
		return sb_error_set(SB_ERR_NOT_FOUND, "PCI function %s has no CPU-side parent",
		                    bdf);
	locality_of(t->topo, anc, loc);
	return 0;
}

int sb_topology_machine_locality(struct sb_topology *t, struct sb_locality *loc)
{
	locality_of(t->topo, hwloc_get_root_obj(t->topo), loc);
	return 0;
}

static int need_this_system(const struct sb_topology *t, const char *what)
{
	if (hwloc_topology_is_thissystem(t->topo))
		return 0;
	return sb_error_set(SB_ERR_NOT_SUPPORTED,
	                    "cannot %s: the topology '%s' was recorded, it is not this machine",
	                    what, t->xml_path ? t->xml_path : "?");
}

static int parse_list(const char *list, const char *what, hwloc_bitmap_t *out)
{
	*out = hwloc_bitmap_alloc();
	if (!*out)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	if (!*list || hwloc_bitmap_list_sscanf(*out, list) < 0 || hwloc_bitmap_iszero(*out)) {
		hwloc_bitmap_free(*out);
		*out = NULL;
		return sb_error_set(SB_ERR_PARSE, "bad %s list '%s'", what, list);
	}
	return 0;
}

int sb_topology_bind_thread(struct sb_topology *t, const struct sb_locality *loc)
{
	hwloc_bitmap_t set;
	int err;

	if ((err = need_this_system(t, "pin a thread")) < 0 ||
	    (err = parse_list(loc->cpus, "CPU", &set)) < 0)
		return err;
	if (hwloc_set_cpubind(t->topo, set, HWLOC_CPUBIND_THREAD) < 0)
		err = sb_error_set(SB_ERR_IO, "cannot pin the thread to CPUs %s: %s", loc->cpus,
		                   strerror(errno));
	hwloc_bitmap_free(set);
	return err;
}

int sb_topology_alloc_near(struct sb_topology *t, const struct sb_locality *loc, size_t len,
                           void **mem)
{
	hwloc_bitmap_t set;
	int err;

	*mem = NULL;
	if ((err = need_this_system(t, "allocate near a device")) < 0)
		return err;
	if (!loc->nodes[0]) {
		*mem = hwloc_alloc(t->topo, len);
		return *mem ? 0 : sb_error_set(SB_ERR_NOMEM, "cannot allocate %zu bytes", len);
	}
	if ((err = parse_list(loc->nodes, "NUMA node", &set)) < 0)
		return err;
	/* Bind where possible; fall back to where the OS puts it (no NUMA support). */
	*mem = hwloc_alloc_membind(t->topo, len, set, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET);
	if (!*mem && errno == ENOSYS)
		*mem = hwloc_alloc(t->topo, len);
	hwloc_bitmap_free(set);
	return *mem ? 0
	            : sb_error_set(SB_ERR_NOMEM, "cannot allocate %zu bytes on NUMA nodes %s: %s",
	                           len, loc->nodes, strerror(errno));
}

void sb_topology_free_mem(struct sb_topology *t, void *mem, size_t len)
{
	if (mem)
		hwloc_free(t->topo, mem, len);
}
