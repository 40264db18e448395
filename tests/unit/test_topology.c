/* SPDX-License-Identifier: MIT */
/*
 * Machine topology with hwloc: locality of boards from a recorded two-socket topology
 * (tests/data/topology-2socket-ac510.xml), binding on this machine's own topology.
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/topology.h"

#define XML SB_TEST_DATA_DIR "/topology-2socket-ac510.xml"

static struct sb_topology *load(const char *path)
{
	struct sb_topology *t;

	cr_assert_eq(sb_topology_new(&t, path), 0, "%s", sb_error_detail());
	return t;
}

Test(topology, boards_sit_on_socket_one)
{
	struct sb_topology *t = load(XML);
	struct sb_locality loc;

	cr_assert_not(sb_topology_is_this_system(t));
	cr_assert_eq(sb_topology_pci_locality(t, "0000:83:00.0", &loc), 0, "%s", sb_error_detail());
	cr_assert_eq(loc.numa_node, 1);
	cr_assert_str_eq(loc.cpus, "16-31");
	cr_assert_str_eq(loc.nodes, "1");
	cr_assert_eq(loc.ncpus, 16);
	cr_assert_eq(sb_topology_pci_locality(t, "84:00.0", &loc), 0, "%s", sb_error_detail());
	cr_assert_eq(loc.numa_node, 1);
	cr_assert_eq(sb_topology_pci_locality(t, "0000:00:04.0", &loc), 0);
	cr_assert_eq(loc.numa_node, 0);
	cr_assert_str_eq(loc.cpus, "0-15");
	sb_topology_free(t);
}

Test(topology, machine_locality_covers_everything)
{
	struct sb_topology *t = load(XML);
	struct sb_locality loc;

	cr_assert_eq(sb_topology_machine_locality(t, &loc), 0);
	cr_assert_eq(loc.ncpus, 32);
	cr_assert_str_eq(loc.cpus, "0-31");
	cr_assert_str_eq(loc.nodes, "0-1");
	cr_assert_eq(loc.numa_node, 0);
	sb_topology_free(t);
}

Test(topology, unknown_function_is_not_found)
{
	struct sb_topology *t = load(XML);
	struct sb_locality loc;

	cr_assert_eq(sb_topology_pci_locality(t, "0000:99:00.0", &loc), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "0000:99:00.0"), "%s", sb_error_detail());
	cr_assert(strstr(sb_error_detail(), "topology-2socket-ac510.xml"), "%s", sb_error_detail());
	sb_topology_free(t);
}

Test(topology, recorded_topology_cannot_bind)
{
	struct sb_topology *t = load(XML);
	struct sb_locality loc;
	void *mem = (void *)1;

	sb_topology_pci_locality(t, "0000:83:00.0", &loc);
	cr_assert_eq(sb_topology_bind_thread(t, &loc), SB_ERR_NOT_SUPPORTED);
	cr_assert(strstr(sb_error_detail(), "recorded"), "%s", sb_error_detail());
	cr_assert_eq(sb_topology_alloc_near(t, &loc, 4096, &mem), SB_ERR_NOT_SUPPORTED);
	cr_assert_null(mem);
	sb_topology_free(t);
}

Test(topology, bad_files_are_named)
{
	struct sb_topology *t = (void *)1;
	char path[] = "/tmp/sb-topo-XXXXXX";
	int fd = mkstemp(path);

	cr_assert_eq(sb_topology_new(&t, "/nonexistent/topo.xml"), SB_ERR_NOT_FOUND);
	cr_assert_null(t);
	cr_assert(strstr(sb_error_detail(), "'/nonexistent/topo.xml'"), "%s", sb_error_detail());
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "<topology>not hwloc", 19), 19);
	close(fd);
	cr_assert_eq(sb_topology_new(&t, path), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), path), "%s", sb_error_detail());
	unlink(path);
}

Test(topology, this_machine_binds_and_allocates)
{
	struct sb_topology *t = load(NULL);
	struct sb_locality loc, bad;
	cpu_set_t set;
	void *mem;

	cr_assert(sb_topology_is_this_system(t));
	cr_assert_eq(sb_topology_machine_locality(t, &loc), 0);
	cr_assert_geq(loc.ncpus, 1);
	cr_assert_eq(sb_topology_bind_thread(t, &loc), 0, "%s", sb_error_detail());
	cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	cr_assert_eq((unsigned)CPU_COUNT(&set), loc.ncpus, "bound to %d CPUs, locality has %u (%s)",
	             CPU_COUNT(&set), loc.ncpus, loc.cpus);
	cr_assert_eq(sb_topology_alloc_near(t, &loc, 1 << 20, &mem), 0, "%s", sb_error_detail());
	cr_assert_not_null(mem);
	memset(mem, 0xA5, 1 << 20);
	sb_topology_free_mem(t, mem, 1 << 20);
	bad = loc;
	snprintf(bad.cpus, sizeof(bad.cpus), "x-y");
	cr_assert_eq(sb_topology_bind_thread(t, &bad), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "'x-y'"), "%s", sb_error_detail());
	sb_topology_free(t);
}
