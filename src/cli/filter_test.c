// SPDX-License-Identifier: BSD-2-Clause
/*
 * `fastpath filter test RULES CAPTURE`: the real XDP program
 * (BPF_PROG_TEST_RUN) over every packet of a pcap or pcapng file, so an
 * operator can try a rule set on a capture before deploying it. Limits see
 * the capture's clock: each packet arrives, for the limiter, its capture
 * timestamp's distance after the first packet's (never earlier than the
 * packet before it), not when the run happens to reach it.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* pcap.h defines struct bpf_insn too: take the XDP actions from if_xdp-free ground */
enum { XDP_DROP = 1, XDP_PASS = 2 };

#include "cli/filter_cli.h"
#include "cli/rulefile.h"

int filter_do_test(struct cli *cli, int argc, char **argv)
{
	char perr[PCAP_ERRBUF_SIZE], err[512];
	struct fp_ruleset set;
	struct fp_filter *f = NULL;
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t n = 0, drops = 0, first_ns = 0, now_ns = 0;
	pcap_t *p;
	int ret = cli_nargs(cli, argc, argv, 2, 2), rc;

	if (ret)
		return ret;
	ret = cli_read_ruleset(cli, argv[1], &set);
	if (ret)
		return ret;
	/* nanosecond timestamps, whatever the file's own precision */
	p = pcap_open_offline_with_tstamp_precision(argv[2], PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!p) {
		ret = cli_fail(cli, "cannot read capture %s: %s", argv[2], perr);
		goto out;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		ret = cli_fail(cli, "%s has link type %s; filter test takes Ethernet (EN10MB) captures",
			       argv[2], pcap_datalink_val_to_name(pcap_datalink(p)) ?: "unknown");
		goto out;
	}
	ret = fp_filter__open_test(&f, err, sizeof(err));
	if (!ret)
		ret = fp_filter__apply(f, &set, err, sizeof(err));
	if (ret) {
		ret = cli_fail(cli, "%s", err);
		goto out;
	}
	if (!out_is_json())
		printf("%8s  %-7s %s\n", "PACKET", "VERDICT", "RULE");
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		uint32_t verdict = XDP_PASS, rule = FP_FLT_NO_RULE;
		uint64_t ts_ns;
		const char *id;

		n++;
		ts_ns = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
		if (n == 1)
			first_ns = ts_ns;
		if (ts_ns > first_ns && ts_ns - first_ns > now_ns)
			now_ns = ts_ns - first_ns; /* a timestamp that goes back: no change */
		fp_filter__set_test_clock(f, now_ns);
		if (h->caplen < 14) {
			out_warn("%s: packet %llu has %u bytes, too short for Ethernet: reported as pass",
				 argv[2], (unsigned long long)n, h->caplen);
		} else if ((ret = fp_filter__run(f, data, h->caplen, &verdict, &rule))) {
			ret = cli_fail(cli, "running packet %llu failed: %s", (unsigned long long)n,
				       strerror(-ret));
			goto out;
		}
		/* "default" when the default decided (no rule may have that id),
		 * null ("-") for a frame too short to run */
		id = rule < set.n ? set.rules[rule].id : h->caplen < 14 ? NULL : "default";
		drops += verdict == XDP_DROP;
		if (out_is_json()) {
			out_line_begin();
			out_u64("packet", n);
			out_str("verdict", verdict == XDP_DROP ? "drop" : "pass");
			if (id)
				out_str("rule", id);
			else
				out_null("rule");
			out_line_end();
		} else {
			printf("%8llu  %-7s %s\n", (unsigned long long)n,
			       verdict == XDP_DROP ? "drop" : "pass", id ? id : "-");
		}
	}
	if (rc == -1) {
		ret = cli_fail(cli, "%s is corrupt after packet %llu: %s", argv[2],
			       (unsigned long long)n, pcap_geterr(p));
		goto out;
	}
	if (!out_is_json())
		fprintf(stderr, "%llu packets: %llu drop, %llu pass\n", (unsigned long long)n,
			(unsigned long long)drops, (unsigned long long)(n - drops));
	ret = CLI_OK;
out:
	if (p)
		pcap_close(p);
	fp_filter__close(f);
	fp_ruleset__free(&set);
	return ret;
}
