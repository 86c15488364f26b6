/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internal to src/rules/: parsers for the arguments of rule terms (numbers,
 * ranges, ports, CIDRs, TCP flags, DNS names and types), name tables, the
 * "did you mean" helper and the diagnostics collector.
 *
 * Each fp_val__* parser takes the argument text s[0..n) and the keyword it
 * follows (for messages); it returns 0, or -1 with a full message in err.
 */
#ifndef FP_RULES_VALUES_H
#define FP_RULES_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "rule.h"

#define FP_ERR_MAX sizeof(((struct fp_diag *)0)->msg)

/* Decimal digits only. 0, -1 (not a number) or -2 (greater than max). */
int fp_val__uint(const char *s, size_t n, uint64_t max, uint64_t *out);

int fp_val__range(const char *s, size_t n, const char *kw, uint32_t max,
		  struct fp_range *r, char *err, size_t es);
int fp_val__ports(const char *s, size_t n, const char *kw, struct fp_portset *p,
		  char *err, size_t es);
int fp_val__cidr(const char *s, size_t n, const char *kw, struct fp_cidr *c,
		 char *err, size_t es);
int fp_val__flags(const char *s, size_t n, uint8_t *mask, uint8_t *val,
		  char *err, size_t es);
int fp_val__qname(const char *s, size_t n, struct fp_qname *q, char *err, size_t es);
int fp_val__qtype(const char *s, size_t n, uint16_t *t, char *err, size_t es);
/* ETHER := a name (arp, ip6, ...) | 0xHHHH | decimal; 0x0600..0xffff, no VLAN TPID */
int fp_val__ether(const char *s, size_t n, uint16_t *t, char *err, size_t es);
/* RATE := N/s | N/m */
int fp_val__rate(const char *s, size_t n, uint32_t *count, uint32_t *period_s,
		 char *err, size_t es);

/* TCP flag name of one bit (FP_TCP_*), or NULL. */
const char *fp_tcp_flag__name(unsigned bit);

/* The candidate closest to s[0..n) (case-insensitive edit distance <= 1
 * for short words, <= 2 otherwise), or NULL. cands ends with NULL. */
const char *fp_val__suggest(const char *s, size_t n, const char *const *cands);

/* Counts one error; stores it (growing d->v) when memory allows. d may be
 * NULL. */
void fp_diags__add(struct fp_diags *d, unsigned line, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* FP_RULES_VALUES_H */
