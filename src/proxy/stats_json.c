// SPDX-License-Identifier: BSD-2-Clause
/*
 * The control socket's "stats" answer (conn.h): the policy in use, each
 * rule's and each backend's counters (bytes spliced in the kernel and
 * copied through user space), the refusals by status, as `fastpath proxy
 * stats` and the Prometheus exporter read them.
 */
#include <stdio.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <jansson.h>

#include "proxy/conn.h"

json_t *px_stats_json(const struct px_server *s)
{
	const struct px_policy *p = s->pol;
	json_t *o = json_object(), *rules = json_array(), *bks = json_array(), *ref = json_object();
	uint64_t spliced = 0, copied = 0;
	char a[INET6_ADDRSTRLEN + 8], ip[INET6_ADDRSTRLEN];

	json_object_set_new(o, "policy", json_string(s->cfg->policy_path));
	json_object_set_new(o, "generation", json_integer((json_int_t)p->generation));
	json_object_set_new(o, "connections", json_integer(s->n_conns));
	json_object_set_new(o, "accepted", json_integer((json_int_t)s->accepted));
	json_object_set_new(o, "data_path", json_string(fp_px_data_path__name(s->cfg->data_path)));
	for (size_t i = 0; i <= p->pol.n; i++) {
		const struct px_rule_stats *st = &p->stats[i];
		json_t *r = json_object(), *sts = json_object();

		if (i < p->pol.n) {
			json_object_set_new(r, "line", json_integer(p->pol.rules[i].line));
			json_object_set_new(r, "action",
					    json_string(fp_px_action__name(p->pol.rules[i].action)));
		} else {
			json_object_set_new(r, "line", json_integer(p->pol.default_line));
			json_object_set_new(r, "action", json_string(
				p->pol.default_action == FP_PX_ALLOW ? "default allow" : "default deny"));
		}
		json_object_set_new(r, "requests", json_integer((json_int_t)st->requests));
		json_object_set_new(r, "allowed", json_integer((json_int_t)st->allowed));
		for (int k = 0; k < PX_STATUS_SLOTS && st->status[k]; k++) {
			char key[8];

			snprintf(key, sizeof(key), "%u", st->status[k]);
			json_object_set_new(sts, key, json_integer((json_int_t)st->status_n[k]));
		}
		json_object_set_new(r, "statuses", sts);
		json_object_set_new(r, "closed", json_integer((json_int_t)st->closed));
		json_array_append_new(rules, r);
	}
	json_object_set_new(o, "rules", rules);
	/* transparent without backends: one, each connection's original destination */
	for (unsigned b = 0; b < (s->cfg->n_backends ? s->cfg->n_backends : 1); b++) {
		const struct fp_px_backend_stats *bs = &s->backends[b];
		const struct sockaddr_storage *ss = &s->cfg->backends[b];
		json_t *r = json_object();

		if (!s->cfg->n_backends) {
			snprintf(a, sizeof(a), "original-destination");
		} else if (ss->ss_family == AF_INET6) {
			inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, ip, sizeof(ip));
			snprintf(a, sizeof(a), "[%s]:%u", ip,
				 ntohs(((const struct sockaddr_in6 *)ss)->sin6_port));
		} else {
			inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, ip, sizeof(ip));
			snprintf(a, sizeof(a), "%s:%u", ip, ntohs(((const struct sockaddr_in *)ss)->sin_port));
		}
		json_object_set_new(r, "address", json_string(a));
		json_object_set_new(r, "requests", json_integer((json_int_t)bs->requests));
		json_object_set_new(r, "connects", json_integer((json_int_t)bs->connects));
		json_object_set_new(r, "connect_failures", json_integer((json_int_t)bs->connect_failures));
		json_object_set_new(r, "bytes_spliced", json_integer((json_int_t)bs->bytes_spliced));
		json_object_set_new(r, "bytes_copied", json_integer((json_int_t)bs->bytes_copied));
		spliced += bs->bytes_spliced;
		copied += bs->bytes_copied;
		json_array_append_new(bks, r);
	}
	json_object_set_new(o, "backends", bks);
	json_object_set_new(o, "bytes_spliced", json_integer((json_int_t)spliced));
	json_object_set_new(o, "bytes_copied", json_integer((json_int_t)copied));
	for (int k = 0; k < 7; k++) {
		char key[8];

		snprintf(key, sizeof(key), "%d", px_refused_status[k]);
		json_object_set_new(ref, key, json_integer((json_int_t)s->refused[k]));
	}
	json_object_set_new(o, "refused", ref);
	json_object_set_new(o, "tls_refused", json_integer((json_int_t)s->tls_refused));
	json_object_set_new(o, "body_timeouts", json_integer((json_int_t)s->body_timeouts));
	return o;
}
