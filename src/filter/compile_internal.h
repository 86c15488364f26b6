/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared between the parts of the filter compiler (not a public API). */
#ifndef FP_FILTER_COMPILE_INTERNAL_H
#define FP_FILTER_COMPILE_INTERNAL_H

#include "filter/compile.h"

/* Fields whose rules cover lists of classes. */
enum cfield { CF_VLAN, CF_SPORT, CF_DPORT, CF_LEN, CF_TTL, CF_SRC, CF_DST, CF_QNAME, CF_MAX };

struct clist {
	uint32_t n, cap;
	uint32_t *v;
};

/* Per rule: the classes it covers, per field (empty when it has no such term). */
struct rule_cls {
	struct clist f[CF_MAX];
};

/* The fields classified by value ranges: where each value's class lives in
 * fp_flt_cls (cls_base + value, domain values) and its class's mask word in
 * fp_flt_cmask (cm_base + class). */
struct range_field {
	enum cfield f;
	uint32_t cls_base, domain, cm_base;
};
#define N_RANGE_FIELDS 5
extern const struct range_field range_fields[N_RANGE_FIELDS];

/* calloc for the image's big tables (MBs, every apply): their pages are
 * faulted in by one madvise instead of a trap each on first write. */
void *big_calloc(size_t n, size_t size);

int clist_add(struct clist *l, uint32_t v);
const char *cfield_name(enum cfield f);

int classes_ranges(const struct fp_ruleset *set, enum cfield f, uint32_t *cls,
		   uint32_t domain, struct rule_cls *rc, char *err, size_t errlen);
int classes_addrs(const struct fp_ruleset *set, struct fp_flt_image *img, struct rule_cls *rc);
int build_cmask(const struct fp_ruleset *set, struct fp_flt_image *img,
		const uint8_t *rule_tuple, const struct rule_cls *rc);
int build_prefilter(struct fp_flt_image *img);
int pack_prefilter(struct fp_flt_image *img);
int build_flat(struct fp_flt_image *img);
int classes_qnames(const struct fp_ruleset *set, struct fp_flt_image *img, struct rule_cls *rc);

#endif
