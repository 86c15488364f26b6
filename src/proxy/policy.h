/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fastpath proxy policy: one rule a line, first match wins, then the
 * default. The grammar (fastpath-proxy(8), POLICY):
 *
 *   default allow|deny
 *   challenge-key FILE
 *   allow     [METHODS] TERM...
 *   deny      [METHODS] TERM... [status N]          (N 400..599, default 403)
 *   challenge [METHODS] TERM...
 *   limit N/s|N/m [burst N] [by client|all] [challenge] [status N] [METHODS] TERM...
 *
 *   METHODS := M[,M...]  (GET HEAD POST PUT DELETE CONNECT OPTIONS TRACE PATCH),
 *              bare or after `method`
 *   TERM := method METHODS | path /P | path /P* | host NAME | header NAME[=VALUE]
 *         | client CIDR | sni NAME
 *   NAME := a.example (exact, any case, a trailing dot ignored)
 *         | *.example (any name ending in ".example", not "example" itself)
 *
 * A `limit` rule is a meter, not a verdict: a request within the rate goes
 * on to the next rules; past it, it gets 429 (or the rule's status), or the
 * challenge when the rule says `challenge`. A `challenge` rule, and a
 * `limit ... challenge` past its rate, let a request that presents a valid
 * challenge cookie (view.cookie_ok) go on to the next rules as a limit
 * within its rate does; one without gets the challenge (a 302 setting it). `sni` rules decide TLS
 * connections the proxy does not terminate, on the ClientHello's server
 * name; they cannot have HTTP terms (method, path, host, header) nor
 * challenge (a connection not terminated cannot be redirected). Rules
 * with HTTP terms never match a TLS connection, and sni rules never an
 * HTTP request; a rule with only `client` (or nothing) matches both.
 */
#ifndef FP_PROXY_POLICY_H
#define FP_PROXY_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proxy/http.h"
#include "rules/rule.h" /* struct fp_diags, struct fp_cidr */

#define FP_PX_PATH_MAX   1024
#define FP_PX_NAME_MAX   256
#define FP_PX_HNAME_MAX  64
#define FP_PX_RULES_MAX  4096

enum fp_px_action {
	FP_PX_ALLOW,
	FP_PX_DENY,
	FP_PX_CHALLENGE,
	FP_PX_LIMIT,
};

/* methods as bits (FP_PX_M_GET = 1 << 0, ... in fp_px_method_names order) */
extern const char *const fp_px_method_names[]; /* NULL-terminated */

enum fp_px_limit_by {
	FP_PX_BY_CLIENT, /* one bucket per client address (the default) */
	FP_PX_BY_ALL,    /* one bucket for the rule */
};

struct fp_px_rule {
	unsigned line;
	enum fp_px_action action;
	uint32_t methods;                /* bits; 0 = any method */
	bool has_path, path_prefix;
	char path[FP_PX_PATH_MAX];       /* normalised; a prefix keeps its trailing '/' */
	uint32_t path_len;
	char host[FP_PX_NAME_MAX];       /* lower case, no port, no trailing dot, "*.suffix"
					  * for a wildcard; "" = any */
	char header_name[FP_PX_HNAME_MAX]; /* "" = no header term */
	bool header_has_value;
	char header_value[FP_PX_NAME_MAX];
	bool has_client;
	struct fp_cidr client;
	char sni[FP_PX_NAME_MAX];        /* lower case; "" = not an sni rule */
	uint16_t status;                 /* deny: 403, limit: 429 unless given */
	uint32_t rate_count, rate_period_s; /* limit: rate_count per rate_period_s */
	uint32_t burst;                  /* limit: bucket size (default: rate_count) */
	enum fp_px_limit_by by;
	bool limit_challenge;            /* limit: challenge past the rate, not 429 */
};

struct fp_px_policy {
	enum fp_px_action default_action;  /* FP_PX_ALLOW or FP_PX_DENY */
	unsigned default_line;             /* 0 when absent (then allow) */
	char challenge_key[FP_PX_PATH_MAX]; /* "" when absent */
	size_t n;
	struct fp_px_rule *rules;
};

/*
 * Parses a policy file. Reports every error (LINE:COL, col in bytes from 1)
 * into diags. 0 and *pol filled, or -EINVAL (diags->n > 0, *pol empty), or
 * -ENOMEM.
 */
int fp_px_policy__parse(const char *text, size_t len, struct fp_px_policy *pol,
			struct fp_diags *diags);

/* Frees pol->rules and zeroes pol. NULL-safe. */
void fp_px_policy__free(struct fp_px_policy *pol);

const char *fp_px_action__name(enum fp_px_action a);

/* The method's bit, or 0 for a method no rule can name. */
uint32_t fp_px_method__bit(const char *s, size_t n);

/* What a rule is matched against: an HTTP request, or a TLS connection. */
struct fp_px_view {
	bool tls;                       /* a TLS connection: only sni and client */
	const char *sni;                /* tls: the ClientHello's server name, or NULL */
	size_t sni_len;
	const char *buf;                /* http: the head the spans point into */
	const struct fp_http_req *req;  /* http */
	const char *path;               /* http: the normalised path */
	size_t path_len;
	uint8_t family;                 /* 4 or 6: the client's address */
	uint8_t addr[16];
	bool cookie_ok;                 /* http: it presents a valid challenge cookie */
};

/* True when every term of the rule matches the view. */
bool fp_px_rule__match(const struct fp_px_rule *r, const struct fp_px_view *v);

/*
 * Called for a limit rule that matched: true when this request is past the
 * rule's rate (and takes a token otherwise).
 */
typedef bool (*fp_px_over_fn)(void *ctx, size_t rule, const struct fp_px_view *v);

/* The decision for a view. rule = the deciding rule's index, or -1 for
 * the default. */
struct fp_px_verdict {
	enum fp_px_action action;  /* ALLOW, DENY or CHALLENGE (a limit past its
				    * rate: DENY with status 429, or CHALLENGE) */
	uint16_t status;           /* DENY: the status to answer */
	long rule;
};

void fp_px_policy__decide(const struct fp_px_policy *pol, const struct fp_px_view *v,
			  fp_px_over_fn over, void *ctx, struct fp_px_verdict *out);

#endif /* FP_PROXY_POLICY_H */
