# fastpath: one Makefile for the BPF objects, skeletons, the `fastpath`
# binary, every test layer, the benchmarks and the demo.
#
#   make            build build/fastpath (installs missing build packages first)
#   make test       every test layer; ends with "N passed, N failed"
#   make fuzz       longer libFuzzer runs (FUZZ_SECONDS per target)
#   make bench      side-by-side benchmarks (see docs/benchmarks.md)
#   make demo       the DDoS lab: attack, filter, live stats, summary
#   make demo-proxy the Death Star: nginx behind fastpath proxy, the exhaust port refused
#   make install    /usr/local/sbin/fastpath, man pages, systemd units, bash completion

CC        ?= gcc
CLANG     ?= clang
BPFTOOL   ?= bpftool
PREFIX    ?= /usr/local
BUILD     := build
ARCH_INC  := /usr/include/$(shell uname -m)-linux-gnu

CFLAGS    ?= -O2 -g
CFLAGS    += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wno-format-truncation \
             -Iinclude -Isrc -I$(BUILD)/skel -D_GNU_SOURCE
LDLIBS    += -lxdp -lbpf -lelf -lz -lpcap -ljansson -lmicrohttpd -lcrypto -lm -lpthread
BPF_CFLAGS := -O2 -g -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -I$(ARCH_INC) -Iinclude -Ibpf/lib -Isrc \
              -Wall -Wno-unused-function -Wno-compare-distinct-pointer-types

BPF_SRCS  := $(shell find src -name '*.bpf.c' | sort)
BPF_OBJS  := $(patsubst src/%.bpf.c,$(BUILD)/bpf/%.bpf.o,$(BPF_SRCS))
SKELS     := $(foreach s,$(BPF_SRCS),$(BUILD)/skel/$(basename $(basename $(notdir $(s)))).skel.h)
BPF_HDRS  := $(shell find bpf include src -name '*.h')

LIB_SRCS  := $(shell find src -name '*.c' ! -name '*.bpf.c' ! -path 'src/cli/*' | sort)
LIB_OBJS  := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
CLI_SRCS  := $(shell find src/cli -name '*.c' | sort)
CLI_OBJS  := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(CLI_SRCS))
HDRS      := $(shell find src include -name '*.h')

