// SPDX-License-Identifier: BSD-2-Clause
/*
 * The Prometheus exposition (src/exporter/metrics.c), rendered from
 * hand-made interface states: every family has one HELP and one TYPE line
 * before all its samples, counters end in _total, label values are escaped,
 * values and timestamps are exact, broken and missing interfaces are shown
 * as they should be. When promtool is installed, it checks the text too.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <linux/if_link.h>

#include <cmocka.h>

#include "exporter/metrics.h"

static char *text;
static size_t len;

static void check_promtool(void);
static bool have_promtool(void);

static int teardown(void **state)
{
	(void)state;
	free(text);
	text = NULL;
	return 0;
}

static struct fp_filter_rule_info rules[3];
static struct fp_filter_view views[3];
static struct fp_iface_status sts[3];
static struct fp_metrics_iface ifs[3];

/* eth0: two rules, native, filter stage; a"b\c\n: one rule, skb, missing;
 * gone: broken pins. */
static struct fp_metrics sample(void)
{
	memset(rules, 0, sizeof(rules));
	memset(views, 0, sizeof(views));
	memset(sts, 0, sizeof(sts));
	snprintf(rules[0].text, sizeof(rules[0].text), "drop udp dport 7000 id udp-7000 \"flood\"");
	rules[0].total = (struct fp_rule_cnt){ .packets = 12345, .bytes = 740700, .drops = 12345,
					      .samples = 123 };
	snprintf(rules[1].text, sizeof(rules[1].text), "pass icmp id 2");
	rules[1].total = (struct fp_rule_cnt){ .packets = 3, .bytes = 294 };
	snprintf(rules[2].text, sizeof(rules[2].text), "drop tcp flags syn,!ack len 40 id syn");
	rules[2].total = (struct fp_rule_cnt){ .packets = 18446744073709551615ull, .bytes = 1 };

	views[0].n_rules = 2;
	views[0].rules = &rules[0];
	views[0].has_rules = true;
	views[0].smp = (struct fp_smp_stats){ .sampled = 130, .lost = 7 };
	for (int s = 0; s < FP_FLT_ST_MAX; s++)
		views[0].stage[s] = (struct fp_counter){ .packets = 100 + s, .bytes = 1000 + s };
	views[1].n_rules = 1;
	views[1].rules = &rules[2];

	snprintf(sts[0].name, sizeof(sts[0].name), "eth0");
	sts[0].state = FP_IFACE_OK;
	sts[0].meta = (struct fp_meta){ .xdp_flags = XDP_FLAGS_DRV_MODE,
					.loaded_ns = 1764756360000000007ull };
	sts[0].flt = (struct fp_flt_state){ .serial = 42, .applied_ns = 1764756399123456789ull };
	sts[0].has_filter = true;
	sts[0].has_rules = true;
	sts[0].n_rules = 2;
	sts[0].n_stages = 2;
	sts[0].stage[0] = (struct fp_stage_status){ .name = "dump", .slot = FP_STAGE_DUMP };
	/* the filter counts by XDP action too: rendered by decision only */
	sts[0].stage[1] = (struct fp_stage_status){
		.name = "filter", .slot = FP_STAGE_FILTER, .enabled = true, .running = true,
		.counts = { .have = true, .in = 99, .out = { [XDP_DROP] = 98, [XDP_PASS] = 1 } } };

	snprintf(sts[1].name, sizeof(sts[1].name), "a\"b\\c\n");
	sts[1].state = FP_IFACE_MISSING;
	sts[1].meta = (struct fp_meta){ .xdp_flags = XDP_FLAGS_SKB_MODE, .loaded_ns = 5 };
	sts[1].has_filter = true;
	sts[1].n_rules = 1;
	sts[1].n_stages = 2;
	sts[1].stage[0] = (struct fp_stage_status){ .name = "dump", .slot = FP_STAGE_DUMP,
						    .enabled = true };
	sts[1].stage[1] = (struct fp_stage_status){ .name = "filter", .slot = FP_STAGE_FILTER,
						    .enabled = true };

