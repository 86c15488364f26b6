// SPDX-License-Identifier: BSD-2-Clause
/*
 * The dump's exit watch (src/dump/dump_exit.bpf.c) on real process exits:
 * a child loads it for itself on a dump config and control word of ours,
 * as `fastpath dump` does, then
 * - one of its threads ends, and another process ends: nothing changes;
 * - it is killed with SIGKILL: the control word's dump flags and the dump
 *   slot's enabled bit, the config's active and use_match are 0 once it is
 *   reaped, and nothing else changed (the other bits belong to the
 *   pipeline);
 * - when the config names another owner, its death changes nothing.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <fastpath/dump_abi.h>
#include "dump_exit.skel.h"

static int state_fd = -1, cfg_fd = -1;

static int setup(void **state)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm, .map_flags = BPF_F_MMAPABLE);

	state_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "fp_ctl", 4, sizeof(struct fp_ctl), 1, &mm);
	cfg_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "fp_dump_cfg", 4, sizeof(struct fp_dump_cfg),
				1, NULL);
	return 0;
}

static int teardown(void **state)
{
	close(state_fd);
	close(cfg_fd);
	return 0;
}

static const struct fp_ctl st0 = {
	.enabled = 1u << FP_STAGE_DUMP | 1u << FP_STAGE_FILTER | 1u << 5,
	.dump = FP_CTL_DUMP_ACTIVE | FP_CTL_DUMP_OWN_RATE,
};

static void put(uint32_t owner)
{
	struct fp_dump_cfg c = { .active = 1, .use_match = 1, .sample_n = 5, .snaplen = 128,
				 .owner_pid = owner };
	__u32 zero = 0;

	assert_int_equal(bpf_map_update_elem(state_fd, &zero, &st0, 0), 0);
	assert_int_equal(bpf_map_update_elem(cfg_fd, &zero, &c, 0), 0);
}

static void get(struct fp_ctl *s, struct fp_dump_cfg *c)
{
	__u32 zero = 0;

	assert_int_equal(bpf_map_lookup_elem(state_fd, &zero, s), 0);
	assert_int_equal(bpf_map_lookup_elem(cfg_fd, &zero, c), 0);
}

static void *thread_ends(void *arg)
{
	return arg;
}

/* The child: its exit watch, then "r" on fd w (or "e" and the errno when
 * the watch could not load); on a byte from fd r, one thread of it ends,
 * then "t" on w; then it waits to be killed. */
static void child(int r, int w)
{
	struct dump_exit_bpf *x = dump_exit_bpf__open();
	struct stat ns;
	pthread_t t;
	char msg[8] = "e";
	int ret = -ENOMEM;

	if (x && stat("/proc/self/ns/pid", &ns) == 0) {
		x->rodata->owner_tgid = (uint32_t)getpid();
		x->rodata->pidns_dev = ns.st_dev;
		x->rodata->pidns_ino = ns.st_ino;
		ret = bpf_map__reuse_fd(x->maps.fp_ctl, state_fd);
		if (!ret)
			ret = bpf_map__reuse_fd(x->maps.fp_dump_cfg, cfg_fd);
		if (!ret)
			ret = dump_exit_bpf__load(x);
		if (!ret)
			ret = dump_exit_bpf__attach(x);
	}
	if (ret)
		msg[1] = (char)-ret;
	else
		msg[0] = 'r';
	if (write(w, msg, 2) != 2 || ret || read(r, msg, 1) != 1)
		_exit(1);
	if (pthread_create(&t, NULL, thread_ends, NULL) || pthread_join(t, NULL) ||
	    write(w, "t", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static int to_child = -1, from_child = -1;

/* Starts the child; its pid, or 0 to skip (the watch cannot load here). */
static pid_t start_child(void)
{
	int up[2], down[2];
	char msg[2];
	pid_t pid;

	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(down), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		child(down[0], up[1]);
	}
	close(up[1]);
	close(down[0]);
	from_child = up[0];
	to_child = down[1];
	assert_int_equal(read(from_child, msg, 2), 2);
	if (msg[0] != 'r') {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(to_child);
		close(from_child);
		print_message("the exit watch does not load here: %s\n", strerror(msg[1]));
		return 0;
	}
	return pid;
}

/* One thread of the child ends (the process lives on). */
static void child_thread_ends(void)
{
	char c;

	assert_int_equal(write(to_child, "g", 1), 1);
	assert_int_equal(read(from_child, &c, 1), 1);
	assert_int_equal(c, 't');
}

static void kill_child(pid_t pid)
{
	int status;

	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(to_child);
	close(from_child);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

static void test_owner_killed(void **state)
{
	struct fp_ctl s;
	struct fp_dump_cfg c;
	pid_t pid, other;

	if (state_fd < 0 || cfg_fd < 0)
		skip();
	put(0);
	pid = start_child();
	if (!pid)
		skip();
	put((uint32_t)pid);
	child_thread_ends();
	other = fork(); /* and another process ends */
	assert_true(other >= 0);
	if (other == 0)
		_exit(0);
	assert_int_equal(waitpid(other, NULL, 0), other);
	get(&s, &c);
	assert_int_equal(s.dump, st0.dump);
	assert_int_equal(c.active, 1);
	assert_int_equal(c.use_match, 1);

	kill_child(pid);
	get(&s, &c);
	assert_int_equal(s.dump, 0);
	assert_int_equal(c.active, 0);
	assert_int_equal(c.use_match, 0);
	/* what is not the dump's stays */
	assert_int_equal(s.enabled, st0.enabled & ~(1u << FP_STAGE_DUMP));
	assert_int_equal(c.owner_pid, (uint32_t)pid);
	assert_int_equal(c.sample_n, 5);
	assert_int_equal(c.snaplen, 128);
}

static void test_other_owner(void **state)
{
	struct fp_ctl s;
	struct fp_dump_cfg c;
	pid_t pid;

	if (state_fd < 0 || cfg_fd < 0)
		skip();
	put(0);
	pid = start_child();
	if (!pid)
		skip();
	put((uint32_t)getpid()); /* a later dump of another process owns it */
	kill_child(pid);
	get(&s, &c);
	assert_int_equal(s.dump, st0.dump);
	assert_int_equal(s.enabled, st0.enabled);
	assert_int_equal(c.active, 1);
	assert_int_equal(c.use_match, 1);
	assert_int_equal(c.owner_pid, (uint32_t)getpid());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owner_killed),
		cmocka_unit_test(test_other_owner),
	};

	if (geteuid() != 0) {
		printf("needs root\n");
		return 77;
	}
	return cmocka_run_group_tests_name("dump exit watch", tests, setup, teardown);
}
