// SPDX-License-Identifier: BSD-2-Clause
/*
 * How many frames the interface refused: the driver's XDP transmit errors,
 * summed over its queues from ethtool statistics (veth: tx_queue_N_
 * xdp_xmit_errors, frames the peer's ring had no room for). `gen` reports
 * it: frames sent that never reached the peer's XDP program.
 */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "gen/gen_internal.h"

static int ethtool(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr = { 0 };

	memcpy(ifr.ifr_name, ifname, strnlen(ifname, IFNAMSIZ - 1));
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

static bool is_xmit_error(const char *name)
{
	size_t n = strlen(name), k = strlen("xdp_xmit_errors");

	return n > k && !strncmp(name, "tx_queue_", 9) && !strcmp(name + n - k, "xdp_xmit_errors");
}

int gen_refused_open(struct gen_refused *r, int ifindex)
{
	struct { struct ethtool_sset_info hdr; __u32 len; } ss = {
		.hdr = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ull << ETH_SS_STATS } };
	struct ethtool_gstrings *names = NULL;
	int ret;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (!if_indextoname((unsigned)ifindex, r->ifname))
		return -errno;
	r->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (r->fd < 0)
		return -errno;
	ret = ethtool(r->fd, r->ifname, &ss);
	if (ret)
		goto fail;
	r->n_stats = ss.len;
	ret = -ENOENT;
	if (!r->n_stats || r->n_stats > 4096)
		goto fail;
	names = calloc(1, sizeof(*names) + (size_t)r->n_stats * ETH_GSTRING_LEN);
	r->idx = calloc(r->n_stats, sizeof(*r->idx));
	r->stats = calloc(1, sizeof(*r->stats) + (size_t)r->n_stats * sizeof(__u64));
	ret = -ENOMEM;
	if (!names || !r->idx || !r->stats)
		goto fail;
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_STATS;
	names->len = r->n_stats;
	ret = ethtool(r->fd, r->ifname, names);
	if (ret)
		goto fail;
	for (__u32 i = 0; i < r->n_stats; i++) {
		char name[ETH_GSTRING_LEN + 1] = { 0 };

		memcpy(name, names->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		if (is_xmit_error(name))
			r->idx[r->n_idx++] = i;
	}
	free(names);
	if (!r->n_idx) {
		gen_refused_close(r);
		return -ENOENT;
	}
	return 0;
fail:
	free(names);
	gen_refused_close(r);
	return ret;
}

int gen_refused_read(struct gen_refused *r, uint64_t *total)
{
	int ret;

	r->stats->cmd = ETHTOOL_GSTATS;
	r->stats->n_stats = r->n_stats;
	ret = ethtool(r->fd, r->ifname, r->stats);
	if (ret)
		return ret;
	*total = 0;
	for (__u32 i = 0; i < r->n_idx; i++)
		*total += r->stats->data[r->idx[i]];
	return 0;
}

void gen_refused_close(struct gen_refused *r)
{
	if (r->fd >= 0)
		close(r->fd);
	free(r->idx);
	free(r->stats);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}