	snprintf(sts[2].name, sizeof(sts[2].name), "gone");
	sts[2].state = FP_IFACE_BROKEN;
	sts[2].error = -ENOENT;

	for (int i = 0; i < 3; i++)
		ifs[i] = (struct fp_metrics_iface){ .st = &sts[i], .view = i < 2 ? &views[i] : NULL };
	return (struct fp_metrics){ .ifaces = ifs, .n = 3, .scrape_errors = 7 };
}

static void render_sample(void)
{
	struct fp_metrics m = sample();

	assert_int_equal(fp_metrics__render(&m, &text, &len), 0);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
}

static void assert_has(const char *line)
{
	char want[512];

	snprintf(want, sizeof(want), "\n%s\n", line);
	if (!strstr(text, want) && strncmp(text, want + 1, strlen(want + 1)))
		fail_msg("missing line '%s' in:\n%s", line, text);
}

static void test_values(void **state)
{
	(void)state;
	render_sample();
	assert_has("fastpath_rule_packets_total{iface=\"eth0\",rule=\"udp-7000\"} 12345");
	assert_has("fastpath_rule_bytes_total{iface=\"eth0\",rule=\"udp-7000\"} 740700");
	assert_has("fastpath_rule_packets_total{iface=\"eth0\",rule=\"2\"} 3");
	assert_has("fastpath_rule_packets_total{iface=\"a\\\"b\\\\c\\n\",rule=\"syn\"} 18446744073709551615");
	assert_has("fastpath_stage_packets_total{iface=\"eth0\",stage=\"filter\",verdict=\"drop\",decision=\"rule_drop\"} 101");
	assert_has("fastpath_stage_bytes_total{iface=\"eth0\",stage=\"filter\",verdict=\"pass\",decision=\"no_rules\"} 1006");
	assert_has("fastpath_stage_packets_total{iface=\"eth0\",stage=\"filter\",verdict=\"drop\",decision=\"limit_drop\"} 103");
	assert_has("fastpath_stage_packets_total{iface=\"eth0\",stage=\"filter\",verdict=\"pass\",decision=\"default_pass\"} 104");
	assert_has("fastpath_rules{iface=\"eth0\"} 2");
	assert_has("fastpath_generation{iface=\"eth0\"} 42");
	assert_has("fastpath_loaded_timestamp_seconds{iface=\"eth0\"} 1764756360.000000007");
	assert_has("fastpath_applied_timestamp_seconds{iface=\"eth0\"} 1764756399.123456789");
	assert_has("fastpath_rule_drops_total{iface=\"eth0\",rule=\"udp-7000\"} 12345");
	assert_has("fastpath_rule_samples_total{iface=\"eth0\",rule=\"udp-7000\"} 123");
	assert_has("fastpath_rule_drops_total{iface=\"eth0\",rule=\"2\"} 0");
	assert_has("fastpath_samples_total{iface=\"eth0\"} 130");
	assert_has("fastpath_samples_lost_total{iface=\"eth0\"} 7");
	assert_has("fastpath_samples_lost_total{iface=\"a\\\"b\\\\c\\n\"} 0");
	assert_has("fastpath_stage_enabled{iface=\"eth0\",stage=\"filter\"} 1");
	assert_has("fastpath_stage_enabled{iface=\"eth0\",stage=\"dump\"} 0");
	assert_has("fastpath_stage_enabled{iface=\"a\\\"b\\\\c\\n\",stage=\"dump\"} 1");
	assert_has("fastpath_interface_info{iface=\"eth0\",state=\"ok\",mode=\"native\"} 1");
	assert_has("fastpath_interface_info{iface=\"a\\\"b\\\\c\\n\",state=\"iface missing\",mode=\"skb\"} 1");
	assert_has("fastpath_interface_info{iface=\"gone\",state=\"broken\",mode=\"unknown\"} 1");
	assert_has("fastpath_scrape_errors_total 7");
	/* the filter's packets once: by decision, not again by XDP action */
	assert_null(strstr(text, "stage=\"filter\",verdict=\"drop\"} "));
	/* no rule set applied: no apply time; broken: nothing but its info */
	assert_null(strstr(text, "fastpath_applied_timestamp_seconds{iface=\"a"));
	assert_int_equal(text[len - 1], '\n');
	{
		char *p = text;
		int n = 0;

		while ((p = strstr(p, "iface=\"gone\""))) {
			n++;
			p++;
		}
		assert_int_equal(n, 1);
	}
}

