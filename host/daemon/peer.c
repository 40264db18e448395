/* SPDX-License-Identifier: MIT */
/*
 * Who is on the other end of a loopback TCP connection: every local user connects from
 * 127.0.0.1, so the dashboard asks the kernel (NETLINK_SOCK_DIAG, inet_diag: what `ss -e`
 * shows) for the owner of the peer's socket, and shares its connections out per user.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon.h"
#include "stackbench/error.h"

static bool is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	return ss->ss_family == AF_INET6 &&
	       IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/* Address and port of a socket address into an inet_diag socket id half. */
static void put(const struct sockaddr_storage *ss, __be16 *port, __be32 *addr)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;

		*port = a->sin_port;
		memcpy(addr, &a->sin_addr, 4);
	} else {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;

		*port = a->sin6_port;
		memcpy(addr, &a->sin6_addr, 16);
	}
}

int sbd_peer_uid(int fd, uid_t *uid)
{
	struct sockaddr_storage local, peer;
	socklen_t ll = sizeof(local), pl = sizeof(peer);
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req;
	struct sockaddr_nl nl = {.nl_family = AF_NETLINK};
	union {
		struct nlmsghdr nlh;
		char buf[8192];
	} ans;
	struct inet_diag_msg *m;
	ssize_t n;
	int s, e = 0;

	if (getsockname(fd, (struct sockaddr *)&local, &ll) < 0 ||
	    getpeername(fd, (struct sockaddr *)&peer, &pl) < 0 || !is_loopback(&peer) ||
	    peer.ss_family != local.ss_family)
		return sb_error_set(SB_ERR_NOT_FOUND, "not a loopback connection");
	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST;
	req.r.sdiag_family = (__u8)peer.ss_family;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = ~0u;
	/* The peer's socket: its source is our peer, its destination us. */
	put(&peer, &req.r.id.idiag_sport, req.r.id.idiag_src);
	put(&local, &req.r.id.idiag_dport, req.r.id.idiag_dst);
	req.r.id.idiag_cookie[0] = req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if ((s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) < 0)
		return sb_error_set(SB_ERR_IO, "sock_diag: %s", strerror(errno));
	if (sendto(s, &req, sizeof(req), 0, (struct sockaddr *)&nl, sizeof(nl)) < 0 ||
	    (n = recv(s, &ans, sizeof(ans), 0)) < 0) {
		e = sb_error_set(SB_ERR_IO, "sock_diag: %s", strerror(errno));
	} else if (!NLMSG_OK(&ans.nlh, (unsigned)n) || ans.nlh.nlmsg_type != SOCK_DIAG_BY_FAMILY ||
	           ans.nlh.nlmsg_len < NLMSG_LENGTH(sizeof(*m))) {
		e = sb_error_set(SB_ERR_NOT_FOUND, "sock_diag: no such socket");
	} else {
		m = NLMSG_DATA(&ans.nlh);
		*uid = m->idiag_uid;
	}
	close(s);
	return e;
}