# Test stages (tests/stage/*.bpf.c): built like a product stage, with a
# skeleton, but not part of BPF_OBJS (the product never loads them).
TSTAGE_SRCS := $(wildcard tests/stage/*.bpf.c)
TSTAGE_OBJS := $(patsubst tests/%.bpf.c,$(BUILD)/bpf/tests/%.bpf.o,$(TSTAGE_SRCS))
TSTAGE_SKELS := $(foreach s,$(TSTAGE_SRCS),$(BUILD)/skel/$(basename $(basename $(notdir $(s)))).skel.h)

TCOMMON_SRCS := $(wildcard tests/common/*.c)
TCOMMON_OBJS := $(patsubst tests/%.c,$(BUILD)/tests/%.o,$(TCOMMON_SRCS))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(wildcard tests/unit/test_*.c))
BPFT_BINS := $(patsubst tests/bpf/%.c,$(BUILD)/tests/bpf/%,$(wildcard tests/bpf/*.c))
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/*.c))

DEPS_STAMP := $(BUILD)/.deps-build

.PHONY: all deps test unit bpftest e2e fuzz-smoke fuzz bench demo demo-proxy install clean tests-build examples
all: $(BUILD)/fastpath

# Installs what a fresh machine lacks for each job, and only that: building
# needs the build group; test, bench and demo add theirs (idempotent; reruns
# when deps.sh changes). Nothing is mounted and no service is touched.
$(BUILD)/.deps-%: scripts/deps.sh
	@bash scripts/deps.sh $*
	@mkdir -p $(BUILD) && touch $@
deps: $(DEPS_STAMP)

$(BUILD)/bpf/%.bpf.o: src/%.bpf.c $(BPF_HDRS) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# Skeleton names: <stage>_bpf (e.g. filter_bpf__open), never colliding with fp_*.
$(BUILD)/skel/%.skel.h: $(BPF_OBJS)
	@mkdir -p $(dir $@)
	$(BPFTOOL) gen skeleton $(filter %/$*.bpf.o,$(BPF_OBJS)) name $*_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/bpf/tests/%.bpf.o: tests/%.bpf.c $(BPF_HDRS) $(wildcard tests/stage/*.h) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# A static pattern: these take precedence over the product's skeleton rule.
$(TSTAGE_SKELS): $(BUILD)/skel/%.skel.h: $(BUILD)/bpf/tests/stage/%.bpf.o
	@mkdir -p $(dir $@)
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/%.o: src/%.c $(HDRS) $(SKELS) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libfastpath.a: $(LIB_OBJS)
	@rm -f $@; ar rcs $@ $^

$(BUILD)/fastpath: $(CLI_OBJS) $(BUILD)/libfastpath.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJS) $(BUILD)/libfastpath.a $(LDLIBS)

# Examples of the C API (examples/*.c), against libfastpath.a and the
# public headers only.
EXAMPLE_BINS := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
$(BUILD)/examples/%: examples/%.c $(BUILD)/libfastpath.a $(wildcard include/fastpath/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libfastpath.a $(LDLIBS)
examples: $(EXAMPLE_BINS)

# ---- tests -------------------------------------------------------------
$(BUILD)/tests/common/%.o: tests/common/%.c $(HDRS) $(wildcard tests/common/*.h) $(SKELS) | $(DEPS_STAMP) $(BUILD)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -c $< -o $@

$(BUILD)/tests/unit/%: tests/unit/%.c $(TCOMMON_OBJS) $(BUILD)/libfastpath.a $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(TCOMMON_OBJS) $(BUILD)/libfastpath.a -lcmocka $(LDLIBS)

$(BUILD)/tests/bpf/%: tests/bpf/%.c $(TCOMMON_OBJS) $(BUILD)/libfastpath.a $(SKELS) $(TSTAGE_SKELS) $(wildcard tests/stage/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(TCOMMON_OBJS) $(BUILD)/libfastpath.a -lcmocka $(LDLIBS)

# Fuzz targets: libFuzzer + ASan/UBSan over the library sources they name in
# their first line ("// fuzz-sources: src/rules/parse.c ...").
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
               -std=gnu11 -Iinclude -Isrc -Itests -I$(BUILD)/skel -D_GNU_SOURCE
$(BUILD)/fuzz/%: tests/fuzz/%.c $(HDRS) | $(DEPS_STAMP) $(BUILD)/.deps-test
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $$(sed -n '1s#^// fuzz-sources:##p' $<) $(LDLIBS)

# The CLI with the tests' mark stage in its stage table (tests/stage/
# mark_stage.c adds it from a constructor): what the e2e tests of a
# pipeline with a third stage run. The product binary never has it.
$(BUILD)/tests/stage/%.o: tests/stage/%.c $(HDRS) $(SKELS) $(TSTAGE_SKELS) $(wildcard tests/stage/*.h) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -c $< -o $@

$(BUILD)/tests/fastpath-test: $(CLI_OBJS) $(BUILD)/tests/stage/mark_stage.o $(BUILD)/libfastpath.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJS) $(BUILD)/tests/stage/mark_stage.o $(BUILD)/libfastpath.a $(LDLIBS)

.SECONDARY: $(TCOMMON_OBJS) $(BPF_OBJS) $(SKELS) $(TSTAGE_OBJS) $(TSTAGE_SKELS)

tests-build: $(BUILD)/fastpath $(BUILD)/tests/fastpath-test $(UNIT_BINS) $(BPFT_BINS) $(FUZZ_BINS) $(EXAMPLE_BINS)

test: tests-build $(BUILD)/.deps-test
	@bash tests/run.sh

fuzz: $(FUZZ_BINS)
	@FUZZ_SECONDS=$${FUZZ_SECONDS:-120} bash tests/fuzz/run.sh

# ---- bench, demo, install ------------------------------------------------
$(BUILD)/bench/%: bench/%.c $(wildcard bench/*.h) $(TCOMMON_OBJS) $(BUILD)/libfastpath.a $(SKELS) $(TSTAGE_SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(TCOMMON_OBJS) $(BUILD)/libfastpath.a $(LDLIBS)

bench: $(BUILD)/fastpath $(BENCH_BINS) $(BUILD)/.deps-bench
	@bash bench/run.sh

demo: $(BUILD)/fastpath $(BUILD)/.deps-demo
	@bash scripts/demo.sh

demo-proxy: $(BUILD)/fastpath $(BUILD)/.deps-demo
	@bash scripts/demo_proxy.sh

install: $(BUILD)/fastpath
	install -D -m 0755 $(BUILD)/fastpath $(DESTDIR)$(PREFIX)/sbin/fastpath
	for m in docs/man/*.[0-9]; do \
	  s=$${m##*.}; install -D -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man$$s/$$(basename $$m); done
	for u in systemd/*.service; do \
	  sed 's#/usr/local/sbin/fastpath#$(PREFIX)/sbin/fastpath#g' $$u >$(BUILD)/$$(basename $$u) && \
	  install -D -m 0644 $(BUILD)/$$(basename $$u) $(DESTDIR)$(PREFIX)/lib/systemd/system/$$(basename $$u); done
	install -D -m 0644 completion/fastpath.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/fastpath

clean:
	rm -rf $(BUILD)