/* One HELP and one TYPE per family, before its samples, samples of a
 * family together; counters end in _total, gauges do not; names are
 * snake_case with the fastpath_ prefix. */
static void test_families(void **state)
{
	char *save = NULL, *copy, *line;
	char families[32][96], current[96] = "";
	int nfam = 0;

	(void)state;
	render_sample();
	copy = strdup(text);
	assert_non_null(copy);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[96], type[16];

		if (!strncmp(line, "# HELP ", 7)) {
			assert_int_equal(sscanf(line + 7, "%95s", name), 1);
			for (int i = 0; i < nfam; i++)
				if (!strcmp(families[i], name))
					fail_msg("second HELP for %s", name);
			assert_true(nfam < 32);
			snprintf(families[nfam++], sizeof(families[0]), "%s", name);
			snprintf(current, sizeof(current), "%s", name);
			assert_int_equal(strncmp(name, "fastpath_", 9), 0);
			assert_int_equal(strspn(name, "abcdefghijklmnopqrstuvwxyz_"), strlen(name));
			continue;
		}
		if (!strncmp(line, "# TYPE ", 7)) {
			assert_int_equal(sscanf(line + 7, "%95s %15s", name, type), 2);
			assert_string_equal(name, current);
			size_t n = strlen(name);
			bool total = n > 6 && !strcmp(name + n - 6, "_total");

			if (!strcmp(type, "counter"))
				assert_true(total);
			else
				assert_true(!strcmp(type, "gauge") && !total);
			continue;
		}
		assert_true(line[0] != '#');
		size_t n = strcspn(line, "{ ");

		if (strlen(current) != n || strncmp(line, current, n))
			fail_msg("sample '%s' outside its family (current: %s)", line, current);
	}
	free(copy);
	assert_int_equal(nfam, 15);
}

/* Two members of share s1 (the same rule set, read through each) and one
 * interface of its own: the share's rule counters once, labelled share=,
 * so a sum over all series counts each packet once; the stage counters and
 * the info per interface, the members' info with share=. */
