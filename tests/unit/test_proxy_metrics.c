/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/exporter/proxy_metrics.c: the fastpath_proxy_* families rendered from
 * a proxy's stats answer: one HELP and TYPE a family whatever the number
 * of proxies, labels escaped, the default rule and TLS closes labelled,
 * and a proxy that did not answer only as up 0.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "exporter/proxy_metrics.h"

static const char *stats_json =
	"{\"policy\":\"p\",\"generation\":3,\"connections\":2,\"accepted\":9,"
	"\"rules\":[{\"line\":2,\"action\":\"allow\",\"requests\":5,\"allowed\":5,\"statuses\":{},\"closed\":0},"
	"{\"line\":4,\"action\":\"deny\",\"requests\":3,\"allowed\":0,\"statuses\":{\"451\":2},\"closed\":1},"
	"{\"line\":1,\"action\":\"default deny\",\"requests\":1,\"allowed\":0,\"statuses\":{\"403\":1},\"closed\":0}],"
	"\"backends\":[{\"address\":\"[::1]:80\",\"requests\":5,\"connects\":2,\"connect_failures\":1,"
	"\"bytes_spliced\":1048576,\"bytes_copied\":300}],"
	"\"refused\":{\"400\":1,\"408\":0},\"tls_refused\":4,\"body_timeouts\":6}";

static char *render(const char *const *paths, json_t *const *stats, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	fp_metrics__render_proxies(f, paths, stats, n);
	fclose(f);
	return text;
}

static size_t count(const char *text, const char *what)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void test_render(void **state)
{
	json_error_t je;
	json_t *a = json_loads(stats_json, 0, &je);
	const char *paths[] = { "/run/a.sock", "/run/\"b\"\\.sock", "/run/gone.sock" };
	json_t *stats[] = { a, a, NULL };
	char *t;

	assert_non_null(a);
	t = render(paths, stats, 3);
	assert_int_equal(count(t, "# TYPE fastpath_proxy_up gauge\n"), 1);
	assert_int_equal(count(t, "# TYPE fastpath_proxy_rule_requests_total counter\n"), 1);
	assert_int_equal(count(t, "# HELP "), count(t, "# TYPE "));
	assert_non_null(strstr(t, "fastpath_proxy_up{proxy=\"/run/a.sock\"} 1\n"));
	assert_non_null(strstr(t, "fastpath_proxy_up{proxy=\"/run/\\\"b\\\"\\\\.sock\"} 1\n"));
	assert_non_null(strstr(t, "fastpath_proxy_up{proxy=\"/run/gone.sock\"} 0\n"));
	assert_int_equal(count(t, "gone.sock"), 1); /* up 0, and nothing else */
	assert_non_null(strstr(t, "fastpath_proxy_rule_requests_total{proxy=\"/run/a.sock\","
				  "rule=\"line:2\",action=\"allow\"} 5\n"));
	assert_non_null(strstr(t, "fastpath_proxy_rule_refused_total{proxy=\"/run/a.sock\","
				  "rule=\"line:4\",action=\"deny\",status=\"451\"} 2\n"));
	assert_non_null(strstr(t, "fastpath_proxy_rule_refused_total{proxy=\"/run/a.sock\","
				  "rule=\"line:4\",action=\"deny\",status=\"closed\"} 1\n"));
	assert_non_null(strstr(t, "fastpath_proxy_rule_refused_total{proxy=\"/run/a.sock\","
				  "rule=\"default\",action=\"deny\",status=\"403\"} 1\n"));
	assert_non_null(strstr(t, "fastpath_proxy_backend_bytes_spliced_total{proxy=\"/run/a.sock\","
				  "backend=\"[::1]:80\"} 1048576\n"));
	assert_non_null(strstr(t, "fastpath_proxy_backend_connect_failures_total{proxy=\"/run/a.sock\","
				  "backend=\"[::1]:80\"} 1\n"));
	assert_non_null(strstr(t, "fastpath_proxy_refused_total{proxy=\"/run/a.sock\",status=\"400\"} 1\n"));
	assert_non_null(strstr(t, "fastpath_proxy_tls_refused_total{proxy=\"/run/a.sock\"} 4\n"));
	assert_non_null(strstr(t, "fastpath_proxy_body_timeouts_total{proxy=\"/run/a.sock\"} 6\n"));
	assert_non_null(strstr(t, "fastpath_proxy_policy_generation{proxy=\"/run/a.sock\"} 3\n"));
	free(t);
	/* no proxies: nothing at all (the exporter without --proxy is unchanged) */
	t = render(paths, stats, 0);
	assert_true(!t || !*t);
	free(t);
	json_decref(a);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
