// SPDX-License-Identifier: BSD-2-Clause
/*
 * The CLI output layer (src/cli/out.c) in text, JSON and pretty JSON modes.
 * src/cli is not part of libfastpath.a, so the source is compiled in here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "cli/out.c"

static char *obuf, *ebuf;
static size_t olen, elen;
static FILE *of, *ef;

static void start(enum out_mode mode)
{
	of = open_memstream(&obuf, &olen);
	ef = open_memstream(&ebuf, &elen);
	assert_non_null(of);
	assert_non_null(ef);
	out_init(mode, of, ef);
}

/* Closes the streams; obuf/ebuf hold what was printed. */
static void finish(void)
{
	fclose(of);
	fclose(ef);
}

static int teardown(void **state)
{
	(void)state;
	out_fini();
	free(obuf);
	free(ebuf);
	obuf = ebuf = NULL;
	return 0;
}

static void emit_rules(void)
{
	out_list_begin("rules");
	out_row_begin();
	out_u64("index", 1);
	out_str("id", "office");
	out_u64("packets", 12345);
	out_row_end();
	out_row_begin();
	out_u64("index", 2);
	out_str("id", "syn-flood-long-name");
	out_u64("packets", 7);
	out_row_end();
	out_list_end();
}

static void test_list_json(void **state)
{
	json_error_t jerr;
	json_t *v;

	(void)state;
	start(OUT_JSON);
	emit_rules();
	finish();
	assert_string_equal(obuf, "[{\"index\":1,\"id\":\"office\",\"packets\":12345},"
				  "{\"index\":2,\"id\":\"syn-flood-long-name\",\"packets\":7}]\n");
	v = json_loads(obuf, 0, &jerr);
	assert_non_null(v);
	assert_int_equal(json_array_size(v), 2);
	json_decref(v);
	assert_int_equal(elen, 0);
}

static void test_list_text_aligned(void **state)
{
	(void)state;
	start(OUT_TEXT);
	emit_rules();
	finish();
	/* numbers right-aligned, strings left-aligned, header upper-case */
	assert_string_equal(obuf,
		"INDEX  ID                   PACKETS\n"
		"    1  office                 12345\n"
		"    2  syn-flood-long-name        7\n");
}

static void test_object_with_list(void **state)
{
	json_t *v;

	(void)state;
	start(OUT_JSON);
	out_obj_begin();
	out_str("file", "a.rules");
	out_u64("rules", 0);
	out_null("default");
	out_list_begin("errors");
	out_row_begin();
	out_u64("line", 3);
	out_u64("col", 7);
	out_str("message", "unknown term 'dprt'");
	out_row_end();
	out_list_end();
	out_bool("ok", false);
	out_obj_end();
	finish();
	v = json_loads(obuf, 0, NULL);
	assert_non_null(v);
	assert_string_equal(json_string_value(json_object_get(v, "file")), "a.rules");
	assert_true(json_is_null(json_object_get(v, "default")));
	assert_true(json_is_false(json_object_get(v, "ok")));
	assert_int_equal(json_integer_value(json_object_get(
		json_array_get(json_object_get(v, "errors"), 0), "col")), 7);
	json_decref(v);
}

static void test_object_text(void **state)
{
	(void)state;
	start(OUT_TEXT);
	out_obj_begin();
	out_str("file", "a.rules");
	out_u64("rules", 2);
	out_null("generation");
	out_bool("loaded", true);
	out_double("pps", 1.5);
	out_list_begin("list");
	out_row_begin();
	out_str("id", "x");
	out_row_end();
	out_list_end();
	out_obj_end();
	finish();
	assert_string_equal(obuf,
		"file:       a.rules\n"
		"rules:      2\n"
		"generation: -\n"
		"loaded:     yes\n"
		"pps:        1.50\n"
		"\n"
		"ID\n"
		"x\n");
}

static void test_pretty(void **state)
{
	(void)state;
	start(OUT_JSON_PRETTY);
	out_obj_begin();
	out_str("a", "b");
	out_obj_end();
	finish();
	assert_string_equal(obuf, "{\n  \"a\": \"b\"\n}\n");
}