static void test_share(void **state)
{
	struct fp_filter_rule_info r = { 0 };
	struct fp_filter_view v[3];
	struct fp_iface_status st[3];
	struct fp_metrics_iface mi[3];
	const char *names[3] = { "p1", "p2", "solo" };
	struct fp_metrics m = { .ifaces = mi, .n = 3 };
	char *p;
	int n = 0;

	(void)state;
	memset(v, 0, sizeof(v));
	memset(st, 0, sizeof(st));
	snprintf(r.text, sizeof(r.text), "drop udp dport 9 id nine");
	r.total = (struct fp_rule_cnt){ .packets = 30, .bytes = 1800 };
	for (int i = 0; i < 3; i++) {
		v[i].n_rules = 1;
		v[i].rules = &r;
		v[i].has_rules = true;
		v[i].stage[FP_FLT_ST_RULE_DROP] = (struct fp_counter){ .packets = 10 * (i + 1) };
		snprintf(st[i].name, sizeof(st[i].name), "%s", names[i]);
		st[i].state = FP_IFACE_OK;
		st[i].meta.xdp_flags = XDP_FLAGS_DRV_MODE;
		st[i].has_filter = true;
		if (i < 2)
			snprintf(st[i].share, sizeof(st[i].share), "s1");
		mi[i] = (struct fp_metrics_iface){ .st = &st[i], .view = &v[i] };
	}
	assert_int_equal(fp_metrics__render(&m, &text, &len), 0);
	assert_has("fastpath_rule_packets_total{share=\"s1\",rule=\"nine\"} 30");
	assert_has("fastpath_rule_packets_total{iface=\"solo\",rule=\"nine\"} 30");
	for (p = text; (p = strstr(p, "fastpath_rule_packets_total{")); p++)
		n++;
	assert_int_equal(n, 4); /* nine and the default: once for s1, once for solo */
	assert_null(strstr(text, "fastpath_rule_packets_total{iface=\"p"));
	assert_has("fastpath_stage_packets_total{iface=\"p1\",stage=\"filter\",verdict=\"drop\",decision=\"rule_drop\"} 10");
	assert_has("fastpath_stage_packets_total{iface=\"p2\",stage=\"filter\",verdict=\"drop\",decision=\"rule_drop\"} 20");
	assert_has("fastpath_interface_info{iface=\"p2\",state=\"ok\",mode=\"native\",share=\"s1\"} 1");
	assert_has("fastpath_interface_info{iface=\"solo\",state=\"ok\",mode=\"native\"} 1");
}

/* A pipeline without a filter (a stage that counts, one that does not):
 * its stages' packets by XDP action and whether each is enabled, its load
 * time and info; no rule, generation or filter series, and no error. */
static void test_no_filter(void **state)
{
	struct fp_iface_status st;
	struct fp_metrics_iface mi[2];
	struct fp_metrics m = { .ifaces = mi, .n = 2 };

	(void)state;
	sample(); /* eth0: a filter beside it in the same families */
	mi[0] = ifs[0];
	mi[1] = (struct fp_metrics_iface){ .st = &st, .view = NULL };
	memset(&st, 0, sizeof(st));
	snprintf(st.name, sizeof(st.name), "lb0");
	st.state = FP_IFACE_OK;
	st.meta = (struct fp_meta){ .xdp_flags = XDP_FLAGS_SKB_MODE, .loaded_ns = 3000000000ull };
	st.attached = true;
	st.n_stages = 2;
	st.stage[0] = (struct fp_stage_status){ .name = "dump", .slot = FP_STAGE_DUMP,
						.enabled = true };
	st.stage[1] = (struct fp_stage_status){
		.name = "mark", .slot = 5, .enabled = false,
		.counts = { .have = true, .in = 10, .out = { [XDP_DROP] = 3, [XDP_PASS] = 6,
							     [XDP_TX] = 1 } } };
	assert_int_equal(fp_metrics__render(&m, &text, &len), 0);
	assert_has("fastpath_stage_packets_total{iface=\"lb0\",stage=\"mark\",verdict=\"drop\"} 3");
	assert_has("fastpath_stage_packets_total{iface=\"lb0\",stage=\"mark\",verdict=\"pass\"} 6");
	assert_has("fastpath_stage_packets_total{iface=\"lb0\",stage=\"mark\",verdict=\"tx\"} 1");
	assert_has("fastpath_stage_packets_total{iface=\"lb0\",stage=\"mark\",verdict=\"redirect\"} 0");
	assert_has("fastpath_stage_packets_total{iface=\"lb0\",stage=\"mark\",verdict=\"aborted\"} 0");
	assert_has("fastpath_stage_enabled{iface=\"lb0\",stage=\"mark\"} 0");
	assert_has("fastpath_stage_enabled{iface=\"lb0\",stage=\"dump\"} 1");
	assert_has("fastpath_loaded_timestamp_seconds{iface=\"lb0\"} 3.000000000");
	assert_has("fastpath_interface_info{iface=\"lb0\",state=\"ok\",mode=\"skb\"} 1");
	/* the dump counts nothing: no series of its own */
	assert_null(strstr(text, "stage=\"dump\",verdict="));
	assert_null(strstr(text, "fastpath_rules{iface=\"lb0\""));
	assert_null(strstr(text, "fastpath_generation{iface=\"lb0\""));
	assert_null(strstr(text, "fastpath_rule_packets_total{iface=\"lb0\""));
	assert_null(strstr(text, "fastpath_samples_total{iface=\"lb0\""));
	assert_has("fastpath_rules{iface=\"eth0\"} 2");
	assert_has("fastpath_scrape_errors_total 0");
	/* the family mixes the filter's series (with decision=) and these */
	if (have_promtool())
		check_promtool();
}

