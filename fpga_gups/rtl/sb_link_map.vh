// SPDX-License-Identifier: MIT
// Include inside the body of a module with the parameters N (GUPS ports), LINKS,
// PORTS_PER_LINK and FIRST_PORT: which link each GUPS port's requests use, and the
// elaboration-time checks of the mapping. sb_gups_top and sb_replay include it, so the two
// cannot disagree.
//
// The HMC controller offers PORTS_PER_LINK user ports per link, numbered link by link (user
// port u is on link u / PORTS_PER_LINK); GUPS port i is user port FIRST_PORT + i. The AC-510
// (Micron/Pico M510 UserWrapper) has 5 user ports per link and keeps user port 0 of link 0 for
// the PCIe stream: PORTS_PER_LINK 5, FIRST_PORT 1, so GUPS ports 0-3 use link 0 and 4-8 link 1
// -- the board model's profile keys ports_per_link / first_port, same formula
// (fpga_gups/model/engine.c, sb_engine_port_link). PORTS_PER_LINK 1, FIRST_PORT 0 and
// LINKS = N give every port a user port of its own.

// Link of GUPS port i.
function automatic integer sb_port_link(input integer i);
	sb_port_link = (FIRST_PORT + i) / PORTS_PER_LINK;
endfunction

generate
	if (PORTS_PER_LINK < 1 || PORTS_PER_LINK > 16)
		$error("link map: PORTS_PER_LINK (%0d) must be 1..16 (instance %m)", PORTS_PER_LINK);
	else if (FIRST_PORT < 0 || FIRST_PORT >= PORTS_PER_LINK)
		$error("link map: FIRST_PORT (%0d) must be 0..PORTS_PER_LINK-1 (%0d), else link 0 has no GUPS port (instance %m)",
		       FIRST_PORT, PORTS_PER_LINK - 1);
	else if (FIRST_PORT + N > PORTS_PER_LINK * LINKS)
		$error("link map: FIRST_PORT + N (%0d) exceed the PORTS_PER_LINK x LINKS (%0d) user ports (instance %m)",
		       FIRST_PORT + N, PORTS_PER_LINK * LINKS);
	else if (FIRST_PORT + N <= PORTS_PER_LINK * (LINKS - 1))
		$error("link map: link %0d has no GUPS port (FIRST_PORT + N = %0d): lower LINKS (instance %m)",
		       LINKS - 1, FIRST_PORT + N);
endgenerate
