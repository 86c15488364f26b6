#!/usr/bin/env bash
# Sourced by bench/run.sh (not run alone): the pipeline section (issue
# 16): the pipeline's own cost by BPF_PROG_TEST_RUN (`filter_cost
# --pipeline`) and in the shared-CPU lab (filter_rate.sh -s with the
# pipeline targets), into the pipeline-bench markers of $DOC.
# It uses run.sh's settings (ROUNDS, WINDOW, REPEAT, SHARED_ROUNDS, FLOOD_ROUNDS,
# DOC, TMP) and helpers (log, made_by, splice).

P_ROUNDS=9
[[ ${1:-} == --quick ]] && P_ROUNDS=3
P_TARGETS="bare entry_sink fp10k fp10k_plain fp10k_stage fp10k_sink fp10k_stage_sink"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "pipeline cost (BPF_PROG_TEST_RUN, repeat $REPEAT, $P_ROUNDS rounds)"
build/bench/filter_cost --pipeline --repeat "$REPEAT" --rounds "$P_ROUNDS" >"$TMP/pcost.md" || exit 1
cat "$TMP/pcost.md"
log "pipeline in the lab (shared CPU, $SHARED_ROUNDS rounds of 3 s)"
bash bench/filter_rate.sh -s -r "$SHARED_ROUNDS" -w 3 -t "$P_TARGETS" -o "$TMP/prate.md" >/dev/null || exit 1
cat "$TMP/prate.md"
if [[ -n ${FP_OLD:-} ]]; then
	log "pipeline_regress (FP_OLD=$FP_OLD, $SHARED_ROUNDS x 2 rounds of 3 s)"
	bash bench/pipeline_regress.sh -r $(( SHARED_ROUNDS * 2 )) -w 3 -o "$TMP/pregress.md" >/dev/null
	cat "$TMP/pregress.md"
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "<!-- pipeline-bench:begin (written by bench/run.sh; edit the script, not this part) -->"
	echo "## Pipeline (issue 16)"
	echo
	made_by
	echo
	echo "### Cost per packet (BPF_PROG_TEST_RUN)"
	echo
	echo "Command: \`build/bench/filter_cost --pipeline --repeat $REPEAT --rounds $P_ROUNDS\`. One process:"
	echo "a bare XDP_DROP program; the plain entry \`fp_entry\` of a pipeline with no stage (the parse and"
	echo "a walk of the empty slots; it passes); the filter at 10,000 rules (\`fp_filter__open_test\`, as in"
	echo "the filter section) run by its fused entry \`fp_entry_filter\` (what is attached) and by the plain"
	echo "entry, which tail-calls the filter's slot; and both again with the tests' mark stage"
	echo "(\`tests/stage/mark.bpf.c\`, action pass: it marks and counts the packet) in slot 5, filled only"
	echo "while those rows run. Dropped packets end at the filter and never reach the stage; the TCP"
	echo "and DNS legit packets pass through it. The bench fails if the stage saw no packet."
	echo
	cat "$TMP/pcost.md"
	echo
	echo "### Receive cost per packet on veth, shared CPU"
	echo
	echo "Command: \`bench/filter_rate.sh -s -r $SHARED_ROUNDS -w 3 -t \"$P_TARGETS\"\`, the lab of the"
	echo "filter section's shared-CPU table. The mark stage is plugged into the pinned pipeline by"
	echo "\`build/bench/mark_stage\` (pass: the no-op stage in slot 5; drop: a sink in slot 6). A pipeline"
	echo "that passes a packet hands it to the network stack, whose cost would swamp the figures: the"
	echo "targets whose packets the filter passes end in the sink instead, and get UDP to port 9, which"
	echo "the 10,000 rules pass (the flood to 11211 is dropped by the filter, so fp10k_stage measures a"
	echo "later stage's cost to the filter's drops: none is expected). Each round logs the packets each"
	echo "mark stage saw (all of them handled, for the sink and a no-op stage the filter passes to)."
	echo "fp10k_plain attaches the pipeline's plain entry in place of the filter's fused one"
	echo "(\`build/bench/plain_entry\`): the filter then runs from its slot, behind a tail call."
	echo
	cat "$TMP/prate.md"
	if [[ -f $TMP/pregress.md ]]; then
		echo
		echo "### Before and after the pipeline change (issue 16's 2 ns goal)"
		echo
		echo "Command: \`FP_OLD=$FP_OLD bench/pipeline_regress.sh -r $(( SHARED_ROUNDS * 2 )) -w 3\`."
		echo
		cat "$TMP/pregress.md"
	fi
	echo "<!-- pipeline-bench:end -->"
} >"$TMP/psection.md"
splice pipeline-bench "$TMP/psection.md"
log "wrote $DOC (pipeline section)"
