/* SPDX-License-Identifier: MIT */
/*
 * FLIR One USB facts the driver (flirone.c) and the replay generator of the tests share: ids,
 * configuration, endpoints, the SET_INTERFACE request, and the transfer sizes the driver asks
 * for (a recorded conversation matches only the sizes it was recorded with).
 */
#ifndef SB_FLIRONE_USB_H
#define SB_FLIRONE_USB_H

#define SB_FLIRONE_VID 0x09cb
#define SB_FLIRONE_PID 0x1996
#define SB_FLIRONE_CONFIG 3
#define SB_FLIRONE_EP_STATUS 0x81     /* status (JSON), drained */
#define SB_FLIRONE_EP_FILEIO 0x83     /* file I/O, drained */
#define SB_FLIRONE_EP_FRAMES 0x85     /* frames */
#define SB_FLIRONE_SETIF_REQTYPE 0x01 /* standard, host to device, interface */
#define SB_FLIRONE_SETIF_REQ 0x0b     /* SET_INTERFACE */
#define SB_FLIRONE_XFER_BYTES 65536   /* bulk IN request on 0x85 */
#define SB_FLIRONE_XFER_TIMEOUT_MS 100
#define SB_FLIRONE_DRAIN_BYTES 512 /* bulk IN request on 0x81 and 0x83 */
#define SB_FLIRONE_DRAIN_TIMEOUT_MS 10

#endif /* SB_FLIRONE_USB_H */
