// SPDX-License-Identifier: BSD-2-Clause
/*
 * fastpath proxy { check }: the per-request HTTP policy proxy's commands.
 * `check FILE` parses a policy and lists every error as FILE:LINE:COL
 * (exit 2), or prints how many rules it holds. FILE "-" reads stdin.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/rulefile.h"
#include "proxy/policy.h"

static const char *display_name(const char *path)
{
	return strcmp(path, "-") ? path : "<stdin>";
}

/*
 * Reads and parses a policy file: CLI_OK with *pol filled, CLI_FAIL when it
 * cannot be read, CLI_USAGE with diags filled when it has errors.
 */
int cli_proxy_read_policy(const struct cli *cli, const char *path, struct fp_px_policy *pol,
			  struct fp_diags *diags)
{
	size_t len = 0;
	char *text = cli_slurp(path, &len);
	int err;

	memset(pol, 0, sizeof(*pol));
	if (!text)
		return cli_fail(cli, "proxy: cannot read policy '%s': %s", path,
				cli_slurp_error(errno));
	err = fp_px_policy__parse(text, len, pol, diags);
	free(text);
	if (err == -EINVAL)
		return CLI_USAGE;
	if (err)
		return cli_fail(cli, "proxy: cannot parse '%s': %s", path, strerror(-err));
	return CLI_OK;
}

static int do_check(struct cli *cli, int argc, char **argv)
{
	struct fp_px_policy pol;
	struct fp_diags d = { 0 };
	const char *name;
	int rc = cli_nargs(cli, argc, argv, 1, 1);

	if (rc)
		return rc;
	name = display_name(argv[1]);
	rc = cli_proxy_read_policy(cli, argv[1], &pol, &d);
	if (rc == CLI_FAIL)
		goto out;
	if (out_is_json()) {
		size_t k = d.v ? (d.n < d.cap ? d.n : d.cap) : 0;

		out_obj_begin();
		out_str("file", name);
		out_u64("rules", pol.n);
		out_str("default", rc == CLI_OK ? fp_px_action__name(pol.default_action) : NULL);
		if (rc != CLI_OK)
			out_strf("error", "%s: %zu error%s", name, d.n, d.n > 1 ? "s" : "");
		out_list_begin("errors");
		for (size_t i = 0; i < k; i++) {
			out_row_begin();
			out_u64("line", d.v[i].line);
			out_u64("col", d.v[i].col);
			out_str("message", d.v[i].msg);
			out_row_end();
		}
		out_list_end();
		out_obj_end();
	} else if (rc == CLI_OK) {
		printf("%s: %zu rule%s, default %s\n", name, pol.n, pol.n == 1 ? "" : "s",
		       fp_px_action__name(pol.default_action));
	} else {
		cli_print_diags(name, &d);
		fprintf(stderr, "fastpath: %s: %zu error%s\n", name, d.n, d.n > 1 ? "s" : "");
	}
out:
	fp_px_policy__free(&pol);
	fp_diags__free(&d);
	return rc;
}

static const struct cli_verb verbs[] = {
	{ "check", "FILE", "check a policy file: every error as FILE:LINE:COL (exit 2)", do_check },
	{ NULL },
};

int cmd_proxy(struct cli *cli, int argc, char **argv)
{
	return cli_dispatch(cli, verbs, argc, argv);
}
