// SPDX-License-Identifier: MIT
// Include inside a module body: the command codes of the HMC controller's user ports (the
// Micron/Pico controller's 4-bit `cmd`: bit 3 = posted, bits 2..1 = atomics, bit 0 = write).
// These are interface codes, not register offsets.

localparam [3:0] SB_UPORT_CMD_RD    = 4'b0000; // read, `size` flits of response data
localparam [3:0] SB_UPORT_CMD_WR    = 4'b0001; // non-posted write (one response flit)
localparam [3:0] SB_UPORT_CMD_P_WR  = 4'b1001; // posted write (no response)