static void test_error_json_drops_partial(void **state)
{
	(void)state;
	start(OUT_JSON);
	out_list_begin("rules");
	out_row_begin();
	out_str("id", "half");
	out_err("filter list: %s: %s; run 'fastpath filter load %s' first", "eth0",
		"not loaded", "eth0");
	finish();
	assert_string_equal(obuf, "{\"error\":\"filter list: eth0: not loaded; "
				  "run 'fastpath filter load eth0' first\"}\n");
	assert_int_equal(elen, 0);
}

static void test_error_text_stderr(void **state)
{
	(void)state;
	start(OUT_TEXT);
	out_err("rules check: cannot read '%s': %s", "x", "No such file");
	out_warn("frame %d too short", 3);
	out_dbg(1, "hidden");
	out_set_verbose(1);
	out_dbg(1, "shown");
	out_set_verbose(0);
	finish();
	assert_int_equal(olen, 0);
	assert_string_equal(ebuf, "fastpath: rules check: cannot read 'x': No such file\n"
				  "fastpath: warning: frame 3 too short\n"
				  "fastpath: shown\n");
}

static void test_json_lines(void **state)
{
	int i;

	(void)state;
	start(OUT_JSON);
	for (i = 1; i <= 3; i++) {
		out_line_begin();
		out_u64("packet", i);
		out_str("verdict", i == 2 ? "drop" : "pass");
		if (i == 2)
			out_str("rule", "7");
		else
			out_null("rule");
		out_line_end();
	}
	finish();
	assert_string_equal(obuf,
		"{\"packet\":1,\"verdict\":\"pass\",\"rule\":null}\n"
		"{\"packet\":2,\"verdict\":\"drop\",\"rule\":\"7\"}\n"
		"{\"packet\":3,\"verdict\":\"pass\",\"rule\":null}\n");
}

static void test_lines_text(void **state)
{
	(void)state;
	start(OUT_TEXT);
	out_line_begin();
	out_u64("packet", 1);
	out_str("verdict", "pass");
	out_null("rule");
	out_line_end();
	out_line_begin();
	out_u64("packet", 2);
	out_str("verdict", "drop");
	out_str("rule", "web");
	out_line_end();
	finish();
	assert_string_equal(obuf,
		"PACKET  VERDICT  RULE\n"
		"1       pass     -\n"
		"2       drop     web\n");
}

static void test_strings_escaped_and_invalid_utf8(void **state)
{
	json_t *v;

	(void)state;
	start(OUT_JSON);
	out_obj_begin();
	out_str("q", "a\"b\\c\n");
	out_str("bad", "x\xff\xfey");
	out_strf("f", "%d/%s", 10, "s");
	out_u64("big", UINT64_MAX);
	out_i64("neg", -5);
	out_obj_end();
	finish();
	v = json_loads(obuf, 0, NULL);
	assert_non_null(v);
	assert_string_equal(json_string_value(json_object_get(v, "q")), "a\"b\\c\n");
	assert_string_equal(json_string_value(json_object_get(v, "bad")), "x??y");
	assert_string_equal(json_string_value(json_object_get(v, "f")), "10/s");
	assert_true(json_is_number(json_object_get(v, "big")));
	assert_int_equal(json_integer_value(json_object_get(v, "neg")), -5);
	json_decref(v);
}

static void test_empty_list(void **state)
{
	(void)state;
	start(OUT_JSON);
	out_list_begin("rules");
	out_list_end();
	finish();
	assert_string_equal(obuf, "[]\n");
	free(obuf);
	free(ebuf);
	start(OUT_TEXT);
	out_list_begin("rules");
	out_list_end();
	finish();
	assert_int_equal(olen, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_list_json, teardown),
		cmocka_unit_test_teardown(test_list_text_aligned, teardown),
		cmocka_unit_test_teardown(test_object_with_list, teardown),
		cmocka_unit_test_teardown(test_object_text, teardown),
		cmocka_unit_test_teardown(test_pretty, teardown),
		cmocka_unit_test_teardown(test_error_json_drops_partial, teardown),
		cmocka_unit_test_teardown(test_error_text_stderr, teardown),
		cmocka_unit_test_teardown(test_json_lines, teardown),
		cmocka_unit_test_teardown(test_lines_text, teardown),
		cmocka_unit_test_teardown(test_strings_escaped_and_invalid_utf8, teardown),
		cmocka_unit_test_teardown(test_empty_list, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