static void test_escape(void **state)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	(void)state;
	assert_non_null(f);
	fp_metrics__put_label(f, "plain-0.1:x");
	fputc('|', f);
	fp_metrics__put_label(f, "q\"b\\n\nend\xc3\xa9");
	fputc('|', f);
	fp_metrics__put_label(f, "");
	fp_metrics__put_label(f, NULL);
	fclose(f);
	assert_string_equal(buf, "plain-0.1:x|q\\\"b\\\\n\\nend\xc3\xa9|");
	free(buf);
}

static void test_empty(void **state)
{
	struct fp_metrics m = { 0 };

	(void)state;
	assert_int_equal(fp_metrics__render(&m, &text, &len), 0);
	assert_has("fastpath_scrape_errors_total 0");
	assert_non_null(strstr(text, "# TYPE fastpath_rule_packets_total counter\n"));
	assert_int_equal(fp_metrics__render(NULL, &text, &len), -EINVAL);
	m.n = 1;
	assert_int_equal(fp_metrics__render(&m, &text, &len), -EINVAL);
}

/* A pin root that does not exist: no interfaces with pins, no error. */
static void test_scrape_no_root(void **state)
{
	uint64_t errors = 0;

	(void)state;
	assert_int_equal(fp_metrics__scrape("/nonexistent/fastpath-test-root", &errors, &text, &len, NULL, 0), 0);
	assert_int_equal(errors, 0);
	assert_has("fastpath_scrape_errors_total 0");
	/* no interface with pins; an orphan of this namespace (another run's
	 * program with no pins here) may show as interface_info only */
	assert_null(strstr(text, "fastpath_rules{"));
	assert_null(strstr(text, "fastpath_stage_enabled{"));
}

/* promtool's verdict on text (nothing when promtool is not installed). */
static void check_promtool(void)
{
	char path[] = "/tmp/fp-metrics.XXXXXX", cmd[256];
	FILE *f;
	int fd, rc;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "promtool check metrics <%s >%s.out 2>&1", path, path);
	rc = system(cmd);
	if (rc) {
		snprintf(cmd, sizeof(cmd), "cat %s.out >&2", path);
		system(cmd);
	}
	snprintf(cmd, sizeof(cmd), "rm -f %s %s.out", path, path);
	system(cmd);
	assert_int_equal(rc, 0);
}

static bool have_promtool(void)
{
	return !system("command -v promtool >/dev/null 2>&1");
}

static void test_promtool(void **state)
{
	(void)state;
	if (!have_promtool())
		skip();
	render_sample();
	check_promtool();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_values, teardown),
		cmocka_unit_test_teardown(test_families, teardown),
		cmocka_unit_test_teardown(test_share, teardown),
		cmocka_unit_test_teardown(test_no_filter, teardown),
		cmocka_unit_test_teardown(test_escape, teardown),
		cmocka_unit_test_teardown(test_empty, teardown),
		cmocka_unit_test_teardown(test_scrape_no_root, teardown),
		cmocka_unit_test_teardown(test_promtool, teardown),
	};

	return cmocka_run_group_tests_name("metrics", tests, NULL, NULL);
}
